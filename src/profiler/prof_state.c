/*
 * prof_state.c -- what libclustermap-prof.so records and where it keeps it.
 *
 * Per process: two rows (point-to-point, collective-derived) of
 * (bytes, messages) per destination world rank, the translation of each
 * communicator's ranks to world ranks (cached as a communicator attribute),
 * the table of persistent send requests, and the run's timing (prof.h,
 * "time").
 *
 * Row storage.  A row is a dense array indexed by world rank when the job has
 * at most PROF_DENSE_MAX ranks (16 bytes per rank and row kind, plus 4 for
 * the identity map of MPI_COMM_WORLD: 144 KiB at 4096 ranks), and an
 * open-addressing hash keyed by world rank above, so that memory follows the
 * number of ranks actually talked to.  Both are O(1) per recorded call
 * (amortised for the hash, which doubles at half load).
 * CLUSTERMAP_PROF_DENSE_MAX overrides the threshold (tests use 0 to exercise
 * the hash on small jobs).
 *
 * The state the inlined send path reads (prof_hot, prof.h) is kept in step
 * here: the dense rows, the type cache (filled by prof_bytes_slow), the hot
 * datatype (prof_hot_type) and the hot communicator (set by prof_comm_get,
 * dropped when that communicator is freed, and never set under
 * MPI_THREAD_MULTIPLE or with hashed rows).
 *
 * Time-only mode (CLUSTERMAP_PROFILE_TRAFFIC=0): none of the above is set
 * up and prof_active stays 0, so no wrapper records anything (the hot
 * communicator stays unset, which is what keeps the inlined send path
 * away); only the timing runs, and prof_finish writes a part without rows.
 *
 * CLUSTERMAP_PROFILE_CONTROL names a file that decides instead of
 * CLUSTERMAP_PROFILE_TRAFFIC: its first line "traffic", "time", anything
 * else (or no file) not profiling at all; later lines are for the
 * overlays (prof_control_read).  clustermap's mpirun starts every rank with
 * the library and such a file; the srun of mpirun's daemons, which runs
 * before any rank starts, writes in it what it decided for the run.
 */
#include "cm_env.h"
#include "prof.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROF_DENSE_MAX 4096

PROF_HIDDEN volatile int prof_active;
PROF_HIDDEN volatile int prof_timing;
PROF_HIDDEN uint64_t prof_mpi_ns;
PROF_HIDDEN int prof_mpi_seen;
PROF_HIDDEN prof_hot_t prof_hot;
PROF_HIDDEN int prof_multi;
PROF_HIDDEN pthread_mutex_t prof_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Filled by prof_start(); prof_finish() writes them.  Nothing here needs
 * another rank: no communicator of our own, no collective. */
static int joined;            /* prof_start() set up profiling */
static int traffic;           /* ... and records traffic (not time only) */
static uint64_t t_start;      /* prof_now() at the return of MPI_Init */
static int world_size, world_rank;
static int *identity;         /* dense rows: [world_size] i -> i */
static MPI_Group world_group = MPI_GROUP_NULL;
static int keyval = MPI_KEYVAL_INVALID;
static char *profile_dir;

/* ---------------------------------------------------------------- rows -- */

typedef struct row {
    int dense;        /* bytes/msgs indexed by world rank */
    size_t cap;       /* hash: slots (power of two); dense: world_size */
    size_t used;      /* hash: occupied slots */
    int *keys;        /* hash: world rank or -1 */
    prof_cell_t *cells;
} row_t;

static row_t rows[PROF_NKINDS];

static int row_init(row_t *r, int dense)
{
    memset(r, 0, sizeof *r);
    r->dense = dense;
    r->cap = dense ? (size_t)world_size : 16;
    r->cells = calloc(r->cap, sizeof *r->cells);
    if (!dense) {
        r->keys = malloc(r->cap * sizeof *r->keys);
        if (r->keys)
            memset(r->keys, 0xff, r->cap * sizeof *r->keys);
    }
    return (r->cells && (dense || r->keys)) ? 0 : -1;
}

static void row_free(row_t *r)
{
    free(r->keys);
    free(r->cells);
    memset(r, 0, sizeof *r);
}

static size_t hash_int(int k, size_t cap)
{
    return ((uint32_t)k * 2654435761u) & (cap - 1);
}

/* Slot of key @p k in a hash row (inserted if absent), or -1 when the table
 * cannot grow (the traffic is then lost, reported once). */
