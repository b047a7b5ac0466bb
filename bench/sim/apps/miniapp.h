/*
 * miniapp.h -- what the MPI mini-applications of the SMPI judge share:
 * option parsing, the host line, charged computation, a seeded PRNG,
 * message stamps and the closing "<app>: ok <checksum>" line.
 *
 * Header-only, so that every app builds with one command and no helper
 * object:  smpicc -O2 -I bench/sim/apps APP.c -o APP   (SimGrid SMPI)
 *          mpicc  -O2 -I bench/sim/apps APP.c -o APP   (a real MPI)
 *
 * Determinism is the point of these apps: the peers, sizes, tags and order
 * of every message depend on the options and the number of ranks only,
 * never on where ranks run or on timing.  A time-independent trace recorded
 * under one hostfile therefore replays correctly under any other.
 *
 * Checking: the first min(bytes, 8) bytes of every message carry a stamp
 * (a hash of seed, iteration, sender, receiver and tag) that the receiver
 * recomputes.  The sum of the received stamps is the checksum; it is the
 * same under SMPI and a real MPI, whatever the placement.  Only the stamp is
 * written per message, so the simulator does not spend its time filling
 * buffers.
 */
#ifndef MINIAPP_H
#define MINIAPP_H

#include <mpi.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * SMPI's <mpi.h> includes <smpi/smpi.h>, which defines SMPI_H.  smpicc puts
 * no -D on the command line (it force-includes smpi/smpi_helpers.h, which
 * defines SMPI_HELPERS_H), so SMPI_H is the test that also holds when a
 * build system calls the compiler with SMPI's include path by hand.
 */
#ifdef SMPI_H
#define MA_SMPI 1
#else
#define MA_SMPI 0
#endif

/* One app-specific option that takes an integer: --NAME VALUE. */
struct ma_opt {
    const char *name;           /* without the leading "--" */
    long *value;                /* holds the default on entry */
    long min;                   /* smallest accepted value */
    const char *help;
};

/* Options and identity of a run.  The app sets the defaults, then calls
 * ma_parse(), which overwrites what the command line gives. */
struct ma_args {
    const char *app;            /* name in messages and the "ok" line */
    const char *summary;        /* one line for --help */
    long iters;
    long bytes;                 /* message or face size */
    double compute;             /* flops charged per iteration per rank */
    uint64_t seed;
    int ndims;                  /* > 0: the app accepts --dims AxB[xC] */
    int dims[3];                /* 0 entries are filled by MPI_Dims_create */
    const struct ma_opt *extra; /* app-specific integer options */
    int nextra;
    int print_hosts;
    int rank, size;
};

/* Received stamps: their sum and how many differed from the expected. */
struct ma_sum {
    uint64_t sum;
    long bad;
};

/* ---- seeded pseudo-random numbers (splitmix64, self-contained so that
 *      every MPI and libc gives the same sequence) ---- */

static inline uint64_t ma_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t ma_next(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return ma_mix64(*state);
}

/* Uniform in [0, n), n > 0.  The modulo bias (n / 2^64) is irrelevant here
 * and keeps the draw to one call, so sequences stay easy to reason about. */
static inline uint64_t ma_below(uint64_t *state, uint64_t n)
{
    return ma_next(state) % n;
}

