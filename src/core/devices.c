/* devices.c -- a node's GPUs and NICs, with their locality, from hwloc.
 *
 * hwloc names one GPU several times, once per backend (cuda0 and nvml0 are
 * the same board), and always under its PCI device; so a GPU here is a PCI
 * device, named by the most specific of its OS devices.  A NIC is likewise
 * a PCI device with an OpenFabrics or Network OS device; network devices
 * without a PCI parent (lo, bridges, tunnels) are not NICs.  Both lists
 * are in PCI bus order, which is the order Slurm numbers GPUs in (the
 * File= lines of gres.conf, NVIDIA's and AMD's enumeration by bus), not
 * hwloc's logical order, which follows the tree.
 *
 * A device's locality is the cpuset of its nearest non-I/O ancestor, as
 * hwloc_get_non_io_ancestor_obj() gives it.
 *
 * Slurm's view of the GPUs comes before hwloc's where the two differ
 * (cm_devices_apply_gres()): the controller hands out GPUs by gres.conf's
 * Cores= and Links=, so a task bound by hwloc's view where gres.conf says
 * otherwise would sit on cores Slurm does not count as its GPU's.  The
 * topology stays loaded with the handle for that: a locality moved to
 * Slurm's cores needs its package, NUMA node and nearest NIC again.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "clustermap.h"
#include "hwloc_internal.h"

/* More GPUs or NICs than this in one node is a broken description. */
#define DEV_MAX 4096

typedef struct dev {
    hwloc_obj_t pci;  /* the PCI device */
    hwloc_obj_t loc;  /* nearest non-I/O ancestor, or the object covering
                         Slurm's cores */
    char *name;       /* GPU: nvml0, rsmi0...; NIC: the network interface */
    char *fabric;     /* NIC: OpenFabrics device, or NULL */
    int verbs;        /* NIC: the OpenFabrics device is an InfiniBand verbs
                         device (hwloc gave it a NodeGUID) */
    char busid[32];   /* dddd:bb:dd.f */
    int vendor;       /* PCI vendor id */
    int numa;         /* OS index, -1 */
    int package;      /* OS index, -1 */
    int ncores, npus; /* lengths of cores[] and pus[] */
    int *cores;       /* logical core indexes of the locality */
    int *pus;         /* OS PU indexes of the locality */
    char *cpulist;    /* pus as "0-7,16" */
    int nic;          /* GPU: nearest NIC, -1 */
} device_t;

struct cm_devices {
    hwloc_topology_t topo; /* what the devices point into */
    int ngpus, nnics;
    device_t *gpus, *nics;
    double *bw;       /* [ngpus * ngpus] bytes/s, 0 = no direct link */
    const char *link; /* "nvlink", "xgmi", "xelink", or NULL */
};

/* Backends in order of preference for a GPU's name: the management
 * libraries first (their index is the one tools print), then the
 * programming interfaces. */
static const char *const gpu_backend[] = { "NVML", "RSMI",   "LevelZero",
                                           "CUDA", "OpenCL", NULL };

static int backend_rank(const char *subtype)
{
    for (int i = 0; subtype && gpu_backend[i]; i++)
        if (!strcmp(subtype, gpu_backend[i]))
            return i;
    return -1;
}

/* GPU vendors whose display/3D controllers are GPUs when no backend named
 * them: NVIDIA, AMD, Intel. */
static int gpu_by_class(hwloc_obj_t pci)
{
    unsigned cls = pci->attr->pcidev.class_id, ven = pci->attr->pcidev.vendor_id;
    return (cls == 0x0300 || cls == 0x0302 || cls == 0x0380) &&
        (ven == 0x10de || ven == 0x1002 || ven == 0x8086);
}

static int cmp_busid(const void *a, const void *b)
{
    const device_t *x = a, *y = b;
    return strcmp(x->busid, y->busid);
}

/* "0-7,16,18-19" of the sorted @p ids; with @p ranges 0, "0,1,2,..." of
 * any ids. */
