/* options.c -- the value of --mapping=<mode>[,modifier...]. */
#include <stdio.h>
#include <string.h>

#include "launch.h"

static const struct {
    const char *name;
    cmp_mode_t mode;
} modes[] = {
    { "cluster", CMP_MODE_CLUSTER }, { "profile", CMP_MODE_PROFILE },
    { "block", CMP_MODE_BLOCK },     { "cyclic", CMP_MODE_CYCLIC },
    { "off", CMP_MODE_OFF },         { "help", CMP_MODE_HELP },
};

const char *cmp_mode_name(cmp_mode_t mode)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (modes[i].mode == mode)
            return modes[i].name;
    return "default";
}

/* Job names become file names in the store (escaped there); here they only
 * have to be printable and of bounded length. */
static int valid_name(const char *s, size_t len)
{
    if (len == 0 || len > CMP_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return 0;
    return 1;
}

int cmp_request_parse(const char *value, cmp_request_t *out, cm_error_t *err)
{
    if (!out)
        return cm_error_set(err, "--mapping: expected where to put the request, "
                            "got NULL");
    memset(out, 0, sizeof *out);
    if (!value || !*value)
        return cm_error_set(err, "--mapping: expected a mode (cluster, profile, "
                            "block, cyclic, off, help), got nothing");
    size_t len = strcspn(value, ",");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strlen(modes[i].name) == len && !strncmp(modes[i].name, value, len))
            out->mode = modes[i].mode;
    if (out->mode == CMP_MODE_UNSET)
        return cm_error_set(err, "--mapping: expected a mode (cluster, profile, "
                            "block, cyclic, off, help), got '%.*s'",
                            (int)(len > 64 ? 64 : len), value);
    const char *p = value + len;
    while (*p == ',') {
        p++;
        size_t l = strcspn(p, ",");
        if (l == 7 && !strncmp(p, "verbose", 7)) {
            out->verbose = 1;
        } else if (l == 9 && !strncmp(p, "noprofile", 9)) {
            out->noprofile = 1;
        } else if (l == 4 && !strncmp(p, "pack", 4)) {
            out->pack = 1;
        } else if (cm_overlay_modifier(p, l)) {   /* css, overlap */
            out->overlay |= cm_overlay_modifier(p, l);
        } else if (l == 9 && !strncmp(p, "nooverlay", 9)) {
            out->nooverlay = 1;
        } else if (l > 5 && !strncmp(p, "name=", 5)) {
            if (!valid_name(p + 5, l - 5))
                return cm_error_set(err, "--mapping: name=: expected 1..%d printable "
                                    "characters without blanks, got '%.*s'",
                                    CMP_NAME_MAX, (int)(l - 5 > 64 ? 64 : l - 5), p + 5);
            memcpy(out->name, p + 5, l - 5);
            out->name[l - 5] = '\0';
        } else {
            return cm_error_set(err, "--mapping: unknown modifier '%.*s' (expected "
                                "name=<profile>, verbose, noprofile, pack, css, "
                                "overlap or nooverlay)",
                                (int)(l > 64 ? 64 : l), p);
        }
        p += l;
    }
    if (out->nooverlay && out->overlay)
        return cm_error_set(err, "--mapping: nooverlay contradicts css/overlap");
    return 0;
}

int cmp_overlay_parse(const char *v, unsigned *out)
{
    if (!out)
        return -1;
    return cm_overlay_spec_parse(v, CM_OVL_STRICT, out, NULL, NULL);
}

void cmp_overlay_spec(unsigned bits, char *buf, size_t size)
{
    if (!buf || !size)
        return;
    cm_overlay_spec_print(bits, buf, size);
}

const char cmp_help_text[] =
"Usage: --mapping=<mode>[,<modifier>...]   (sbatch, salloc, srun)\n"
"\n"
"clustermap places the ranks of an MPI job step on the nodes and cores of\n"
"its allocation so that ranks that talk a lot sit close together.  It learns\n"
"who talks to whom by profiling a run of the job (same user, job name and\n"
"task count), then places later runs from that profile.\n"
"\n"
"Modes:\n"
"  cluster    place from the stored profile; without one, run with Slurm's\n"
"             default placement and profile the run\n"
"  profile    run with Slurm's default placement and record a profile\n"
"  block      Slurm's block layout (rank i fills nodes in order)\n"
"  cyclic     round robin over the nodes\n"
"  off        do nothing (Slurm's default placement)\n"
"  help       print this text\n"
"Modifiers:\n"
"  name=NAME  use (and record) the profile of job name NAME instead of the\n"
"             job's own name\n"
"  verbose    print the placement (rank -> node, core) and its predicted\n"
"             communication cost on the step's stderr\n"
"  noprofile  never profile this job\n"
"  pack       allow more tasks on a node than Slurm would run there (and\n"
"             so fewer nodes); by default every node keeps the number of\n"
"             tasks of Slurm's own layout and only the ranks move\n"
"  css        run MPI_Alltoallv by contention-free schedules (the css\n"
"             overlay of libclustermap-prof.so, docs/overlays.md)\n"
"  overlap    let MPI_Alltoall(v), MPI_Allgather and MPI_Bcast return\n"
"             before their data arrived (the tnbc overlay)\n"
"  nooverlay  no overlay, not even the administrator's default\n"
"\n"
"Given to sbatch or salloc, the option applies to every srun in the job;\n"
"an srun option overrides it.  Steps with one task, steps given -w, -m or\n"
"SLURM_HOSTFILE, steps given -N under Slurm 23.11 or later (which refuses\n"
"-N with the arbitrary layout a placement uses) and overcommitted steps\n"
"(-O) are left to Slurm's default placement, and so is a step when anything\n"
"goes wrong; one line starting with 'clustermap:' says why.  mpirun in a\n"
"batch job is placed and profiled too, unless given its own layout options\n"
"(--map-by, --bind-to, -H, ...).  See clustermap_spank(8).\n"
"\n"
"Tested (make check): Slurm 22.05.8 with Open MPI 4.1.4, Slurm 24.11.5 with\n"
"Open MPI 5.0.7, Slurm 26.05.5 with Open MPI 6.0.0rc2.\n";
