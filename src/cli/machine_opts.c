/* machine_opts.c -- matrix and machine options shared by the commands. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cm_text.h"
#include "machine_opts.h"

/* The three ways to describe a machine.  Each option belongs to at most one
 * source; the first option of a source is the one that selects it. */
enum source { SRC_NONE = -1, SRC_HIERARCHY, SRC_HWLOC, SRC_SLURM, NSOURCES };

static const char *const source_usage[NSOURCES] = {
    "--hierarchy H --distances D",
    "--hwloc-xml FILE|--hwloc-live [--nodes N] [--gpus[=K]]",
    "--slurm-conf FILE [--topology-conf FILE] [--nodelist EXPR]",
};

/* Largest --nodes accepted: a bound on input, far above any real job. */
#define MAX_NODES 1000000

/* Largest --gpus=K: what cm_tree_from_hwloc_gpus() takes. */
#define MAX_PER_GPU 1024

/* Machines up to this many slots are built whole once the matrix is known
 * (a few milliseconds), so that every baseline, random included, is drawn
 * over all of them; larger ones only as far as the ranks can use them
 * (cm_tree_restrict), so that a small step in a huge machine costs what
 * the step costs. */
#define WHOLE_MAX_SLOTS (1 << 16)

void cm_machine_opts_init(cm_machine_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->format = CM_FORMAT_AUTO;
    o->nodes = 1;
}

int cm_machine_opts_owns(int code)
{
    return code >= CM_OPT_MATRIX && code < CM_OPT_MACHINE_END;
}

/* The slot in @p o that holds the argument of string option @p code. */
static const char **string_slot(cm_machine_opts_t *o, int code)
{
    switch (code) {
    case CM_OPT_MATRIX:        return &o->matrix;
    case CM_OPT_FORMAT:        return &o->format_name;
    case CM_OPT_HIERARCHY:     return &o->hierarchy;
    case CM_OPT_DISTANCES:     return &o->distances;
    case CM_OPT_HWLOC_XML:     return &o->hwloc_xml;
    case CM_OPT_NODES:         return &o->nodes_arg;
    case CM_OPT_SLURM_CONF:    return &o->slurm_conf;
    case CM_OPT_TOPOLOGY_CONF: return &o->topology_conf;
    case CM_OPT_NODELIST:      return &o->nodelist;
    case CM_OPT_LEVEL_COSTS:   return &o->level_costs;
    case CM_OPT_LEVEL_LATENCY: return &o->level_latency;
    case CM_OPT_LEVEL_BANDWIDTH: return &o->level_bandwidth;
    default:                   return NULL;
    }
}

static const char *option_name(int code)
{
    static const struct option opts[] = { CM_MACHINE_LONGOPTS };
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (opts[k].val == code)
            return opts[k].name;
    return "?";
}

int cm_machine_opts_set(cm_machine_opts_t *o, const char *cmd, int code,
                        const char *arg)
{
    const char **slot;

    if (code == CM_OPT_GPUS) {
        uint64_t v = 1;
        if (o->gpus)
            return cm_cli_usage_error(cmd, "--gpus given twice");
        if (arg && (cm_cli_parse_u64(arg, MAX_PER_GPU, &v) != 0 || v == 0))
            return cm_cli_usage_error(cmd, "--gpus=K expects K tasks per GPU, "
                                      "from 1 to %d, got '%s'", MAX_PER_GPU, arg);
        o->gpus = (int)v;
        return 0;
    }
    if (code == CM_OPT_HWLOC_LIVE) {
        if (o->hwloc_live)
            return cm_cli_usage_error(cmd, "--hwloc-live given twice");
        o->hwloc_live = 1;
        return 0;
    }
    slot = string_slot(o, code);
    if (!slot)
        return cm_cli_usage_error(cmd, "internal: option code %d is not a "
                                  "machine option", code);
    if (*slot)
        return cm_cli_usage_error(cmd, "--%s given twice ('%s' and '%s')",
                                  option_name(code), *slot, arg);
    *slot = arg;

    if (code == CM_OPT_FORMAT && cm_format_parse(arg, &o->format) != 0)
        return cm_cli_usage_error(cmd, "--format expects auto, mtx, metis or "
                                  "triplets, got '%s'", arg);
    if (code == CM_OPT_NODES) {
        uint64_t v;
        if (cm_cli_parse_u64(arg, MAX_NODES, &v) != 0 || v == 0)
            return cm_cli_usage_error(cmd, "--nodes expects an integer from 1 "
                                      "to %d, got '%s'", MAX_NODES, arg);
        o->nodes = (int)v;
    }
    return 0;
}

/* The first option of each source that was given ("--hierarchy", ...), or
 * NULL for a source none of whose options appear. */