static char *format_list(const int *ids, int n, int ranges)
{
    size_t cap = 16 + (size_t)n * 24, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        while (ranges && j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        int w = j > i
            ? snprintf(s + len, cap - len, "%s%d-%d", len ? "," : "", ids[i], ids[j])
            : snprintf(s + len, cap - len, "%s%d", len ? "," : "", ids[i]);
        len += (size_t)w;
        i = j + 1;
    }
    return s;
}

/* NUMA node, package and CPU lists of @p d from the CPUs @p set, which
 * d->loc covers; what an earlier call filled is replaced. */
static int set_locality(hwloc_topology_t topo, device_t *d, hwloc_const_cpuset_t set)
{
    free(d->cores);
    free(d->pus);
    free(d->cpulist);
    d->cores = d->pus = NULL;
    d->cpulist = NULL;
    d->ncores = d->npus = 0;
    d->numa = -1;
    d->package = -1;
    hwloc_obj_t pk = d->loc;
    while (pk && pk->type != HWLOC_OBJ_PACKAGE)
        pk = pk->parent;
    if (pk)
        d->package = (int)pk->os_index;
    if (!set)
        return 0;
    /* The smallest NUMA node holding the whole locality; of equal ones the
     * first (on a GH200 the CPU memory comes before the GPU's). */
    int best = INT_MAX;
    hwloc_obj_t n = NULL;
    while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)))
        if (n->cpuset && !hwloc_bitmap_iszero(set) &&
            hwloc_bitmap_isincluded(set, n->cpuset) &&
            hwloc_bitmap_weight(n->cpuset) < best) {
            best = hwloc_bitmap_weight(n->cpuset);
            d->numa = (int)n->os_index;
        }
    int w = hwloc_bitmap_weight(set);
    if (w < 0)
        w = 0;
    d->pus = malloc(((size_t)w + 1) * sizeof(int));
    hwloc_obj_type_t ct = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0
        ? HWLOC_OBJ_CORE
        : HWLOC_OBJ_PU;
    int nc = hwloc_get_nbobjs_by_type(topo, ct);
    d->cores = malloc(((size_t)(nc > 0 ? nc : 0) + 1) * sizeof(int));
    if (!d->pus || !d->cores)
        return -1;
    unsigned id;
    hwloc_bitmap_foreach_begin(id, set)
    {
        if (d->npus < w)
            d->pus[d->npus++] = (int)id;
    }
    hwloc_bitmap_foreach_end();
    for (int i = 0; i < nc; i++) {
        hwloc_obj_t c = hwloc_get_obj_by_type(topo, ct, (unsigned)i);
        if (c->cpuset && hwloc_bitmap_isincluded(c->cpuset, set))
            d->cores[d->ncores++] = i;
    }
    d->cpulist = format_list(d->pus, d->npus, 1);
    return d->cpulist ? 0 : -1;
}

/* Locality, NUMA node and CPU lists of @p d from its PCI device. */
static int fill_locality(hwloc_topology_t topo, device_t *d)
{
    d->loc = hwloc_get_non_io_ancestor_obj(topo, d->pci);
    return set_locality(topo, d, d->loc ? d->loc->cpuset : NULL);
}

static void set_busid(device_t *d)
{
    struct hwloc_pcidev_attr_s *p = &d->pci->attr->pcidev;
    snprintf(d->busid, sizeof d->busid, "%04x:%02x:%02x.%01x", (unsigned)p->domain,
             (unsigned)p->bus, (unsigned)p->dev, (unsigned)p->func);
    d->vendor = p->vendor_id;
}

