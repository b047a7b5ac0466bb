/*
 * ovl_agree.c -- every rank runs the overlays, or none does (ovl.h).
 *
 * An overlay replaces a collective by messages of its own: a rank that
 * runs the MPI library's collective beside ranks that run the overlay
 * would never match them, and the job would hang.  A rank can lack the
 * overlay without knowing it -- its node could not preload the library
 * (prof_lib missing there, the plugin's set-up failed) -- and such a rank
 * runs no code of ours, so the ranks that have the library cannot ask it
 * anything: a collective of ours would hang too.
 *
 * So the ranks that have the library say so where the MPI library's own
 * start-up carries it.  libclustermap-prof.so interposes PMIx_Init (the
 * only PMIx symbol it exports): when the MPI library has initialised its
 * PMIx client, during MPI_Init and before MPI_Init's fence, a rank that
 * asks for overlays puts them ("css", "tnbc", "css,tnbc") under the key
 * "clustermap.overlay" (PMIX_GLOBAL) and commits it; the fence (Open MPI
 * collects all data by default) brings every rank's keys to every rank.
 * After PMPI_Init each rank reads every peer's key from what it already
 * holds (PMIX_OPTIONAL: no request to the server, never a wait).  A peer
 * without the key, or with another value, turns the overlays off on every
 * rank that has them -- all read the same fence data, so all decide
 * alike -- and the lowest rank that published says so in one line.  A
 * rank without the library runs the MPI library's collectives, as
 * everyone now does.
 *
 * Why interpose rather than initialise PMIx ourselves before PMPI_Init
 * (measured): Open MPI 5 and 6 skip their own PMIx_Init when PMIx is
 * initialised already and then fail MPI_Init ("local rank: Not found");
 * finalizing ours before PMPI_Init lets them start, but Open MPI 4.1
 * cannot initialise PMIx again, and under Slurm 24.11's PMIx server the
 * key of a rank alone on its node was then missing on the others.  The
 * interposed call reaches the real one by RTLD_NEXT, or in the
 * libpmix.so.2 already loaded (Open MPI 4.1 loads it from its
 * mca_pmix_ext3x component, outside the global scope).  The few PMIx
 * types used are declared here (Debian forky has no libpmix-dev); where
 * <pmix_common.h> is found the build checks them against it.
 *
 * When the MPI library starts no PMIx client (a singleton, srun
 * --mpi=pmi2, another launcher) nothing can be checked: overlays the
 * plugin switched on (CLUSTERMAP_OVERLAY_FROM=plugin) are refused, the
 * same way on every rank; set by hand, they run as asked (the user
 * preloaded the library everywhere).  A job of one rank has nobody to
 * disagree with.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_env.h"
#include "ovl.h"

/* ---- the PMIx ABI used (PMIx Standard; same in PMIx 4.2, 5.0, 7.0) ---- */

typedef struct {
    char nspace[256];          /* PMIX_MAX_NSLEN + 1 */
    uint32_t rank;
} cm_pmix_proc_t;

typedef struct {
    uint16_t type;
    union {
        bool flag;
        int integer;
        char *string;
        uint64_t size[3];      /* the union's size in pmix_value_t */
    } data;
} cm_pmix_value_t;

typedef struct {
    char key[512];             /* PMIX_MAX_KEYLEN + 1 */
    uint32_t flags;
    cm_pmix_value_t value;
} cm_pmix_info_t;

#define CM_PMIX_SUCCESS 0
#define CM_PMIX_BOOL    1
#define CM_PMIX_STRING  3
#define CM_PMIX_GLOBAL  3
#define CM_PMIX_INT     6
#define CM_PMIX_OPTIONAL "pmix.optional"
#define CM_PMIX_TIMEOUT  "pmix.timeout"

#if defined(__has_include)
#if __has_include(<pmix_common.h>)
#include <stddef.h>
#include <pmix_common.h>
_Static_assert(sizeof(cm_pmix_proc_t) == sizeof(pmix_proc_t) &&
               offsetof(cm_pmix_proc_t, rank) == offsetof(pmix_proc_t, rank),
               "pmix_proc_t");
_Static_assert(sizeof(cm_pmix_value_t) == sizeof(pmix_value_t) &&
               offsetof(cm_pmix_value_t, data) == offsetof(pmix_value_t, data),
               "pmix_value_t");
_Static_assert(sizeof(cm_pmix_info_t) == sizeof(pmix_info_t) &&
               offsetof(cm_pmix_info_t, value) == offsetof(pmix_info_t, value),
               "pmix_info_t");