/* Uniform in [0, 1). */
static inline double ma_unit(uint64_t *state)
{
    return (double)(ma_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* perm[i] for i < n: a permutation of 0..n-1 drawn from @p seed
 * (Fisher-Yates).  The same seed gives the same permutation everywhere. */
static inline void ma_permutation(int n, uint64_t seed, int *perm)
{
    uint64_t st = ma_mix64(seed ^ UINT64_C(0x5ca1ab1e));
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)ma_below(&st, (uint64_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* ---- message stamps ---- */

static inline uint64_t ma_stamp(uint64_t seed, long iter, int from, int to,
                                int tag)
{
    uint64_t h = ma_mix64(seed + UINT64_C(0x243f6a8885a308d3));
    h = ma_mix64(h ^ (uint64_t)iter);
    h = ma_mix64(h ^ (uint64_t)(unsigned)from);
    h = ma_mix64(h ^ (uint64_t)(unsigned)to);
    return ma_mix64(h ^ (uint64_t)(unsigned)tag);
}

/* Writes the first min(bytes, 8) bytes of @p s into a message. */
static inline void ma_put(void *buf, long bytes, uint64_t s)
{
    memcpy(buf, &s, bytes < 8 ? (size_t)bytes : 8);
}

/* Adds the stamp found in a received message to @p acc and counts it as
 * bad if it differs from @p expected (compared on its first min(bytes, 8)
 * bytes, as sent). */
static inline void ma_check(struct ma_sum *acc, const void *buf, long bytes,
                            uint64_t expected)
{
    uint64_t got = 0, want = 0;
    size_t n = bytes < 8 ? (size_t)bytes : 8;
    memcpy(&got, buf, n);
    memcpy(&want, &expected, n);
    acc->sum += got;
    acc->bad += got != want;
}

/* A buffer of @p bytes (at least 8, so that zero-byte runs need no special
 * case), zeroed once so that nothing uninitialised is ever sent.  Exits
 * the run on failure. */
static inline void *ma_alloc(const struct ma_args *a, size_t bytes)
{
    void *p = calloc(bytes < 8 ? 8 : bytes, 1);
    if (!p) {
        fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", a->app,
                a->rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* ---- computation ---- */

#if !MA_SMPI
/* Where the real loop leaves its result, so that the compiler keeps it. */
static volatile double ma_sink;
#endif

/*
 * About @p flops floating-point operations.  Under SMPI they are charged to
 * the simulated host with smpi_execute_flops(): deterministic, recorded as
 * "compute" in a time-independent trace, and charged even with
 * --cfg=smpi/simulate-computation:no (which drops only the measured CPU
 * bursts between MPI calls).  Under a real MPI a real loop runs: four
 * independent multiply-add chains (2 flops a step each), so that its speed
 * does not hinge on one chain's latency.
 */
static inline void ma_compute(double flops)
{
    if (!(flops > 0))
        return;
#if MA_SMPI
    smpi_execute_flops(flops);
#else
    long steps = (long)(flops / 8.0);
    double x0 = 1.0, x1 = 1.5, x2 = 2.0, x3 = 2.5;
    const double m = 0.999999, c = 1e-7;
    for (long i = 0; i < steps; i++) {
        x0 = x0 * m + c;
        x1 = x1 * m + c;
        x2 = x2 * m + c;
        x3 = x3 * m + c;
    }
    ma_sink = x0 + x1 + x2 + x3;
#endif
}

/* ---- option parsing ---- */

static inline void ma_usage(const struct ma_args *a)
{
    printf("usage: %s [options]\n%s\n"
           "  --iters N       iterations (default %ld)\n"
           "  --bytes B       message size in bytes, K/M/G suffixes are"
           " binary (default %ld)\n"
           "  --compute F     flops per iteration per rank (default %g)\n"
           "  --seed S        seed of stamps and random choices (default %"
           PRIu64 ")\n",
           a->app, a->summary, a->iters, a->bytes, a->compute, a->seed);
    if (a->ndims > 0)
        printf("  --dims %-8s process grid; 0 = MPI_Dims_create's choice"
               " (default all 0)\n", a->ndims == 2 ? "AxB" : "AxBxC");
    for (int i = 0; i < a->nextra; i++)
        printf("  --%-10s N  %s (default %ld)\n", a->extra[i].name,
               a->extra[i].help, *a->extra[i].value);
    printf("  --print-hosts   every rank prints \"rank R host NAME\"\n"
           "  -h, --help      this text (under smpirun, --help is SimGrid's:"
           " use -h)\n");
}

/* Ends a run that must not start: rank 0 explains, every rank finalizes
 * (all ranks parse the same arguments, so all come here together). */
static inline void ma_quit(const struct ma_args *a, int code, const char *what,
                           const char *arg)
{
    if (a->rank == 0) {
        if (code == 0)
            ma_usage(a);
        else
            fprintf(stderr, "%s: %s '%s' (try -h)\n", a->app, what, arg);
        fflush(stdout);
    }
    MPI_Finalize();
    exit(code);
}

/* @p s as a decimal integer in [min, INT32_MAX] (MPI counts are ints);
 * with @p binary, a K, M or G suffix multiplies by 2^10, 2^20 or 2^30. */
static inline int ma_parse_long(const char *s, long min, int binary, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno)
        return -1;
    if (binary && *end) {
        int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' ? 20
                    : *end == 'G' ? 30 : -1;
        if (shift < 0 || v < 0 || v > (long)(INT32_MAX >> shift))
            return -1;
        v <<= shift;
        end++;
    }
    if (*end || v < min || v > INT32_MAX)
        return -1;
    *out = v;
    return 0;
}

static inline int ma_parse_dims(const char *s, int n, int *dims)
{
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 0 || v > 1 << 20)
            return -1;
        dims[i] = (int)v;
        if (i < n - 1 && *end != 'x')
            return -1;
        s = end + (i < n - 1);
        if (i == n - 1 && *end)
            return -1;
    }
    return 0;
}

/*
 * Reads the options (after MPI_Init), fills a->rank and a->size, completes
 * a->dims, and prints the host line if asked.  -h or --help ends the run with
 * exit code 0 and a bad option or value with exit code 2, both after
 * MPI_Finalize.  Accepts "--name value" and "--name=value".
 */
static inline void ma_parse(int argc, char **argv, struct ma_args *a)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &a->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &a->size);
    const char *dims_arg = "(default)";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        char name[64];
        /* smpirun hands --help to SimGrid before the app sees it. */
        if (!strcmp(arg, "-h"))
            ma_quit(a, 0, "", "");
        if (strncmp(arg, "--", 2) != 0)
            ma_quit(a, 2, "unexpected argument", arg);
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name)
            ma_quit(a, 2, "unknown option", arg);
        memcpy(name, arg + 2, len);
        name[len] = '\0';
        if (!strcmp(name, "help"))
            ma_quit(a, 0, "", "");
        if (!strcmp(name, "print-hosts")) {
            if (eq)
                ma_quit(a, 2, "option takes no value", arg);
            a->print_hosts = 1;
            continue;
        }
        /* Every other option takes a value; name it before reading it. */
        int known = !strcmp(name, "iters") || !strcmp(name, "bytes")
                    || !strcmp(name, "compute") || !strcmp(name, "seed")
                    || (a->ndims > 0 && !strcmp(name, "dims"));
        const struct ma_opt *x = NULL;
        for (int k = 0; k < a->nextra && !known; k++)
            if (!strcmp(name, a->extra[k].name))
                x = &a->extra[k];
        if (!known && !x)
            ma_quit(a, 2, "unknown option", arg);
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            ma_quit(a, 2, "missing value for", arg);

        int bad = 0;
        if (x) {
            bad = ma_parse_long(val, x->min, 0, x->value);
        } else if (!strcmp(name, "iters")) {
            bad = ma_parse_long(val, 0, 0, &a->iters);
        } else if (!strcmp(name, "bytes")) {
            bad = ma_parse_long(val, 0, 1, &a->bytes);
        } else if (!strcmp(name, "compute")) {
            char *end;
            errno = 0;
            a->compute = strtod(val, &end);
            bad = end == val || *end || errno || !(a->compute >= 0)
                  || a->compute > 1e15;
        } else if (!strcmp(name, "seed")) {
            char *end;
            errno = 0;
            a->seed = strtoull(val, &end, 0);
            bad = end == val || *end || errno || *val == '-';
        } else {
            bad = ma_parse_dims(val, a->ndims, a->dims);
            dims_arg = val;
        }
        if (bad)
            ma_quit(a, 2, "bad value for", arg);
    }
    if (a->ndims > 0) {
        int prod = 1;
        for (int d = 0; d < a->ndims; d++)
            prod *= a->dims[d] > 0 ? a->dims[d] : 1;
        /* Checked first: MPI_Dims_create fails hard on a bad product. */
        if (a->size % prod != 0
            || MPI_Dims_create(a->size, a->ndims, a->dims) != MPI_SUCCESS)
            ma_quit(a, 2, "grid does not fit the number of ranks: --dims",
                    dims_arg);
        prod = 1;
        for (int d = 0; d < a->ndims; d++)
            prod *= a->dims[d];
        if (prod != a->size)
            ma_quit(a, 2, "grid does not fit the number of ranks: --dims",
                    dims_arg);
    }
    if (a->print_hosts) {
        char host[MPI_MAX_PROCESSOR_NAME + 1];
        int len = 0;
        MPI_Get_processor_name(host, &len);
        host[len] = '\0';
        printf("rank %d host %s\n", a->rank, host);
        fflush(stdout);
    }
}