static int collect(hwloc_topology_t topo, cm_devices_t *d, const char *what,
                   cm_error_t *err)
{
    int ng = 0, nn = 0;
    hwloc_obj_t pci = NULL;
    while ((pci = hwloc_get_next_pcidev(topo, pci))) {
        int gpu = gpu_by_class(pci), nic = 0;
        for (hwloc_obj_t o = pci->io_first_child; o; o = o->next_sibling) {
            if (o->type != HWLOC_OBJ_OS_DEVICE)
                continue;
            hwloc_obj_osdev_type_t t = o->attr->osdev.type;
            if ((t == HWLOC_OBJ_OSDEV_GPU || t == HWLOC_OBJ_OSDEV_COPROC) &&
                backend_rank(o->subtype) >= 0)
                gpu = 1;
            if (t == HWLOC_OBJ_OSDEV_OPENFABRICS || t == HWLOC_OBJ_OSDEV_NETWORK)
                nic = 1;
        }
        ng += gpu;
        nn += nic && !gpu;
    }
    if (ng > DEV_MAX || nn > DEV_MAX)
        return cm_error_set(err, "%s: %d GPUs and %d NICs, at most %d of each", what, ng,
                            nn, DEV_MAX);
    d->gpus = calloc((size_t)ng + 1, sizeof(device_t));
    d->nics = calloc((size_t)nn + 1, sizeof(device_t));
    if (!d->gpus || !d->nics)
        return cm_error_set(err, "%s: out of memory", what);
    while ((pci = hwloc_get_next_pcidev(topo, pci))) {
        int gpu = gpu_by_class(pci), best = -1, nic = 0;
        const char *gname = NULL, *net = NULL, *fab = NULL;
        int verbs = 0;
        for (hwloc_obj_t o = pci->io_first_child; o; o = o->next_sibling) {
            if (o->type != HWLOC_OBJ_OS_DEVICE || !o->name)
                continue;
            hwloc_obj_osdev_type_t t = o->attr->osdev.type;
            int r = backend_rank(o->subtype);
            if ((t == HWLOC_OBJ_OSDEV_GPU || t == HWLOC_OBJ_OSDEV_COPROC) && r >= 0) {
                gpu = 1;
                if (best < 0 || r < best) {
                    best = r;
                    gname = o->name;
                }
            }
            if (t == HWLOC_OBJ_OSDEV_NETWORK && !net)
                net = o->name, nic = 1;
            if (t == HWLOC_OBJ_OSDEV_OPENFABRICS && !fab) {
                fab = o->name, nic = 1;
                /* hwloc reads NodeGUID from /sys/class/infiniband only:
                 * what UCX and libfabric's verbs provider open by name
                 * (a Slingshot cxi or BXI device has none) */
                verbs = hwloc_obj_get_info_by_name(o, "NodeGUID") != NULL;
            }
        }
        device_t *x;
        if (gpu)
            x = &d->gpus[d->ngpus++];
        else if (nic)
            x = &d->nics[d->nnics++];
        else
            continue;
        x->pci = pci;
        x->nic = -1;
        set_busid(x);
        const char *name = gpu ? (gname ? gname : x->busid) : (net ? net : fab);
        x->name = strdup(name);
        x->verbs = !gpu && verbs;
        if (!gpu && fab && !(x->fabric = strdup(fab)))
            return cm_error_set(err, "%s: out of memory", what);
        if (!x->name || fill_locality(topo, x) < 0)
            return cm_error_set(err, "%s: out of memory", what);
    }
    qsort(d->gpus, (size_t)d->ngpus, sizeof(device_t), cmp_busid);
    qsort(d->nics, (size_t)d->nnics, sizeof(device_t), cmp_busid);
    return 0;
}

/* The GPU whose PCI device is @p o or holds it; -1 when none. */
static int gpu_of(const cm_devices_t *d, hwloc_obj_t o)
{
    while (o && o->type == HWLOC_OBJ_OS_DEVICE)
        o = o->parent;
    for (int g = 0; o && g < d->ngpus; g++)
        if (d->gpus[g].pci == o)
            return g;
    return -1;
}

/* Add the GPU pairs of bandwidth matrix @p dist (MB/s) to d->bw (bytes/s),
 * keeping the larger value.  1 when it had a link between two GPUs, and
 * in *@p others whether it has objects that are not GPUs (switches). */