static long row_slot(row_t *r, int k)
{
    size_t i = hash_int(k, r->cap);
    while (r->keys[i] != -1 && r->keys[i] != k)
        i = (i + 1) & (r->cap - 1);
    if (r->keys[i] == k)
        return (long)i;
    if (2 * (r->used + 1) > r->cap) {
        row_t g = { 0, r->cap * 2, 0, NULL, NULL };
        g.keys = malloc(g.cap * sizeof *g.keys);
        g.cells = calloc(g.cap, sizeof *g.cells);
        if (!g.keys || !g.cells) {
            static int told;
            if (!told++)
                prof_say("out of memory, traffic "
                        "to some ranks is not recorded\n");
            row_free(&g);
            return -1;
        }
        memset(g.keys, 0xff, g.cap * sizeof *g.keys);
        for (size_t j = 0; j < r->cap; j++) {
            if (r->keys[j] == -1)
                continue;
            size_t m = hash_int(r->keys[j], g.cap);
            while (g.keys[m] != -1)
                m = (m + 1) & (g.cap - 1);
            g.keys[m] = r->keys[j];
            g.cells[m] = r->cells[j];
        }
        g.used = r->used;
        row_free(r);
        *r = g;
        return row_slot(r, k);
    }
    r->keys[i] = k;
    r->used++;
    return (long)i;
}

/* Dense rows are handled inline by prof_add (prof.h): what reaches here is
 * a hashed row or a rank outside the job. */
void prof_add_slow(int kind, int wdst, uint64_t bytes, uint64_t msgs)
{
    row_t *r = &rows[kind];
    if (wdst < 0 || wdst >= world_size || !r->cells || r->dense)
        return;
    long s = row_slot(r, wdst);
    if (s >= 0) {
        r->cells[s].bytes += bytes;
        r->cells[s].msgs += msgs;
    }
}

static void tcache_clear(void)
{
    for (size_t i = 0; i < PROF_TCACHE_SIZE; i++) {
        prof_hot.types[i] = MPI_DATATYPE_NULL;
        prof_hot.sizes[i] = 0;
    }
}

uint64_t prof_bytes_slow(int count, MPI_Datatype type)
{
    MPI_Count sz = 0;
    int ni, na, nd, combiner;
    if (count <= 0 || type == MPI_DATATYPE_NULL ||
        PROF_TYPE_SIZE(type, &sz) != MPI_SUCCESS || sz < 0)
        return 0;
    /* Only named types are cached: a freed derived type's handle can come
     * back as a different type, a named one is never freed. */
    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) ==
        MPI_SUCCESS && combiner == MPI_COMBINER_NAMED) {
        size_t i = prof_tslot(type);
        prof_hot.types[i] = type;
        prof_hot.sizes[i] = (uint64_t)sz;
    }
    return (uint64_t)count * (uint64_t)sz;
}

