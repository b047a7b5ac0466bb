/*
 * raw.h -- reader of the raw profiles written by libclustermap-prof.so at
 * MPI_Finalize (format: docs/profile-format.md, "Raw profile").
 *
 * Raw files come from user jobs, so the reader trusts nothing: it does not
 * follow symlinks, reads only regular files no larger than a caller-given
 * bound, and validates every line.  Errors read "FILE:LINE: expected ...,
 * got ...".
 */
#ifndef CM_RAW_H
#define CM_RAW_H

#include <stddef.h>

#include "clustermap.h"

/** Largest rank count a raw profile may declare. */
#define CM_RAW_MAX_RANKS (1 << 24)
/** Largest byte or message count (2^53: every value is exact as a double). */
#define CM_RAW_MAX_VALUE 9007199254740992ull

/** A parsed raw profile.  Owned by the caller; release with cm_raw_release. */
typedef struct cm_raw_profile {
    int nranks;
    char jobid[64], stepid[64], program[128];
    cm_matrix_t *p2p;   /**< point-to-point traffic; has_msgs = 1 */
    cm_matrix_t *coll;  /**< collective-derived traffic; has_msgs = 1 */
} cm_raw_profile_t;

/** Read the raw profile @p path into @p out.  The file is opened without
 *  following symlinks (O_NOFOLLOW) and must be a regular file of at most
 *  @p max_bytes bytes.  Returns 0, or -1 with @p err filled and @p out
 *  zeroed. */
int cm_raw_read(const char *path, size_t max_bytes, cm_raw_profile_t *out,
                cm_error_t *err);

/** As cm_raw_read() on a descriptor the caller opened (for instance after
 *  dropping privileges); @p name is used in messages.  The descriptor is
 *  read from its current offset and left open. */
int cm_raw_read_fd(int fd, const char *name, size_t max_bytes,
                   cm_raw_profile_t *out, cm_error_t *err);

/** Free the matrices of @p p and zero it (NULL is a no-op). */
void cm_raw_release(cm_raw_profile_t *p);

#endif /* CM_RAW_H */