static int merge_links(cm_devices_t *d, const struct hwloc_distances_s *dist, int *others)
{
    int n = d->ngpus, any = 0;
    for (unsigned i = 0; i < dist->nbobjs; i++) {
        int a = gpu_of(d, dist->objs[i]);
        if (a < 0 && others)
            *others = 1;
        for (unsigned j = 0; j < dist->nbobjs; j++) {
            int b = gpu_of(d, dist->objs[j]);
            double v = (double)dist->values[i * dist->nbobjs + j] * 1e6;
            if (a < 0 || b < 0 || a == b || v <= 0)
                continue;
            if (v > d->bw[a * n + b])
                d->bw[a * n + b] = v;
            any = 1;
        }
    }
    return any;
}

/* Interconnect bandwidth matrices (hwloc's NVML, RSMI and Level Zero
 * backends) as bytes/s between GPUs; of several matrices the larger value
 * wins.  A matrix with switches (NVML lists NVSwitch ports) gets its ports
 * merged and its paths through a switch closed, so that every pair the
 * switch joins has a value; hwloc's closure drops the direct GPU-GPU
 * values, so it runs only then, after those are kept. */
static int read_links(hwloc_topology_t topo, cm_devices_t *d, const char *what,
                      cm_error_t *err)
{
    int n = d->ngpus;
    d->bw = calloc((size_t)n * (size_t)n + 1, sizeof(double));
    if (!d->bw)
        return cm_error_set(err, "%s: out of memory", what);
    static const struct {
        const char *hwloc, *level;
    } mats[] = { { "NVLinkBandwidth", "nvlink" },
                 { "XGMIBandwidth", "xgmi" },
                 { "XeLinkBandwidth", "xelink" } };
    for (size_t m = 0; m < sizeof mats / sizeof mats[0]; m++) {
        unsigned nr = 1;
        struct hwloc_distances_s *dist = NULL;
        if (hwloc_distances_get_by_name(topo, mats[m].hwloc, &nr, &dist, 0) < 0 || nr < 1)
            continue;
        int any = 0, others = 0;
        if (dist->kind & HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH) {
            any = merge_links(d, dist, &others);
            if (others) {
                hwloc_distances_transform(
                    topo, dist, HWLOC_DISTANCES_TRANSFORM_MERGE_SWITCH_PORTS, NULL, 0);
                if (hwloc_distances_transform(
                        topo, dist, HWLOC_DISTANCES_TRANSFORM_TRANSITIVE_CLOSURE, NULL,
                        0) == 0)
                    any |= merge_links(d, dist, NULL);
            }
        }
        if (any && !d->link)
            d->link = mats[m].level;
        hwloc_distances_release(topo, dist);
    }
    return 0;
}

/* Nearest NIC of each GPU: the smallest common ancestor; of equally near
 * NICs the one at GPU index x NICs / GPUs, or the nearest index to it, so
 * that GPUs sharing a locality share NICs in pairs, as Slurm's closest. */
static void nearest_nics(hwloc_topology_t topo, cm_devices_t *d)
{
    for (int g = 0; g < d->ngpus; g++) {
        int best = -1, bw = INT_MAX;
        long target = d->nnics ? (long)g * d->nnics / d->ngpus : 0;
        for (int k = 0; k < d->nnics; k++) {
            hwloc_obj_t a = d->gpus[g].loc, b = d->nics[k].loc;
            hwloc_obj_t c = a && b ? hwloc_get_common_ancestor_obj(topo, a, b) : NULL;
            int w = c && c->cpuset ? hwloc_bitmap_weight(c->cpuset) : INT_MAX - 1;
            if (w < 0)
                w = INT_MAX - 1;
            if (w < bw || (w == bw && labs(k - target) < labs(best - target))) {
                bw = w;
                best = k;
            }
        }
        d->gpus[g].nic = best;
    }
}