static void sources_given(const cm_machine_opts_t *o, const char *given[NSOURCES])
{
    given[SRC_HIERARCHY] = o->hierarchy ? "--hierarchy"
                         : o->distances ? "--distances" : NULL;
    given[SRC_HWLOC] = o->hwloc_xml ? "--hwloc-xml"
                     : o->hwloc_live ? "--hwloc-live"
                     : o->nodes_arg ? "--nodes"
                     : o->gpus ? "--gpus" : NULL;
    given[SRC_SLURM] = o->slurm_conf ? "--slurm-conf"
                     : o->topology_conf ? "--topology-conf"
                     : o->nodelist ? "--nodelist" : NULL;
}

int cm_machine_opts_check(const cm_machine_opts_t *o, const char *cmd, int flags)
{
    const char *given[NSOURCES];
    int first = SRC_NONE;

    sources_given(o, given);
    for (int s = 0; s < NSOURCES; s++) {
        if (!given[s])
            continue;
        if (first != SRC_NONE)
            return cm_cli_usage_error(cmd, "conflicting machine descriptions: "
                "%s and %s (give exactly one of: %s | %s | %s)",
                given[first], given[s], source_usage[SRC_HIERARCHY],
                source_usage[SRC_HWLOC], source_usage[SRC_SLURM]);
        first = s;
    }
    if (first == SRC_NONE)
        return cm_cli_usage_error(cmd, "missing machine description: give "
            "one of: %s | %s | %s", source_usage[SRC_HIERARCHY],
            source_usage[SRC_HWLOC], source_usage[SRC_SLURM]);

    switch (first) {
    case SRC_HIERARCHY:
        if (!o->hierarchy)
            return cm_cli_usage_error(cmd, "--distances needs --hierarchy");
        if (!o->distances)
            return cm_cli_usage_error(cmd, "--hierarchy needs --distances");
        break;
    case SRC_HWLOC:
        if (o->hwloc_xml && o->hwloc_live)
            return cm_cli_usage_error(cmd, "conflicting machine descriptions: "
                                      "--hwloc-xml and --hwloc-live (give one)");
        if (!o->hwloc_xml && !o->hwloc_live)
            return cm_cli_usage_error(cmd, "%s needs --hwloc-xml or "
                                      "--hwloc-live", given[first]);
        break;
    case SRC_SLURM:
        if (!o->slurm_conf)
            return cm_cli_usage_error(cmd, "%s needs --slurm-conf", given[first]);
        if (!o->nodelist && !getenv("SLURM_JOB_NODELIST"))
            return cm_cli_usage_error(cmd, "--slurm-conf needs --nodelist "
                                      "(or SLURM_JOB_NODELIST in the environment)");
        break;
    default:
        break;
    }

    if (o->level_costs && o->level_bandwidth)
        return cm_cli_usage_error(cmd, "--level-costs and --level-bandwidth both set "
                                  "per-byte costs: give one");
    if ((flags & CM_MACHINE_NEED_MATRIX) && !o->matrix)
        return cm_cli_usage_error(cmd, "missing --matrix FILE");
    if (!(flags & CM_MACHINE_NEED_MATRIX) && (o->matrix || o->format_name))
        return cm_cli_usage_error(cmd, "%s is not used by this command",
                                  o->matrix ? "--matrix" : "--format");
    return 0;
}

/* The machine, whole (@p n == 0), or the part of it @p n ranks and the
 * slots @p keep can use: --hierarchy and hwloc machines are cut without
 * being built, a slurm.conf one (whose node list is given) after. */
static cm_tree_t *build_part(const cm_machine_opts_t *o, int n, const int *keep,
                             int nkeep, cm_error_t *err)
{
    const char *xml = o->hwloc_live ? NULL : o->hwloc_xml;
    if (o->hierarchy)
        return n ? cm_tree_from_hierarchy_restricted(o->hierarchy, o->distances,
                                                     n, keep, nkeep, err)
                 : cm_tree_from_hierarchy(o->hierarchy, o->distances, err);
    if (o->gpus)
        return n ? cm_tree_from_hwloc_gpus_restricted(xml, o->nodes, o->gpus, n, keep,
                                                      nkeep, err)
                 : cm_tree_from_hwloc_gpus(xml, o->nodes, o->gpus, err);
    if (o->hwloc_xml || o->hwloc_live)
        return n ? cm_tree_from_hwloc_restricted(xml, o->nodes, n, keep, nkeep, err)
                 : cm_tree_from_hwloc(xml, o->nodes, err);
    if (!o->slurm_conf) {
        cm_error_set(err, "no machine description");
        return NULL;
    }
    const char *nodelist = o->nodelist ? o->nodelist : getenv("SLURM_JOB_NODELIST");
    cm_tree_t *t = cm_tree_from_slurm_conf(o->slurm_conf, o->topology_conf,
                                           nodelist, err);
    if (!t || !n || cm_tree_nslots(t) <= WHOLE_MAX_SLOTS)
        return t;
    cm_tree_t *part = cm_tree_restrict(t, n, keep, nkeep, err);
    cm_tree_free(t);
    return part;
}

