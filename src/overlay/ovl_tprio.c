/*
 * ovl_tprio.c -- the tnbc overlay's trace mode and priorities (Li et al.'s
 * T-NBC, section 5; src/trace/trace.h; docs/overlays.md, "Trace and priorities").
 *
 *   CLUSTERMAP_OVERLAY_TRACE=PREFIX  record, per call site, the order in
 *                                    which the program first touches the
 *                                    sub-messages it received; each rank
 *                                    writes PREFIX.<world rank> at
 *                                    MPI_Finalize (local: no collective)
 *   CLUSTERMAP_OVERLAY_PRIO=PREFIX   read PREFIX.<world rank> at MPI_Init
 *                                    and post the sub-messages of a known
 *                                    site in that order; a site whose
 *                                    traced calls hid no more than they
 *                                    cost steps aside (runs blocking)
 *   CLUSTERMAP_OVERLAY_ASIDE=0       never step aside: every known site
 *                                    runs the overlay in the trace's order
 *
 * mpirun's ranks in a batch job get CLUSTERMAP_OVERLAY_TRACE from
 * clustermap's mpirun and the PREFIX to read from the "prio=" line of the
 * control file it gave them (CLUSTERMAP_PROFILE_CONTROL): their
 * environment is fixed before the srun of mpirun's daemons, which finds
 * the profile's trace, runs.
 *
 * The call site's key is the first return address on the stack outside
 * this library and outside Open MPI's own libraries (libmpi*: the Fortran
 * bindings), as "<module file name>+0x<offset from the module's load
 * base>": the same for every run of the same binary, whatever the
 * address-space randomisation and the path it is started by.  Everything
 * here runs on the application thread, outside the SIGSEGV handler.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_env.h"
#include "ovl.h"
#include "trace.h"

static trace_t rec;       /* this run's record (tracing) */
static trace_t prio;      /* the priorities read (PRIO) */
static char rec_path[4096];   /* "" when not tracing */
static char prio_path[4096];  /* the trace read */
static int prio_on;           /* a trace was read */
static uint64_t prio_calls;   /* calls seen since, ... */
static uint64_t prio_found;   /* ... of them in the trace's order, */
static uint64_t prio_aside;   /* ... of them stepped aside */
static int aside_off;         /* CLUSTERMAP_OVERLAY_ASIDE=0 */
static int say_rank = -1;     /* world rank */
static int agreed_on;         /* the ranks' agreement below holds */
static uint64_t agreed_ids[2 * TRACE_AGREE_SLOTS];   /* reduced: MPI_MAX */
static uint64_t agreed_sums[2 * TRACE_AGREE_SLOTS];  /* reduced: MPI_SUM */
static int site_failed;       /* a site could not be recorded: said once */

/* PREFIX.<rank> into @p out; 0, or -1 when too long. */
static int rank_file(char *out, size_t n, const char *prefix, int rank)
{
    return snprintf(out, n, "%s.%d", prefix, rank) < (int)n ? 0 : -1;
}

/* The trace mpirun's ranks read: the "prio=" line of the control file
 * clustermap's mpirun gave them (prof_control_read) into @p buf, or NULL. */
static const char *control_prio(char *buf, size_t size)
{
    char text[PROF_CONTROL_MAX];
    if (prof_control_read(text, sizeof text) < 0)
        return NULL;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > 5 && !strncmp(line, "prio=", 5) && len - 5 < size) {
            memcpy(buf, line + 5, len - 5);
            buf[len - 5] = '\0';
            return buf;
        }
        line += len + (line[len] == '\n');
    }
    return NULL;
}

void ovl_tprio_start(int world_rank)
{
    const char *tp = getenv(CM_ENV_OVERLAY_TRACE);
    const char *pp = getenv(CM_ENV_OVERLAY_PRIO);
    char path[4096], err[4400], ctl[4096];
    if (!pp || !*pp)
        pp = control_prio(ctl, sizeof ctl);
    const char *as = getenv(CM_ENV_OVERLAY_ASIDE);
    say_rank = world_rank;
    aside_off = as && strcmp(as, "0") == 0;
    if (tp && *tp && rank_file(rec_path, sizeof rec_path, tp, world_rank)) {
        rec_path[0] = '\0';
        if (world_rank == 0)
            ovl_say("tnbc: " CM_ENV_OVERLAY_TRACE ": name too long; "
                    "not tracing\n");
    }
    if (!pp || !*pp)
        return;
    if (rank_file(path, sizeof path, pp, world_rank)) {
        if (world_rank == 0)
            ovl_say("tnbc: " CM_ENV_OVERLAY_PRIO ": name too long; running "
                    "without priorities\n");
        return;
    }
    strcpy(prio_path, path);
    int rc = trace_load(&prio, path, err, sizeof err);
    if (rc == -1)   /* a bad file: every rank that has one names it */
        ovl_say("tnbc: bad trace %s; running without priorities\n", err);
    else if (rc == -2 && world_rank == 0)   /* one line, not one per rank */
        ovl_say("tnbc: cannot read the trace %s; running without "
                "priorities\n", err);
    prio_on = rc == 0;
}