cm_devices_t *cm_devices_from_hwloc(const char *xml_path, cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "live machine";
    hwloc_topology_t topo;
    /* GPUs and NICs are "important" PCI devices; their OS devices too. */
    if (cm_hwloc_load(&topo, xml_path, HWLOC_TYPE_FILTER_KEEP_IMPORTANT, err) < 0)
        return NULL;
    cm_devices_t *d = calloc(1, sizeof *d);
    if (!d) {
        cm_error_set(err, "%s: out of memory", what);
    } else if (collect(topo, d, what, err) < 0 || read_links(topo, d, what, err) < 0) {
        cm_devices_free(d);
        d = NULL;
    } else {
        nearest_nics(topo, d);
        d->topo = topo;
        return d;
    }
    hwloc_topology_destroy(topo);
    return d;
}

/* A line for the caller's note, or -1 (no memory). */
static int say(cm_devices_note_fn note, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int say(cm_devices_note_fn note, void *arg, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    if (!note)
        return 0;
    va_start(ap, fmt);
    int rc = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    note(line, arg);
    free(line);
    return 0;
}

/* Slurm's Cores= of GPU @p k, when given and unlike hwloc's: the GPU's
 * locality becomes those cores.  Slurm numbers cores as the gres.conf
 * manual says and slurmd's block map does: core c is the c-th core of
 * the node counted socket by socket, which is hwloc's logical core index
 * (lstopo's "Core L#c"), every hardware thread of it included.  1 when
 * Slurm's view was taken, 0 when the two agree, -1 on an error. */
static int apply_cores(cm_devices_t *d, int k, const cm_gres_dev_t *g,
                       cm_devices_note_fn note, void *arg, cm_error_t *err)
{
    device_t *x = &d->gpus[k];
    hwloc_topology_t topo = d->topo;
    hwloc_obj_type_t ct = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0
        ? HWLOC_OBJ_CORE
        : HWLOC_OBJ_PU;
    int nc = hwloc_get_nbobjs_by_type(topo, ct);
    if (!g->cores || g->ncores < 1)
        return 0;
    int same = g->ncores == x->ncores;
    for (int i = 0; i < g->ncores; i++) {
        if (g->cores[i] < 0 || g->cores[i] >= nc)
            return cm_error_set(err,
                                "gres.conf line %d: Cores= of GPU %d names core %d, "
                                "expected 0..%d (the cores hwloc finds, counted "
                                "socket by socket)",
                                g->line, k, g->cores[i], nc - 1);
        same = same && g->cores[i] == x->cores[i];
    }
    if (same)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char *theirs = format_list(g->cores, g->ncores, 1),
         *ours = format_list(x->cores, x->ncores, 1);
    int rc = set && theirs && ours ? 0 : -1;
    for (int i = 0; !rc && i < g->ncores; i++) {
        hwloc_obj_t c = hwloc_get_obj_by_type(topo, ct, (unsigned)g->cores[i]);
        if (c && c->cpuset)
            hwloc_bitmap_or(set, set, c->cpuset);
    }
    if (!rc) {
        x->loc = hwloc_get_obj_covering_cpuset(topo, set);
        rc = set_locality(topo, x, set);
    }
    if (!rc)
        rc = say(note, arg,
                 "gres.conf Cores= of GPU %d (%s) differs from hwloc's (%s): "
                 "Slurm's used",
                 k, theirs, ours[0] ? ours : "none");
    hwloc_bitmap_free(set);
    free(theirs);
    free(ours);
    return rc < 0 ? cm_error_set(err, "gres.conf line %d: out of memory", g->line) : 1;
}

/* The interconnect a GPU of vendor @p vendor has, for links only gres.conf
 * names. */
static const char *vendor_link(int vendor)
{
    return vendor == 0x1002 ? "xgmi" : vendor == 0x8086 ? "xelink" : "nvlink";
}

/* Slurm's Links= of every GPU, when each has one count per GPU of the node
 * and they say other links than hwloc's matrix.  Links= counts
 * connections, not bytes: a count becomes bandwidth through one link's,
 * u = hwloc's bandwidth of its slowest linked pair / Slurm's smallest
 * count, so that a file written from hwloc's matrix (counts relative to
 * its slowest link, as `nvidia-smi topo` and the harness write them)
 * changes nothing; without a matrix, u = the interconnect level's default
 * bandwidth (cm_tree_default_bandwidth()) / the smallest count.  hwloc's
 * pair (a, b) says round(bw / u) links; a row of Links= unlike that
 * replaces the whole matrix.  1 when Slurm's view was taken, 0 when the
 * two agree or gres.conf has no complete Links=, -1 on an error. */
static int apply_links(cm_devices_t *d, const cm_gres_t *g, cm_devices_note_fn note,
                       void *arg, cm_error_t *err)
{
    int n = d->ngpus, lmin = 0;
    double bwmin = 0;
    cm_gres_dev_t dev;
    for (int a = 0; a < n; a++) {
        if (cm_gres_device(g, "gpu", a, &dev) < 0 || !dev.links || dev.nlinks != n)
            return 0;
        for (int b = 0; b < n; b++)
            if (a != b && dev.links[b] > 0 && (!lmin || dev.links[b] < lmin))
                lmin = dev.links[b];
        for (int b = 0; b < n; b++) {
            double v = d->bw[a * n + b];
            if (v > 0 && (bwmin <= 0 || v < bwmin))
                bwmin = v;
        }
    }
    const char *link = d->link ? d->link : vendor_link(d->gpus[0].vendor);
    double u = lmin ? (bwmin > 0 ? bwmin : cm_tree_default_bandwidth(link)) / lmin : 0;
    int *hw = malloc(((size_t)n + 1) * sizeof *hw), differs = 0;
    double *bw = calloc((size_t)n * (size_t)n + 1, sizeof *bw);
    if (!hw || !bw)
        goto oom;
    for (int a = 0; a < n; a++) {
        cm_gres_device(g, "gpu", a, &dev);
        int row = 0;
        for (int b = 0; b < n; b++) {
            hw[b] = a == b ? -1 : u > 0 ? (int)lround(d->bw[a * n + b] / u) : 0;
            if (a != b && d->bw[a * n + b] > 0 && hw[b] < 1)
                hw[b] = 1; /* a link slower than one of Slurm's is still one */
            int want = a == b ? -1 : dev.links[b] < 0 ? 0 : dev.links[b];
            row |= want != hw[b];
            bw[a * n + b] = a == b ? 0 : want * u;
        }
        if (!row)
            continue;
        differs = 1;
        char *theirs = format_list(dev.links, n, 0), *ours = format_list(hw, n, 0);
        int rc = theirs && ours
            ? say(note, arg,
                  "gres.conf Links= of GPU %d (%s) differs from hwloc's (%s): "
                  "Slurm's used",
                  a, theirs, ours)
            : -1;
        free(theirs);
        free(ours);
        if (rc < 0)
            goto oom;
    }
    free(hw);
    if (!differs) {
        free(bw);
        return 0;
    }
    free(d->bw);
    d->bw = bw;
    d->link = lmin ? link : NULL;
    return 1;
oom:
    free(hw);
    free(bw);
    return cm_error_set(err, "gres.conf: out of memory");
}

int cm_devices_apply_gres(cm_devices_t *d, const cm_gres_t *g, cm_devices_note_fn note,
                          void *arg, cm_error_t *err)
{
    if (!d || !g || !d->topo)
        return cm_error_set(err,
                            "gres.conf: a device list and a gres.conf view are "
                            "required");
    int n = cm_gres_count(g, "gpu");
    if (n != d->ngpus)
        return cm_error_set(err, "gres.conf gives %d GPUs, hwloc finds %d", n, d->ngpus);
    int taken = 0, moved = 0;
    cm_gres_dev_t dev;
    for (int k = 0; k < n; k++) {
        cm_gres_device(g, "gpu", k, &dev);
        int rc = apply_cores(d, k, &dev, note, arg, err);
        if (rc < 0)
            return -1;
        moved += rc;
    }
    /* a GPU that moved may have another nearest NIC */
    if (moved)
        nearest_nics(d->topo, d);
    int rc = apply_links(d, g, note, arg, err);
    if (rc < 0)
        return -1;
    taken = moved + rc;
    return taken;
}

static void dev_clear(device_t *x)
{
    free(x->name);
    free(x->fabric);
    free(x->cores);
    free(x->pus);
    free(x->cpulist);
}

void cm_devices_free(cm_devices_t *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->ngpus; i++)
        dev_clear(&d->gpus[i]);
    for (int i = 0; i < d->nnics; i++)
        dev_clear(&d->nics[i]);
    free(d->gpus);
    free(d->nics);
    free(d->bw);
    if (d->topo)
        hwloc_topology_destroy(d->topo);
    free(d);
}