/* The machine for @p n ranks (0: no matrix), whole when it is small. */
static cm_tree_t *build_tree(const cm_machine_opts_t *o, int n, const int *keep,
                             int nkeep, cm_error_t *err)
{
    cm_tree_t *t = build_part(o, n, keep, nkeep, err);
    if (t && cm_tree_nslots(t) < cm_tree_origin_nslots(t) &&
        cm_tree_origin_nslots(t) <= WHOLE_MAX_SLOTS) {
        cm_tree_free(t);
        t = build_part(o, 0, NULL, 0, err);
    }
    return t;
}

/* The slots of the mapping file the command will read (@p o->keep_mapping)
 * for @p n ranks, so that the machine keeps them; NULL when there is none
 * or it does not parse (the command reports that when it reads it). */
static int *keep_slots(const cm_machine_opts_t *o, int n)
{
    cm_error_t err = { "" };
    int *keep = o->keep_mapping && n > 0 ? malloc((size_t)n * sizeof *keep) : NULL;
    if (keep && cm_mapping_read(o->keep_mapping, n, keep, &err) != 0) {
        free(keep);
        keep = NULL;
    }
    return keep;
}

int cm_machine_opts_load(const cm_machine_opts_t *o, const char *cmd,
                         cm_matrix_t **m, cm_tree_t **t)
{
    cm_error_t err = { "" };
    cm_tree_t *tree;
    cm_matrix_t *mat = NULL;

    *t = NULL;
    if (m)
        *m = NULL;
    /* The matrix first: its ranks say how much of the machine to build. */
    if (m && !(mat = cm_matrix_read(o->matrix, o->format, &err)))
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s", err.msg);
    int n = mat ? cm_matrix_n(mat) : 0;
    int *keep = keep_slots(o, n);
    tree = build_tree(o, n, keep, keep ? n : 0, &err);
    free(keep);
    if (!tree) {
        cm_matrix_free(mat);
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s", err.msg);
    }
    /* The level-cost overrides, in this order. */
    const struct {
        const char *option, *spec;
        int (*set)(cm_tree_t *t, const char *spec, cm_error_t *err);
    } overrides[] = {
        { "--level-costs", o->level_costs, cm_tree_set_level_costs },
        { "--level-bandwidth", o->level_bandwidth, cm_tree_set_level_bandwidths },
        { "--level-latency", o->level_latency, cm_tree_set_level_latencies },
    };
    for (size_t k = 0; k < sizeof overrides / sizeof overrides[0]; k++) {
        const char *spec = overrides[k].spec;
        if (spec && overrides[k].set(tree, spec, &err) != 0) {
            cm_matrix_free(mat);
            cm_tree_free(tree);
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: %s", overrides[k].option, err.msg);
        }
    }
    if (n > cm_tree_origin_nslots(tree)) {
        int status = cm_cli_fail(CM_EXIT_FAIL, cmd, "%s has %d ranks but "
            "the machine has only %d slots", o->matrix, n,
            cm_tree_origin_nslots(tree));
        cm_matrix_free(mat);
        cm_tree_free(tree);
        return status;
    }
    if (m)
        *m = mat;
    *t = tree;
    return 0;
}