void prof_hot_type(MPI_Datatype type)
{
    size_t i = prof_tslot(type);
    if (prof_hot.types[i] == type && !prof_multi) {
        prof_hot.type = type;
        prof_hot.size = prof_hot.sizes[i];
    }
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* All non-empty entries of both rows as (kind, dst, bytes, msgs) quadruples,
 * kind then dst ascending.  *n = number of quadruples; NULL on no memory. */
static uint64_t *collect(size_t *n)
{
    size_t total = 0;
    for (int k = 0; k < PROF_NKINDS; k++)
        for (size_t i = 0; i < rows[k].cap && rows[k].cells; i++)
            total += (rows[k].cells[i].bytes || rows[k].cells[i].msgs) &&
                     (rows[k].dense || rows[k].keys[i] != -1);
    /* A rank's sends to itself are left out here, not on the send path:
     * they cost the same wherever the rank runs, so a placement cannot
     * change them (the engine would only add a constant to every cost),
     * and the hot path stays one add. */
    uint64_t *q = malloc((total ? total : 1) * 4 * sizeof *q);
    if (!q)
        return NULL;
    size_t e = 0;
    for (int k = 0; k < PROF_NKINDS; k++) {
        size_t first = e;
        row_t *r = &rows[k];
        for (size_t i = 0; i < r->cap && r->cells; i++) {
            if (!r->dense && r->keys[i] == -1)
                continue;
            if (!r->cells[i].bytes && !r->cells[i].msgs)
                continue;
            int dst = r->dense ? (int)i : r->keys[i];
            if (dst == world_rank)
                continue;
            q[4 * e] = (uint64_t)k;
            q[4 * e + 1] = (uint64_t)dst;
            q[4 * e + 2] = r->cells[i].bytes;
            q[4 * e + 3] = r->cells[i].msgs;
            e++;
        }
        if (!r->dense)
            qsort(q + 4 * first, e - first, 4 * sizeof *q, cmp_u64);
    }
    *n = e;
    return q;
}

/* ------------------------------------------------------ communicators -- */

typedef struct comm_map {
    prof_comm_t c;
    int inside;        /* every destination is in MPI_COMM_WORLD */
    int world[];
} comm_map_t;

static MPI_Comm last_comm = MPI_COMM_NULL;
static comm_map_t *last_map;

static void hot_off(void)
{
    prof_hot.comm = MPI_COMM_NULL;
    prof_hot.ndest = 0;
    prof_hot.world = NULL;
}

/* Make @p comm, whose destinations are the world ranks @p world[ndest]
 * (all valid), the hot communicator -- when the hot path is in use. */
static void hot_set(MPI_Comm comm, int ndest, const int *world)
{
    if (!prof_hot.ndense || prof_multi)
        return;
    prof_hot.comm = comm;
    prof_hot.ndest = (unsigned)ndest;
    prof_hot.world = world;
}

static int delete_map(MPI_Comm comm, int kv, void *val, void *extra)
{
    prof_lock();
    if (val == last_map) {
        last_map = NULL;
        last_comm = MPI_COMM_NULL;
    }
    /* The handle may come back as another communicator. */
    if (prof_hot.world && prof_hot.world == ((comm_map_t *)val)->world)
        hot_off();
    prof_unlock();
    free(val);
    return MPI_SUCCESS;
}

static comm_map_t *build_map(MPI_Comm comm)
{
    int inter = 0, size = 0, rank = 0, ndest = 0;
    MPI_Group g = MPI_GROUP_NULL;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return NULL;
    if (inter) {
        if (PMPI_Comm_remote_size(comm, &ndest) != MPI_SUCCESS ||
            PMPI_Comm_remote_group(comm, &g) != MPI_SUCCESS)
            return NULL;
    } else {
        ndest = size;
        if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
            return NULL;
    }
    comm_map_t *m = malloc(sizeof *m + 2 * (size_t)ndest * sizeof(int));
    if (!m) {
        PMPI_Group_free(&g);
        return NULL;
    }
    int *in = m->world + ndest;
    for (int i = 0; i < ndest; i++)
        in[i] = i;
    if (PMPI_Group_translate_ranks(g, ndest, in, world_group, m->world)
        != MPI_SUCCESS) {
        PMPI_Group_free(&g);
        free(m);
        return NULL;
    }
    PMPI_Group_free(&g);
    m->inside = 1;
    for (int i = 0; i < ndest; i++)
        if (m->world[i] == MPI_UNDEFINED) {   /* e.g. a spawned process */
            m->world[i] = -1;
            m->inside = 0;
        }
    m->c.size = size;
    m->c.rank = rank;
    m->c.inter = inter;
    m->c.ndest = ndest;
    m->c.world = m->world;
    if (PMPI_Comm_set_attr(comm, keyval, m) != MPI_SUCCESS) {
        free(m);
        return NULL;
    }
    return m;
}

int prof_comm_get(MPI_Comm comm, prof_comm_t *c)
{
    if (comm == MPI_COMM_NULL)
        return -1;
    if (comm == MPI_COMM_WORLD) {
        c->size = c->ndest = world_size;
        c->rank = world_rank;
        c->inter = 0;
        c->world = NULL;
        hot_set(comm, world_size, identity);
        return 0;
    }
    if (comm != last_comm || !last_map) {
        void *val = NULL;
        int flag = 0;
        if (PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS)
            return -1;
        comm_map_t *m = flag ? val : build_map(comm);
        if (!m)
            return -1;
        last_comm = comm;
        last_map = m;
    }
    *c = last_map->c;
    if (last_map->inside)
        hot_set(comm, last_map->c.ndest, last_map->world);
    return 0;
}

/* ------------------------------------------------------- start/finish -- */

/* Set up traffic recording: rows, world group, attribute key.  -1 on
 * failure, with everything it made undone. */
static int traffic_setup(void)
{
    int dense_max = PROF_DENSE_MAX;
    const char *dm = getenv(CM_ENV_PROF_DENSE_MAX);
    if (dm && *dm)
        dense_max = atoi(dm);
    if (PMPI_Comm_group(MPI_COMM_WORLD, &world_group) != MPI_SUCCESS ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_map, &keyval,
                                NULL) != MPI_SUCCESS ||
        row_init(&rows[PROF_P2P], world_size <= dense_max) ||
        row_init(&rows[PROF_COLL], world_size <= dense_max) ||
        (rows[PROF_P2P].dense &&
         !(identity = malloc((size_t)world_size * sizeof *identity)))) {
        row_free(&rows[PROF_P2P]);
        row_free(&rows[PROF_COLL]);
        free(identity);
        identity = NULL;
        if (world_group != MPI_GROUP_NULL)
            PMPI_Group_free(&world_group);
        if (keyval != MPI_KEYVAL_INVALID)
            PMPI_Comm_free_keyval(&keyval);
        return -1;
    }
    tcache_clear();
    prof_hot.type = MPI_DATATYPE_NULL;      /* size 0, like prof_bytes */
    prof_hot.size = 0;
    if (rows[PROF_P2P].dense) {
        for (int i = 0; i < world_size; i++)
            identity[i] = i;
        prof_hot.dense[PROF_P2P] = rows[PROF_P2P].cells;
        prof_hot.dense[PROF_COLL] = rows[PROF_COLL].cells;
        prof_hot.ndense = (unsigned)world_size;
        hot_set(MPI_COMM_WORLD, world_size, identity);
    }
    return 0;
}