int cm_devices_ngpus(const cm_devices_t *d)
{
    return d ? d->ngpus : 0;
}

int cm_devices_nnics(const cm_devices_t *d)
{
    return d ? d->nnics : 0;
}

static const device_t *gpu(const cm_devices_t *d, int g)
{
    return d && g >= 0 && g < d->ngpus ? &d->gpus[g] : NULL;
}

static const device_t *nic(const cm_devices_t *d, int k)
{
    return d && k >= 0 && k < d->nnics ? &d->nics[k] : NULL;
}

const char *cm_devices_gpu_name(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->name : NULL;
}

const char *cm_devices_gpu_busid(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->busid : NULL;
}

int cm_devices_gpu_vendor(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->vendor : -1;
}

int cm_devices_gpu_numa(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->numa : -1;
}

int cm_devices_gpu_package(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->package : -1;
}

int cm_devices_gpu_cores(const cm_devices_t *d, int g, const int **cores)
{
    const device_t *x = gpu(d, g);
    if (cores)
        *cores = x ? x->cores : NULL;
    return x ? x->ncores : 0;
}

int cm_devices_gpu_pus(const cm_devices_t *d, int g, const int **pus)
{
    const device_t *x = gpu(d, g);
    if (pus)
        *pus = x ? x->pus : NULL;
    return x ? x->npus : 0;
}

