/*
 * prof_p2p.c -- point-to-point sends: the C wrappers and the recording they
 * share with the Fortran ones.  A send is recorded when it is posted (a
 * non-blocking send counts at MPI_Isend, a persistent one at each
 * MPI_Start/MPI_Startall).  Sends to MPI_PROC_NULL and to processes outside
 * MPI_COMM_WORLD are dropped.  The blocking receive-side calls (Recv,
 * Sendrecv(_replace), the Waits, Probe) are timed (prof.h, "time"); the
 * sends are not.
 */
#include "prof.h"

#include <stdlib.h>
#include <string.h>

void prof_send(MPI_Comm comm, int dest, int count, MPI_Datatype type)
{
    prof_comm_t c;
    if (dest == MPI_PROC_NULL)
        return;
    prof_lock();
    if (prof_active && prof_comm_get(comm, &c) == 0 && dest >= 0 &&
        dest < c.ndest) {
        int w = c.world ? c.world[dest] : dest;
        prof_add(PROF_P2P, w, prof_bytes(count, type), 1);
        prof_hot_type(type);    /* prof_comm_get has made comm hot */
    }
    prof_unlock();
}

/* ---------------------------------------------- persistent requests -- */

/* Open addressing with linear probing keyed by the request handle; deletion
 * shifts the following cluster back, so there are no tombstones and lookups
 * stay O(1) however many requests come and go. */
typedef struct preq {
    MPI_Request req;    /* MPI_REQUEST_NULL = empty */
    int wdst;
    uint64_t bytes;
} preq_t;

static preq_t *ptab;
static size_t pcap, pused;

static size_t phash(MPI_Request r, size_t cap)
{
    uintptr_t v = (uintptr_t)r;
    v ^= v >> 17;
    return (size_t)(v * (uintptr_t)0x9E3779B97F4A7C15ull) & (cap - 1);
}

static preq_t *pfind(MPI_Request r)
{
    if (!pcap)
        return NULL;
    for (size_t i = phash(r, pcap);; i = (i + 1) & (pcap - 1)) {
        if (ptab[i].req == r)
            return &ptab[i];
        if (ptab[i].req == MPI_REQUEST_NULL)
            return NULL;
    }
}

static int pgrow(void)
{
    size_t ncap = pcap ? 2 * pcap : 64;
    preq_t *n = malloc(ncap * sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < ncap; i++)
        n[i].req = MPI_REQUEST_NULL;
    for (size_t i = 0; i < pcap; i++) {
        if (ptab[i].req == MPI_REQUEST_NULL)
            continue;
        size_t j = phash(ptab[i].req, ncap);
        while (n[j].req != MPI_REQUEST_NULL)
            j = (j + 1) & (ncap - 1);
        n[j] = ptab[i];
    }
    free(ptab);
    ptab = n;
    pcap = ncap;
    return 0;
}

void prof_persist_new(MPI_Request req, MPI_Comm comm, int dest, int count,
                     MPI_Datatype type)
{
    prof_comm_t c;
    if (dest == MPI_PROC_NULL || req == MPI_REQUEST_NULL)
        return;
    prof_lock();
    if (prof_active && prof_comm_get(comm, &c) == 0 && dest >= 0 &&
        dest < c.ndest) {
        int w = c.world ? c.world[dest] : dest;
        preq_t *p = pfind(req);
        if (!p && 2 * (pused + 1) > pcap && pgrow() != 0)
            w = -1;             /* no memory: this request is not counted */
        if (w >= 0) {
            if (!p) {
                size_t i = phash(req, pcap);
                while (ptab[i].req != MPI_REQUEST_NULL)
                    i = (i + 1) & (pcap - 1);
                p = &ptab[i];
                pused++;
            }
            p->req = req;
            p->wdst = w;
            p->bytes = prof_bytes(count, type);
        }
    }
    prof_unlock();
}

void prof_persist_start(int n, const MPI_Request *reqs)
{
    prof_lock();
    for (int k = 0; prof_active && pused && k < n; k++) {
        preq_t *p = pfind(reqs[k]);
        if (p)
            prof_add(PROF_P2P, p->wdst, p->bytes, 1);
    }
    prof_unlock();
}

void prof_persist_free(MPI_Request req)
{
    prof_lock();
    preq_t *p = pused ? pfind(req) : NULL;
    if (p) {
        size_t i = (size_t)(p - ptab), j = i;
        ptab[i].req = MPI_REQUEST_NULL;
        pused--;
        /* Move back every later entry of the cluster whose home slot is
         * not cyclically within (i, j]. */
        for (;;) {
            j = (j + 1) & (pcap - 1);
            if (ptab[j].req == MPI_REQUEST_NULL)
                break;
            size_t h = phash(ptab[j].req, pcap);
            int keep = (i <= j) ? (i < h && h <= j) : (i < h || h <= j);
            if (keep)
                continue;
            ptab[i] = ptab[j];
            ptab[j].req = MPI_REQUEST_NULL;
            i = j;
        }
    }
    prof_unlock();
}

void prof_persist_clear(void)
{
    free(ptab);
    ptab = NULL;
    pcap = pused = 0;
}

/* ------------------------------------------------------- C wrappers -- */

/* A send wrapper is the inlined common case (prof_send_hot) and a tail call
 * to PMPI; everything else is in slow_NAME, kept out of line so that the
 * common case needs no stack frame.  PARAMS/ARGS: the full parameter and
 * argument lists; C, D, N, T: the communicator, destination, count and
 * datatype among them. */