void cm_machine_opts_help(FILE *f, int flags)
{
    if (flags & CM_MACHINE_NEED_MATRIX)
        fputs(
"  --matrix FILE          communication matrix: bytes rank i sent to rank j\n"
"  --format FMT           auto (default), mtx, metis or triplets\n", f);
    fputs(
"Machine (exactly one of):\n"
"  --hierarchy H          levels named, innermost first: core=8,node=2,switch=4\n"
"                         (8 cores/node, 2 nodes/switch, 4 switches; exactly\n"
"                         one node=), or VieM/KaHIP a1:a2:...:ak, where the\n"
"                         second field is always the node (4:2:4:2 = 4\n"
"                         cores/socket, 2 sockets/node, 4 nodes/switch, 2\n"
"                         switches); --verbose prints the tree built\n"
"  --distances D          cost per byte d1:...:dk for each hierarchy level\n"
"  --hwloc-xml FILE       nodes like this hwloc topology (lstopo --of xml)\n"
"  --hwloc-live           nodes like the machine this runs on\n"
"  --nodes N              number of such nodes (default 1)\n"
"  --gpus[=K]             with --hwloc-*: the slots are the nodes' GPUs, K\n"
"                         tasks per GPU (default 1); `clustermap devices`\n"
"                         lists them\n"
"  --slurm-conf FILE      nodes as described by this slurm.conf\n"
"  --topology-conf FILE   switches from this topology.conf (default: one switch)\n"
"  --nodelist EXPR        Slurm hostlist of the allocation, e.g. n[1-4]\n"
"                         (default: $SLURM_JOB_NODELIST)\n"
"  (a machine of more than 65536 slots is built only as far as the matrix's\n"
"  ranks can use it; mappings still name its slots: docs/machine-costs.md)\n"
"Level costs (defaults, units and how J reads: docs/machine-costs.md):\n"
"  --level-costs SPEC     per-byte costs: name=cost,name=cost (seconds per\n"
"                         byte for hwloc and slurm.conf machines)\n"
"  --level-bandwidth SPEC per-byte costs as 1 / bandwidth: name=12.5GB/s,...\n"
"                         (B/s, kB/s, MB/s, GB/s, GiB/s, Gb/s, ...)\n"
"  --level-latency SPEC   per-message costs: name=1.5us,... (s, ms, us, ns)\n", f);
}

int cm_place_opts_parse(cm_place_opts_t *o, const char *cmd, int argc, char **argv,
                        const char *shortopts, const struct option *longopts,
                        int machine_flags, cm_place_option_fn own, void *ctx,
                        void (*usage)(FILE *))
{
    int c, status;

    memset(o, 0, sizeof *o);
    cm_machine_opts_init(&o->machine);
    o->seed = 1;
    o->weight = CM_WEIGHT_MIXED;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (cm_machine_opts_owns(c)) {
            if ((status = cm_machine_opts_set(&o->machine, cmd, c, optarg)) != 0)
                return status;
            continue;
        }
        switch (c) {
        case 'h':
            usage(stdout);
            return CM_PLACE_HELP;
        case 'v':
            o->verbose = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case CM_OPT_SEED:
            if (cm_cli_parse_u64(optarg, UINT64_MAX, &o->seed) != 0)
                return cm_cli_usage_error(cmd, "--seed expects a non-negative "
                                          "integer, got '%s'", optarg);
            break;
        case CM_OPT_WEIGHT:
            if (cm_weight_parse(optarg, &o->weight) != 0)
                return cm_cli_usage_error(cmd, "--weight expects mixed, bytes or "
                                          "msgs, got '%s'", optarg);
            o->have_weight = 1;
            break;
        case '?':
        case ':':
            return cm_cli_bad_option(cmd, c, argv);
        default:
            if ((status = own(ctx, c, optarg)) != 0)
                return status;
        }
    }
    if (optind < argc)
        return cm_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return cm_machine_opts_check(&o->machine, cmd, machine_flags);
}

int cm_machine_gpu_ranks(FILE *f, const cm_machine_opts_t *o, const char *cmd,
                         const cm_tree_t *t, const int *map, int n)
{
    if (!o->gpus)
        return 0;
    cm_error_t err = { "" };
    cm_devices_t *d = cm_devices_from_hwloc(o->hwloc_live ? NULL : o->hwloc_xml, &err);
    if (!d)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s", err.msg);
    for (int r = 0; r < n; r++) {
        int g = cm_tree_slot_gpu(t, map[r]);
        int node = cm_tree_slot_node(t, map[r]);
        const char *name = cm_tree_vertex_label(t, cm_tree_node_vertex(t, node));
        const char *nic = cm_devices_nic_name(d, cm_devices_gpu_nic(d, g));
        const char *cpus = cm_devices_gpu_cpulist(d, g);
        /* names come from the XML: escaped, one rank a line */
        fprintf(f, "rank=%d node=", r);
        cm_text_fputs(name ? name : "-", f);
        fprintf(f, " gpu=%d nic=", g);
        cm_text_fputs(nic ? nic : "-", f);
        fputs(" cpus=", f);
        cm_text_fputs(cpus && *cpus ? cpus : "-", f);
        fputc('\n', f);
    }
    cm_devices_free(d);
    return 0;
}

void cm_machine_line(FILE *f, const cm_tree_t *t)
{
    int nl = cm_tree_nlevels(t), nv = cm_tree_nvertices(t);
    for (int l = 0; l < nl; l++) {
        int count = 0;
        for (int v = 0; v < nv; v++)
            count += cm_tree_vertex_level(t, v) == l;
        fprintf(f, "%s%s %d", l ? " > " : "", cm_tree_level_name(t, l), count);
    }
}