_Static_assert(CM_PMIX_BOOL == PMIX_BOOL && CM_PMIX_STRING == PMIX_STRING &&
               CM_PMIX_INT == PMIX_INT && CM_PMIX_GLOBAL == PMIX_GLOBAL,
               "PMIx constants");
#endif
#endif

/* The key every rank with the library puts, and its value's longest. */
#define KEY "clustermap.overlay"
#define SPEC_MAX 32
/* Seconds a peer's key may take from this node's PMIx server. */
#define SERVER_TIMEOUT 5

static struct {
    unsigned want;             /* the overlays CLUSTERMAP_OVERLAY asks for */
    int published;             /* our key is committed */
    cm_pmix_proc_t me;
    char spec[SPEC_MAX];
    int (*init)(cm_pmix_proc_t *, cm_pmix_info_t *, size_t);
    int (*put)(int, const char *, cm_pmix_value_t *);
    int (*commit)(void);
    int (*get)(const cm_pmix_proc_t *, const char *, const cm_pmix_info_t *,
               size_t, cm_pmix_value_t **);
    void (*value_free)(cm_pmix_value_t *, size_t);
} ag;

/* "css", "tnbc", "css,tnbc": the value compared between ranks. */
static void spec_of(unsigned on, char *out, size_t n)
{
    cm_overlay_spec_print(on, out, n);
}

void ovl_agree_want(void)
{
    ovl_config_t cfg;
    ovl_config_parse(getenv(CM_ENV_OVERLAY), NULL, &cfg);
    ag.want = cfg.on;
    spec_of(cfg.on, ag.spec, sizeof ag.spec);
}

/* dl_iterate_phdr callback: the path of the first loaded object whose
 * file name starts with "libpmix.so" (any soname version). */
static int pmix_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (!base || strncmp(base, "libpmix.so", 10))
        return 0;
    snprintf(data, 4096, "%s", info->dlpi_name);
    return 1;
}

/* The PMIx functions used, from the libpmix the MPI library loaded (Open
 * MPI 4.1: inside a component, so not in the global scope RTLD_NEXT
 * searches).  Found by RTLD_NEXT, else among the loaded objects whatever
 * its soname version: every profiled run's MPI_Init comes through the
 * interposed PMIx_Init, so not finding the real one would break jobs
 * that asked for no overlay at all.  0, or -1. */
static int find_pmix(void)
{
    void *h = NULL;
    char path[4096] = "";
    if (ag.init)
        return 0;
    *(void **)&ag.init = dlsym(RTLD_NEXT, "PMIx_Init");
    if (!ag.init && dl_iterate_phdr(pmix_object, path) &&
        (h = dlopen(path, RTLD_NOW | RTLD_NOLOAD)))
        *(void **)&ag.init = dlsym(h, "PMIx_Init");
#define SYM(f, name) *(void **)&ag.f = h ? dlsym(h, name) : dlsym(RTLD_NEXT, name)
    SYM(put, "PMIx_Put");
    SYM(commit, "PMIx_Commit");
    SYM(get, "PMIx_Get");
    SYM(value_free, "PMIx_Value_free");   /* PMIx 4 and later; else leaked */
#undef SYM
    return ag.init && ag.put && ag.commit && ag.get ? 0 : -1;
}

/* PMIx_Init, interposed (exported: src/profiler/libclustermap-prof.map): the MPI
 * library's own, during MPI_Init and before its fence.  Once it succeeds,
 * a rank that asks for overlays puts them under its key and commits it,
 * so that the fence carries it.  Nothing else changes: the MPI library
 * gets the real function's result. */
int PMIx_Init(cm_pmix_proc_t *proc, cm_pmix_info_t *info, size_t ninfo)
{
    if (find_pmix() < 0 && !ag.init)
        return -1;   /* PMIX_ERROR: no PMIx behind us (cannot happen) */
    int rc = ag.init(proc, info, ninfo);
    if (rc != CM_PMIX_SUCCESS || !ag.want || ag.published || !ag.put)
        return rc;
    cm_pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = CM_PMIX_STRING;
    v.data.string = ag.spec;
    if (proc)
        ag.me = *proc;
    else
        return rc;   /* our own name unknown: nothing published */
    ag.published = ag.put(CM_PMIX_GLOBAL, KEY, &v) == CM_PMIX_SUCCESS &&
                   ag.commit() == CM_PMIX_SUCCESS;
    return rc;
}