/* ---- the end of a run ---- */

/*
 * Sums the stamps of all ranks on rank 0, which prints "<app>: ok
 * <checksum>" (or how many messages were wrong), then finalizes.  Returns
 * main's exit code: 1 on rank 0 if a message carried a wrong stamp, else 0
 * (one failing rank is enough for mpirun and smpirun to fail).
 */
static inline int ma_finish(const struct ma_args *a, const struct ma_sum *s)
{
    uint64_t sum = 0;
    long bad = 0;
    MPI_Reduce(&s->sum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&s->bad, &bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (a->rank == 0) {
        if (bad)
            printf("%s: FAILED %ld messages with a wrong stamp\n", a->app,
                   bad);
        else
            printf("%s: ok %016" PRIx64 "\n", a->app, sum);
        fflush(stdout);
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}

/* ---- grids ---- */

/* Coordinates of grid cell @p id in MPI's row-major order (the last
 * dimension varies fastest, as MPI_Cart_create numbers ranks). */
static inline void ma_coords(int id, int ndims, const int *dims, int *c)
{
    for (int d = ndims - 1; d >= 0; d--) {
        c[d] = id % dims[d];
        id /= dims[d];
    }
}

/* The cell at @p c, or -1 if it lies outside the (non-periodic) grid. */
static inline int ma_cell(int ndims, const int *dims, const int *c)
{
    int id = 0;
    for (int d = 0; d < ndims; d++) {
        if (c[d] < 0 || c[d] >= dims[d])
            return -1;
        id = id * dims[d] + c[d];
    }
    return id;
}

#endif /* MINIAPP_H */
