/*
 * tnbc_escape.c -- the result of a collective handed, untouched, to what
 * the tnbc overlay (docs/overlays.md) does not run: MPI calls of every
 * kind and the kernel.  Each is valid MPI, so its output must be the same
 * bit for bit with and without the overlay; under tnbc the collective may
 * still be pending, its receive buffer's pages protected.
 *
 *   io FILE   MPI_Allgather, then MPI_File_write_at of the result into
 *             FILE (each rank its own region); again, then write(2) of
 *             the result into FILE.<rank>; again, then fwrite(3) there;
 *             again, then read(2) back into the result buffer of one more
 *             pending MPI_Allgather
 *   put       MPI_Allgather, then MPI_Put of the result between two
 *             fences; again in a passive epoch (MPI_Win_lock); again,
 *             then MPI_Get into the result buffer
 *   neigh     MPI_Alltoallv, then MPI_Neighbor_alltoallv with its result
 *             as the send buffer, 10 times
 *   gap       MPI_Alltoallv whose receive blocks leave whole pages between
 *             them, where the message of an MPI_Irecv posted before it
 *             (and sent before it) lands while it is pending, 10 times
 *   free      MPI_Allgather into a large malloc'ed buffer, one byte of it
 *             read, the buffer freed, then calloc: all zero, 10 times
 *   threads   200 MPI_Allgather whose results the main thread reads, while
 *             a helper thread calls MPI_Comm_rank, MPI_Wtime and read(2)
 *             without a pause (MPI_THREAD_MULTIPLE)
 *
 * Prints "ERROR ..." and exits 1 when a call fails or reports less than
 * asked; rank 0 ends with "checksum <hex>" (mini.h) over the results.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mini.h"

#define BLK (128 * 1024)   /* bytes per rank and block: whole pages */

static int me, n;

static void fail(const char *what, long got, long want)
{
    printf("ERROR rank %d: %s: %ld, expected %ld (%s)\n", me, what, got,
           want, strerror(errno));
    fflush(stdout);
    exit(1);
}

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        fail(what, rc, MPI_SUCCESS);
}

/* The bytes rank @p r contributes to call @p c. */
static void fill(unsigned char *b, size_t len, int c, int r)
{
    for (size_t i = 0; i < len; i++)
        b[i] = (unsigned char)(r * 131 + c * 17 + i * 7 + (i >> 9));
}

static unsigned char *buf(size_t len)
{
    unsigned char *p = aligned_alloc(4096, len);
    if (!p)
        fail("aligned_alloc", 0, (long)len);
    return p;
}

/* Allgather of call @p c into @p r (n * BLK bytes), left pending under
 * tnbc: nothing touches @p r after it. */
static void gather(unsigned char *r, int c)
{
    unsigned char *s = buf(BLK);
    fill(s, BLK, c, me);
    ok(MPI_Allgather(s, BLK, MPI_BYTE, r, BLK, MPI_BYTE, MPI_COMM_WORLD),
       "MPI_Allgather");
    free(s);
}

static void run_io(const char *path)
{
    size_t total = (size_t)n * BLK;
    unsigned char *r = buf(total), *back = buf(total);
    MPI_File fh;
    MPI_Status st;
    int cnt = 0;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                     MPI_INFO_NULL, &fh), "MPI_File_open");
    gather(r, 1);
    ok(MPI_File_write_at(fh, (MPI_Offset)me * (MPI_Offset)total, r,
                         (int)total, MPI_BYTE, &st), "MPI_File_write_at");
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    if ((size_t)cnt != total)
        fail("MPI_File_write_at wrote", cnt, (long)total);
    ok(MPI_File_close(&fh), "MPI_File_close");

    char own[4096];
    snprintf(own, sizeof own, "%s.%d", path, me);
    int fd = open(own, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        fail("open", fd, 0);
    gather(r, 2);
    ssize_t w = write(fd, r, total);
    if (w != (ssize_t)total)
        fail("write(2) wrote", (long)w, (long)total);
    gather(r, 3);
    FILE *f = fdopen(dup(fd), "w");
    if (!f || fwrite(r, 1, total, f) != total || fclose(f) != 0)
        fail("fwrite(3)", 0, (long)total);
    /* read(2) into the receive buffer of a pending call: the file's
     * bytes win, they come after the call in program order */
    gather(back, 4);
    if (pread(fd, back, total, 0) != (ssize_t)total)
        fail("pread(2) read", 0, (long)total);
    close(fd);
    mini_checksum(back, (int)total, MPI_COMM_WORLD);
    free(r);
    free(back);
}