/* One PMIx_Get of rank @p p's key: PMIX_OPTIONAL (what this process
 * holds, no request) when @p local, else from this node's PMIx server,
 * bounded by PMIX_TIMEOUT. */
static int get_key(const cm_pmix_proc_t *p, int local, cm_pmix_value_t **val)
{
    cm_pmix_info_t info;
    memset(&info, 0, sizeof info);
    if (local) {
        snprintf(info.key, sizeof info.key, "%s", CM_PMIX_OPTIONAL);
        info.value.type = CM_PMIX_BOOL;
        info.value.data.flag = true;
    } else {
        snprintf(info.key, sizeof info.key, "%s", CM_PMIX_TIMEOUT);
        info.value.type = CM_PMIX_INT;
        info.value.data.integer = SERVER_TIMEOUT;
    }
    *val = NULL;
    return ag.get(p, KEY, &info, 1, val) == CM_PMIX_SUCCESS && *val ? 0 : -1;
}

/* Whether rank @p r of our namespace published our spec: 1 the same, 0
 * none, -1 another value (copied to @p other).
 *
 * Where the fence's data lands differs (measured): with Slurm 22.05's
 * PMIx server and Open MPI 4.1, and under PRRTE (Open MPI 6's mpirun),
 * every rank's keys are in the process after MPI_Init, and the
 * PMIX_OPTIONAL get finds them; with Slurm 24.11's and Open MPI 5.0.7
 * (PMIx 5) the keys of ranks on other nodes stay with this node's PMIx
 * server, which the fence gave them: it answers in 0.1 to 10 ms, a key
 * that was never put included (PMIX_ERR_NOT_FOUND in 26 ms), as the
 * ranks have all committed before the fence ended.  The timeout only
 * bounds a server that would not answer. */
static int peer_has(int r, char *other, size_t n)
{
    cm_pmix_proc_t p;
    cm_pmix_value_t *val;
    memset(&p, 0, sizeof p);
    memcpy(p.nspace, ag.me.nspace, sizeof p.nspace);
    p.rank = (uint32_t)r;
    if (get_key(&p, 1, &val) < 0 && get_key(&p, 0, &val) < 0)
        return 0;
    int res = val->type == CM_PMIX_STRING && val->data.string &&
              !strcmp(val->data.string, ag.spec) ? 1 : -1;
    if (res < 0)
        snprintf(other, n, "%.*s", SPEC_MAX,
                 val->type == CM_PMIX_STRING && val->data.string
                 ? val->data.string : "?");
    if (ag.value_free)
        ag.value_free(val, 1);
    return res;
}

/* The verdict of a rank that published: @p want, or 0 with one line from
 * the lowest rank that published.  Ranks are read in order; once one is
 * odd, the verdict is known, and only the ranks below this one still
 * matter (for who speaks). */
static unsigned check_peers(unsigned want, int rank, int size)
{
    int lowest = rank, odd = -1, odd_has = 0;
    char other[SPEC_MAX + 1] = "", later[SPEC_MAX + 1];
    for (int r = 0; r < size && !(odd >= 0 && r > rank); r++) {
        if (r == rank)
            continue;
        /* the first odd rank's value is the one named */
        int has = peer_has(r, odd < 0 ? other : later, sizeof other);
        if (has && r < lowest)
            lowest = r;
        if (has != 1 && odd < 0) {
            odd = r;
            odd_has = has;
        }
    }
    if (odd < 0)
        return want;
    if (rank == lowest) {
        if (odd_has)
            ovl_say("%s not on every rank (rank %d asks for %s); running "
                    "without it\n", ag.spec, odd, other);
        else
            ovl_say("%s not on every rank (rank %d has no overlay library); "
                    "running without it\n", ag.spec, odd);
    }
    return 0;
}

unsigned ovl_agree(unsigned want, int rank, int size)
{
    if (!want || size <= 1)
        return want;   /* nothing to agree on, nobody to agree with */
    if (ag.published)
        return check_peers(want, rank, size);
    const char *from = getenv(CM_ENV_OVERLAY_FROM);
    if (!from || strcmp(from, "plugin"))
        return want;   /* set by hand: as asked */
    /* the MPI library started no PMIx client: the same on every rank that
     * got here, and a rank that did publish sees this one's key missing */
    if (rank == 0)
        ovl_say("%s: cannot check that every rank runs it (the MPI library "
                "uses no PMIx here); running without it\n", ag.spec);
    return 0;
}