int prof_control_read(char *buf, size_t size)
{
    const char *ctl = getenv(CM_ENV_PROFILE_CONTROL);
    size_t used = 0;
    ssize_t n = 0;
    buf[0] = '\0';
    if (!ctl || !*ctl)
        return -1;
    int fd = open(ctl, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    while (used < size - 1 && (n = read(fd, buf + used, size - 1 - used)) > 0)
        used += (size_t)n;
    close(fd);
    buf[used] = '\0';
    return 0;
}

/* The traffic mode: 1 traffic, 0 time only, -1 not profiling. */
static int traffic_mode(void)
{
    const char *tr = getenv(CM_ENV_PROFILE_TRAFFIC);
    char text[PROF_CONTROL_MAX];
    if (prof_control_read(text, sizeof text) < 0)
        return !(tr && strcmp(tr, "0") == 0);
    text[strcspn(text, "\n")] = '\0';
    return !strcmp(text, "traffic") ? 1 : !strcmp(text, "time") ? 0 : -1;
}

void prof_start(int provided)
{
    const char *dir = getenv(CM_ENV_PROFILE_DIR);
    prof_mpi_seen = 1;
    if (joined || !dir || !*dir || (traffic = traffic_mode()) < 0)
        return;
    uint64_t t0 = prof_now();
    prof_nompi_clear();
    if (PMPI_Comm_size(MPI_COMM_WORLD, &world_size) != MPI_SUCCESS ||
        PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank) != MPI_SUCCESS) {
        prof_say("cannot set up, not profiling\n");
        return;
    }
    prof_multi = provided == MPI_THREAD_MULTIPLE;
    profile_dir = strdup(dir);
    if (!profile_dir || (traffic && traffic_setup() < 0)) {
        /* This rank writes no part: ingestion refuses the incomplete set,
         * and no other rank waits for anything. */
        prof_say("out of memory, rank %d not "
                "profiled\n", world_rank);
        free(profile_dir);
        profile_dir = NULL;
        return;
    }
    joined = 1;
    prof_mpi_ns = 0;
    t_start = t0;
    prof_timing = 1;
    prof_active = traffic;
}

void prof_finish(void)
{
    if (!joined)
        return;
    uint64_t elapsed = prof_now() - t_start;
    prof_timing = 0;
    uint64_t mpi = __atomic_load_n(&prof_mpi_ns, __ATOMIC_RELAXED);
    prof_active = 0;
    joined = 0;
    hot_off();
    prof_hot.ndense = 0;
    prof_hot.dense[PROF_P2P] = prof_hot.dense[PROF_COLL] = NULL;
    size_t n = 0;
    uint64_t *mine = traffic ? collect(&n) : NULL;
    if (traffic && !mine)
        prof_say("out of memory, rank %d not "
                "profiled\n", world_rank);
    else
        prof_write_part(world_rank, world_size, traffic, mine, n, elapsed,
                       mpi, profile_dir);
    free(mine);
    for (int k = 0; k < PROF_NKINDS; k++)
        row_free(&rows[k]);
    prof_persist_clear();
    if (world_group != MPI_GROUP_NULL)
        PMPI_Group_free(&world_group);
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
    last_comm = MPI_COMM_NULL;
    last_map = NULL;
    free(identity);
    identity = NULL;
    free(profile_dir);
    profile_dir = NULL;
}