static void run_put(void)
{
    size_t total = (size_t)n * BLK;
    unsigned char *w = buf(total), *r = buf(total);
    memset(w, 0, total);
    MPI_Win win;
    int right = (me + 1) % n;
    ok(MPI_Win_create(w, (MPI_Aint)total, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                      &win), "MPI_Win_create");
    ok(MPI_Win_fence(0, win), "MPI_Win_fence");
    gather(r, 1);
    ok(MPI_Put(r, (int)total, MPI_BYTE, right, 0, (int)total, MPI_BYTE, win),
       "MPI_Put");
    ok(MPI_Win_fence(0, win), "MPI_Win_fence");
    uint64_t h = mini_fnv(MINI_FNV_START, w, total);

    ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    gather(r, 2);
    ok(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win), "MPI_Win_lock");
    ok(MPI_Put(r, (int)total, MPI_BYTE, right, 0, (int)total, MPI_BYTE, win),
       "MPI_Put");
    ok(MPI_Win_unlock(right, win), "MPI_Win_unlock");
    ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    h = mini_fnv(h, w, total);

    /* MPI_Get into the result of a pending call: the window's bytes win */
    ok(MPI_Win_fence(0, win), "MPI_Win_fence");
    gather(r, 3);
    ok(MPI_Get(r, (int)total, MPI_BYTE, right, 0, (int)total, MPI_BYTE, win),
       "MPI_Get");
    ok(MPI_Win_fence(0, win), "MPI_Win_fence");
    h = mini_fnv(h, r, total);
    ok(MPI_Win_free(&win), "MPI_Win_free");
    mini_checksum(&h, (int)sizeof h, MPI_COMM_WORLD);
    free(w);
    free(r);
}

static void run_neigh(void)
{
    int left = (me + n - 1) % n, right = (me + 1) % n;
    int nb[2] = { left, right }, wt[2] = { 1, 1 };
    MPI_Comm ring;
    ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, wt, 2, nb, wt,
                                      MPI_INFO_NULL, 0, &ring),
       "MPI_Dist_graph_create_adjacent");
    int *sc = malloc(4 * (size_t)n * sizeof *sc), *sd = sc + n,
        *rc = sc + 2 * n, *rd = sc + 3 * n;
    if (!sc)
        fail("malloc", 0, 0);
    for (int j = 0; j < n; j++) {
        sc[j] = rc[j] = BLK;
        sd[j] = rd[j] = j * BLK;
    }
    size_t total = (size_t)n * BLK;
    unsigned char *s = buf(total), *r = buf(total), *out = buf(2 * BLK);
    uint64_t h = MINI_FNV_START;
    for (int it = 0; it < 10; it++) {
        for (int j = 0; j < n; j++)
            fill(s + (size_t)j * BLK, BLK, it, me * n + j);
        ok(MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE,
                         MPI_COMM_WORLD), "MPI_Alltoallv");
        /* to each neighbour the block that came from it */
        int ns[2] = { BLK, BLK }, nsd[2] = { left * BLK, right * BLK };
        int nr[2] = { BLK, BLK }, nrd[2] = { 0, BLK };
        ok(MPI_Neighbor_alltoallv(r, ns, nsd, MPI_BYTE, out, nr, nrd,
                                  MPI_BYTE, ring), "MPI_Neighbor_alltoallv");
        h = mini_fnv(h, out, 2 * BLK);
    }
    MPI_Comm_free(&ring);
    mini_checksum(&h, (int)sizeof h, MPI_COMM_WORLD);
    free(sc);
    free(s);
    free(r);
    free(out);
}