const char *cm_devices_gpu_cpulist(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->cpulist : NULL;
}

int cm_devices_gpu_nic(const cm_devices_t *d, int g)
{
    return gpu(d, g) ? gpu(d, g)->nic : -1;
}

double cm_devices_gpu_bandwidth(const cm_devices_t *d, int a, int b)
{
    if (!gpu(d, a) || !gpu(d, b))
        return 0;
    return d->bw[a * d->ngpus + b];
}

const char *cm_devices_link_name(const cm_devices_t *d)
{
    return d ? d->link : NULL;
}

const char *cm_devices_nic_name(const cm_devices_t *d, int k)
{
    return nic(d, k) ? nic(d, k)->name : NULL;
}

const char *cm_devices_nic_fabric(const cm_devices_t *d, int k)
{
    return nic(d, k) ? nic(d, k)->fabric : NULL;
}

int cm_devices_nic_verbs(const cm_devices_t *d, int k)
{
    return nic(d, k) ? nic(d, k)->verbs : 0;
}

const char *cm_devices_nic_busid(const cm_devices_t *d, int k)
{
    return nic(d, k) ? nic(d, k)->busid : NULL;
}

int cm_devices_nic_numa(const cm_devices_t *d, int k)
{
    return nic(d, k) ? nic(d, k)->numa : -1;
}

const char *cm_devices_nic_cpulist(const cm_devices_t *d, int k)
{
    return nic(d, k) ? nic(d, k)->cpulist : NULL;
}
