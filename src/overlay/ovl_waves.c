/*
 * ovl_waves.c -- the per-node rule of T-NBC (Li et al., section 5;
 * docs/overlays.md, "Waves"): on each node, one process's sub-messages use
 * the network at a time.
 *
 *   CLUSTERMAP_OVERLAY_WAVES=1   asked for by every rank, the tnbc
 *                                overlay's Alltoall and Alltoallv send in
 *                                waves (off by default: the judge measured
 *                                the rule slower, bench/sim/README.md,
 *                                "Priorities")
 *
 * The ranks of a communicator that share a node (MPI_COMM_TYPE_SHARED)
 * form a chain in rank order.  In each call the first of the chain posts
 * its sends at once; every other rank copies its send buffer in the call,
 * as always, but posts its sends only once the previous rank of its chain
 * has seen all of its own complete and passed it a token (a 0-byte message
 * on the private duplicate, ovl_tnbc.c's WTAG), and passes its own token on
 * when its sends are complete.  Receives are all posted in the call, so a
 * held send waits only for sends that every rank's receives let finish;
 * a rank that runs the call blocking (stepped aside, a datatype, memory)
 * passes its token at once and takes its predecessor's before returning,
 * so that nobody waits for a token that never comes.  ovl_tnbc.c runs the
 * calls; this file decides who is whose neighbour.
 *
 * The chain is worked out once per communicator, when tnbc makes its
 * private duplicate (collective, every rank in the same call), and kept
 * in an attribute of the duplicate together with the requests a blocking
 * rank of the chain posts its exchange with, so that no call allocates
 * anything: a rank short of memory in a call could otherwise only
 * exchange with one peer at a time, and that waits in a cycle with the
 * sends its chain holds (a blocking rank waiting on a held sender whose
 * predecessor waits on another blocking rank).  Everything that can fail
 * on one rank is done before the ranks agree, so that after it no rank
 * can drop out alone.
 */
#include <stdlib.h>
#include <string.h>

#include "cm_env.h"
#include "ovl.h"

OVL_HIDDEN int ovl_waves_on;

static int keyval = MPI_KEYVAL_INVALID;

/* The attribute's delete callback: the chain goes with the duplicate. */
static int chain_delete(MPI_Comm d, int kv, void *val, void *extra)
{
    (void)d;
    (void)kv;
    (void)extra;
    free(val);
    return MPI_SUCCESS;
}

int ovl_waves_want(void)
{
    const char *v = getenv(CM_ENV_OVERLAY_WAVES);
    return v && *v && strcmp(v, "0") != 0;
}

int ovl_waves_setup(void)
{
    if (keyval != MPI_KEYVAL_INVALID)
        return 0;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, chain_delete,
                                   &keyval, NULL) == MPI_SUCCESS ? 0 : -1;
}

void ovl_waves_teardown(void)
{
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

/* This rank's neighbours in its node's chain of @p d (ranks of @p d, -1
 * for none) and the chain's length; -1 when the library cannot say. */
static int chain_of(MPI_Comm d, int *prev, int *next, int *len)
{
    int me = 0, r = 0, rc = 0;
    MPI_Comm node = MPI_COMM_NULL;
    *prev = *next = -1;
    *len = 1;
    PMPI_Comm_rank(d, &me);
    if (PMPI_Comm_split_type(d, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL,
                             &node) != MPI_SUCCESS || node == MPI_COMM_NULL)
        return -1;
    MPI_Group gn = MPI_GROUP_NULL, gd = MPI_GROUP_NULL;
    int in[2], out[2] = { MPI_UNDEFINED, MPI_UNDEFINED };
    if (PMPI_Comm_rank(node, &r) != MPI_SUCCESS ||
        PMPI_Comm_size(node, len) != MPI_SUCCESS ||
        PMPI_Comm_group(node, &gn) != MPI_SUCCESS ||
        PMPI_Comm_group(d, &gd) != MPI_SUCCESS)
        rc = -1;
    in[0] = r - 1;
    in[1] = r + 1 < *len ? r + 1 : MPI_UNDEFINED;
    if (!rc && r > 0 &&
        PMPI_Group_translate_ranks(gn, 1, &in[0], gd, &out[0]) != MPI_SUCCESS)
        rc = -1;
    if (!rc && in[1] != MPI_UNDEFINED &&
        PMPI_Group_translate_ranks(gn, 1, &in[1], gd, &out[1]) != MPI_SUCCESS)
        rc = -1;
    if (gn != MPI_GROUP_NULL)
        PMPI_Group_free(&gn);
    if (gd != MPI_GROUP_NULL)
        PMPI_Group_free(&gd);
    PMPI_Comm_free(&node);
    if (rc)
        return -1;
    *prev = r > 0 && out[0] != MPI_UNDEFINED ? out[0] : -1;
    *next = in[1] != MPI_UNDEFINED && out[1] != MPI_UNDEFINED ? out[1] : -1;
    return 0;
}

void ovl_waves_mark(MPI_Comm d)
{
    if (!ovl_waves_on || keyval == MPI_KEYVAL_INVALID)
        return;
    int n = 0;
    PMPI_Comm_size(d, &n);
    ovl_chain_t *c = n > 0 ? malloc(sizeof *c + (size_t)(2 * n) *
                                                 sizeof(MPI_Request))
                           : NULL;
    int ok = c && chain_of(d, &c->prev, &c->next, &c->len) == 0;
    if (ok)
        ok = PMPI_Comm_set_attr(d, keyval, c) == MPI_SUCCESS;
    if (!ok) {
        free(c);
        c = NULL;
    }
    int all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, d) != MPI_SUCCESS)
        all = 0;
    if (!all && c)   /* some rank could not: every rank without waves */
        PMPI_Comm_delete_attr(d, keyval);   /* frees c (chain_delete) */
}

ovl_chain_t *ovl_waves_chain(MPI_Comm d)
{
    void *val = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(d, keyval, &val, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return val;
}