static void run_gap(void)
{
    enum { GAP = 3 * 4096 };
    int left = (me + n - 1) % n, right = (me + 1) % n;
    int *sc = malloc(4 * (size_t)n * sizeof *sc), *sd = sc + n,
        *rc = sc + 2 * n, *rd = sc + 3 * n;
    if (!sc)
        fail("malloc", 0, 0);
    for (int j = 0; j < n; j++) {
        sc[j] = rc[j] = BLK;
        sd[j] = j * BLK;
        rd[j] = j * (BLK + GAP);   /* whole pages between the blocks */
    }
    size_t total = (size_t)n * (BLK + GAP);
    unsigned char *s = buf((size_t)n * BLK), *r = buf(total),
                  *msg = buf(GAP);
    uint64_t h = MINI_FNV_START;
    for (int it = 0; it < 10; it++) {
        memset(r, 0, total);
        unsigned char *hole = r + BLK;   /* between blocks 0 and 1 */
        MPI_Request q[2];
        ok(MPI_Irecv(hole, GAP, MPI_BYTE, left, 7, MPI_COMM_WORLD, &q[0]),
           "MPI_Irecv");
        fill(msg, GAP, it + 100, me);
        ok(MPI_Isend(msg, GAP, MPI_BYTE, right, 7, MPI_COMM_WORLD, &q[1]),
           "MPI_Isend");
        for (int j = 0; j < n; j++)
            fill(s + (size_t)j * BLK, BLK, it, me * n + j);
        /* the message may land in the hole at any time from here on */
        ok(MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE,
                         MPI_COMM_WORLD), "MPI_Alltoallv");
        ok(MPI_Waitall(2, q, MPI_STATUSES_IGNORE), "MPI_Waitall");
        h = mini_fnv(h, r, total);
    }
    mini_checksum(&h, (int)sizeof h, MPI_COMM_WORLD);
    free(sc);
    free(s);
    free(r);
    free(msg);
}

static int stop_helper;

/* The helper thread: MPI calls that read no buffer, and a system call,
 * all the time. */
static void *helper(void *arg)
{
    (void)arg;
    long k = 0;
    char small[64];
    int fd = open("/dev/zero", O_RDONLY);
    while (!__atomic_load_n(&stop_helper, __ATOMIC_ACQUIRE)) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        (void)MPI_Wtime();
        if (fd >= 0 && read(fd, small, sizeof small) < 0)
            fail("read(2) of /dev/zero", -1, (long)sizeof small);
        k++;
    }
    if (fd >= 0)
        close(fd);
    return (void *)k;
}

static void run_threads(void)
{
    size_t total = (size_t)n * BLK;
    unsigned char *r = buf(total);
    pthread_t t;
    if (pthread_create(&t, NULL, helper, NULL) != 0)
        fail("pthread_create", 0, 0);
    uint64_t h = MINI_FNV_START;
    for (int it = 0; it < 200; it++) {
        gather(r, it);
        h = mini_fnv(h, r, total);
    }
    __atomic_store_n(&stop_helper, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    mini_checksum(&h, (int)sizeof h, MPI_COMM_WORLD);
    free(r);
}

static void run_free(void)
{
    size_t total = (size_t)n * BLK;
    uint64_t h = MINI_FNV_START;
    for (int it = 0; it < 10; it++) {
        /* large: the allocator maps it, and unmaps it at free */
        unsigned char *r = malloc(total);
        if (!r)
            fail("malloc", 0, (long)total);
        gather(r, it);
        h = mini_fnv(h, r + (size_t)me * BLK, 1);   /* one byte read */
        free(r);
        /* likely the same pages, mapped again: zero, whatever the pending
         * call had left to write there */
        unsigned char *z = calloc(total, 1);
        if (!z)
            fail("calloc", 0, (long)total);
        ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        for (size_t i = 0; i < total; i++)
            if (z[i])
                fail("calloc'd byte after a freed receive buffer", z[i], 0);
        h = mini_fnv(h, z, total);
        free(z);
    }
    mini_checksum(&h, (int)sizeof h, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int prov = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc >= 3 && strcmp(argv[1], "io") == 0)
        run_io(argv[2]);
    else if (argc >= 2 && strcmp(argv[1], "put") == 0)
        run_put();
    else if (argc >= 2 && strcmp(argv[1], "neigh") == 0)
        run_neigh();
    else if (argc >= 2 && strcmp(argv[1], "gap") == 0)
        run_gap();
    else if (argc >= 2 && strcmp(argv[1], "free") == 0)
        run_free();
    else if (argc >= 2 && strcmp(argv[1], "threads") == 0 &&
             prov == MPI_THREAD_MULTIPLE)
        run_threads();
    else {
        if (me == 0)
            fprintf(stderr, "usage: tnbc_escape io FILE | put | neigh | gap | free | "
                            "threads (MPI_THREAD_MULTIPLE)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