void ovl_tprio_agree(void)
{
    uint64_t ids[2 * TRACE_AGREE_SLOTS + 1];
    agreed_on = 0;
    trace_agree_mine(prio_on ? &prio : NULL, ids, agreed_sums);
    ids[2 * TRACE_AGREE_SLOTS] = prio_on;   /* some rank read a trace */
    if (PMPI_Allreduce(MPI_IN_PLACE, ids, 2 * TRACE_AGREE_SLOTS + 1,
                       MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS ||
        !ids[2 * TRACE_AGREE_SLOTS])
        return;
    memcpy(agreed_ids, ids, sizeof agreed_ids);
    agreed_on = PMPI_Allreduce(MPI_IN_PLACE, agreed_sums, 2 * TRACE_AGREE_SLOTS,
                               MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) ==
                MPI_SUCCESS;
}

/* The module of @p pc: its file name (without directories) and base. */
static int module_of(void *pc, const char **name, uintptr_t *base)
{
    Dl_info di;
    if (!dladdr(pc, &di) || !di.dli_fbase)
        return -1;
    const char *f = di.dli_fname ? di.dli_fname : "";
    const char *slash = strrchr(f, '/');
    *name = slash ? slash + 1 : f;
    *base = (uintptr_t)di.dli_fbase;
    return 0;
}

/* The key of the program's call site into @p key (TRACE_KEYMAX):
 * "?" when no frame outside this library and libmpi* is found. */
static void site_key(char *key)
{
    void *pc[24];
    const char *self_name;
    uintptr_t self = 0, base;
    int n = backtrace(pc, 24);
    strcpy(key, "?");
    if (module_of((void *)ovl_tprio_site, &self_name, &self) != 0)
        return;
    for (int i = 0; i < n; i++) {
        const char *name;
        if (module_of(pc[i], &name, &base) != 0 || base == self ||
            strncmp(name, "libmpi", 6) == 0)
            continue;
        char *k = key;
        int w = snprintf(k, TRACE_KEYMAX, "%.96s+0x%lx", *name ? name : "?",
                         (unsigned long)((uintptr_t)pc[i] - base));
        /* a key is one blank-free printable token in the file */
        for (int c = 0; c < w && k[c]; c++)
            if ((unsigned char)k[c] < 0x21 || (unsigned char)k[c] > 0x7e)
                k[c] = '?';
        return;
    }
}

/* Tracing a site that steps aside: its record @p r (nothing recorded
 * this run) takes the trace read's @p p, so that the new trace says the
 * same (its order as positions of one call, its two times). */
static void carry(trace_site_t *r, const trace_site_t *p)
{
    if (r->calls)
        return;
    for (int i = 0; i < p->n - 1; i++)
        r->sum[p->order[i]] = (uint64_t)i;
    r->calls = 1;
    r->timed = p->timed;
    r->hidden_ns = p->hidden_ns;
    r->init_ns = p->init_ns;
}

const int *ovl_tprio_site(int coll, int n, int me, trace_site_t **recp,
                          int *aside)
{
    char key[TRACE_KEYMAX];
    *recp = NULL;
    *aside = 0;
    if ((!rec_path[0] && !prio_on && !agreed_on) || !trace_coll_name(coll))
        return NULL;
    site_key(key);
    if (rec_path[0]) {
        *recp = trace_add(&rec, key, coll, n, me);
        if (!*recp && !site_failed && say_rank == 0) {
            site_failed = 1;
            ovl_say("tnbc: out of memory for the trace; some calls not "
                    "traced\n");
        }
    }
    /* another site, size or rank than the trace's: rank order */
    trace_site_t *p = prio_on ? trace_find(&prio, key, coll, n, me) : NULL;
    prio_calls += prio_on;
    /* the ranks' agreement decides the sites it knows; its own trace the
     * others (a slot two sites share) */
    int verdict = agreed_on ? trace_agreed(agreed_ids, agreed_sums, key,
                                               coll, n)
                            : -1;
    if (verdict < 0)
        verdict = p && trace_aside(p);
    if (verdict && !aside_off) {
        prio_aside += prio_on;
        *aside = 1;
        if (*recp && p)
            carry(*recp, p);
        *recp = NULL;
        return NULL;
    }
    prio_found += p != NULL;
    return p ? p->order : NULL;
}

void ovl_tprio_finish(void)
{
    char err[4400];
    ovl_config_t cfg;
    ovl_config_parse(NULL, getenv(CM_ENV_OVERLAY_VERBOSE), &cfg);
    /* rank 0's one line about the trace read: when asked to speak, or
     * when some call found no site in it (another binary, other sizes);
     * each rank's own figures */
    if (prio_on && say_rank == 0 && (cfg.verbose || prio_found + prio_aside < prio_calls)) {
        char more[96] = "";
        if (prio_aside)
            snprintf(more, sizeof more, ", %llu stepped aside (their site hid "
                     "no more than it cost)", (unsigned long long)prio_aside);
        ovl_say("tnbc: priorities from %s: %llu of %llu calls in the "
                "trace's order%s\n", prio_path,
                (unsigned long long)prio_found,
                (unsigned long long)prio_calls, more);
    }
    if (rec_path[0] && trace_write(&rec, rec_path, err, sizeof err) != 0)
        ovl_say("tnbc: cannot write the trace %s\n", err);
    rec_path[0] = '\0';
    prio_on = agreed_on = 0;
    prio_calls = prio_found = prio_aside = 0;
    trace_free(&rec);
    trace_free(&prio);
}