#define SEND_WRAPPER(NAME, PARAMS, ARGS, C, D, N, T)                         \
static __attribute__((noinline, cold)) int slow_##NAME PARAMS                \
{                                                                            \
    if (prof_active)                                                          \
        prof_send(C, D, N, T);                                                \
    return PMPI_##NAME ARGS;                                                 \
}                                                                            \
int MPI_##NAME PARAMS                                                        \
{                                                                            \
    prof_settle();                                                            \
    if (PROF_LIKELY(prof_send_hot(C, D, N, T)))                                \
        return PMPI_##NAME ARGS;                                             \
    return slow_##NAME ARGS;                                                 \
}

#define P_SEND (const void *buf, int count, MPI_Datatype type, int dest,     \
                int tag, MPI_Comm comm)
#define A_SEND (buf, count, type, dest, tag, comm)
#define P_ISEND (const void *buf, int count, MPI_Datatype type, int dest,    \
                 int tag, MPI_Comm comm, MPI_Request *req)
#define A_ISEND (buf, count, type, dest, tag, comm, req)

#define INIT_WRAPPER(NAME)                                                   \
int MPI_##NAME P_ISEND                                                       \
{                                                                            \
    prof_settle();                                                            \
    int rc = PMPI_##NAME A_ISEND;                                            \
    if (prof_active && rc == MPI_SUCCESS)                                     \
        prof_persist_new(*req, comm, dest, count, type);                      \
    return rc;                                                               \
}

SEND_WRAPPER(Send, P_SEND, A_SEND, comm, dest, count, type)
SEND_WRAPPER(Bsend, P_SEND, A_SEND, comm, dest, count, type)
SEND_WRAPPER(Ssend, P_SEND, A_SEND, comm, dest, count, type)
SEND_WRAPPER(Rsend, P_SEND, A_SEND, comm, dest, count, type)
SEND_WRAPPER(Isend, P_ISEND, A_ISEND, comm, dest, count, type)
SEND_WRAPPER(Ibsend, P_ISEND, A_ISEND, comm, dest, count, type)
SEND_WRAPPER(Issend, P_ISEND, A_ISEND, comm, dest, count, type)
SEND_WRAPPER(Irsend, P_ISEND, A_ISEND, comm, dest, count, type)
INIT_WRAPPER(Send_init)
INIT_WRAPPER(Bsend_init)
INIT_WRAPPER(Ssend_init)
INIT_WRAPPER(Rsend_init)

/* A blocking call that sends nothing: timed, nothing recorded. */
#define TIMED_WRAPPER(NAME, PARAMS, ARGS)                                    \
int MPI_##NAME PARAMS                                                        \
{                                                                            \
    prof_settle();                                                            \
    uint64_t t0 = prof_time_begin();                                          \
    int rc = PMPI_##NAME ARGS;                                               \
    prof_time_end(t0);                                                        \
    return rc;                                                               \
}

/* Sendrecv blocks for its receive: its send is recorded, the call timed. */
#define SENDRECV_WRAPPER(NAME, PARAMS, ARGS, C, D, N, T)                     \
int MPI_##NAME PARAMS                                                        \
{                                                                            \
    prof_settle();                                                            \
    prof_send_any(C, D, N, T);                                                \
    uint64_t t0 = prof_time_begin();                                          \
    int rc = PMPI_##NAME ARGS;                                               \
    prof_time_end(t0);                                                        \
    return rc;                                                               \
}

SENDRECV_WRAPPER(Sendrecv,
                 (const void *sbuf, int scount, MPI_Datatype stype, int dest,
                  int stag, void *rbuf, int rcount, MPI_Datatype rtype,
                  int source, int rtag, MPI_Comm comm, MPI_Status *status),
                 (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                  source, rtag, comm, status),
                 comm, dest, scount, stype)
SENDRECV_WRAPPER(Sendrecv_replace,
                 (void *buf, int count, MPI_Datatype type, int dest, int stag,
                  int source, int rtag, MPI_Comm comm, MPI_Status *status),
                 (buf, count, type, dest, stag, source, rtag, comm, status),
                 comm, dest, count, type)

TIMED_WRAPPER(Recv,
              (void *buf, int count, MPI_Datatype type, int source, int tag,
               MPI_Comm comm, MPI_Status *status),
              (buf, count, type, source, tag, comm, status))
TIMED_WRAPPER(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status),
              (source, tag, comm, status))
TIMED_WRAPPER(Wait, (MPI_Request *req, MPI_Status *status), (req, status))
TIMED_WRAPPER(Waitall,
              (int count, MPI_Request reqs[], MPI_Status *statuses),
              (count, reqs, statuses))
TIMED_WRAPPER(Waitany,
              (int count, MPI_Request reqs[], int *index, MPI_Status *status),
              (count, reqs, index, status))
TIMED_WRAPPER(Waitsome,
              (int incount, MPI_Request reqs[], int *outcount, int indices[],
               MPI_Status statuses[]),
              (incount, reqs, outcount, indices, statuses))

/* MPI_Irecv: nothing recorded, but a completion point of the tnbc overlay
 * (prof_settle) like every wrapper: a receive into a buffer it protects
 * would fault inside the MPI library. */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Request *req)
{
    prof_settle();
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Start(MPI_Request *req)
{
    prof_settle();
    if (prof_active)
        prof_persist_start(1, req);
    return PMPI_Start(req);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    prof_settle();
    if (prof_active)
        prof_persist_start(n, reqs);
    return PMPI_Startall(n, reqs);
}

int MPI_Request_free(MPI_Request *req)
{
    prof_settle();
    if (prof_active && req)
        prof_persist_free(*req);
    return PMPI_Request_free(req);
}
