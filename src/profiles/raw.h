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

/** Largest "time" value, in seconds. */
#define CM_RAW_MAX_SECONDS 1e9

/** A parsed raw profile.  Owned by the caller; release with cm_raw_release.
 *
 *  The run's timing comes from the "time ELAPSED MPI" line of each part
 *  (format 2 only): seconds from MPI_Init to MPI_Finalize, and the part of
 *  them spent in blocking MPI calls (docs/profile-format.md).  For one part
 *  ntimed is 1 and the sums and maxima are its values when it has that
 *  line, else all 0; for an assembly they run over its timed parts; for a
 *  format 1 file ntimed is 0 and traffic 1.  A part of a run in "time
 *  only" mode says "traffic off" and has no rows: its matrices (and an
 *  assembly's, all of whose parts must then say so) are empty. */
typedef struct cm_raw_profile {
    int nranks;
    int rank;           /**< format 2 (one rank's part): that rank; else -1 */
    char jobid[64], stepid[64];
    char program[128];  /**< the part's program; an assembly's when every
                             part names the same one, else "" */
    cm_matrix_t *p2p;   /**< point-to-point traffic; has_msgs = 1 */
    cm_matrix_t *coll;  /**< collective-derived traffic; has_msgs = 1 */
    int traffic;        /**< 1: traffic rows recorded; 0: every part said "traffic off" */
    int ntimed;         /**< parts (ranks) that had a "time" line */
    double elapsed_max, elapsed_sum;  /**< over the timed parts, seconds */
    double mpi_max, mpi_sum;
    int nmissing;       /**< ranks of the run without a part here: nranks - 1
                             for one rank's part, the parts an assembly read
                             with CM_RAW_PARTIAL lacked, else 0 */
} cm_raw_profile_t;

/** cm_raw_read_flags(): a directory of parts that lacks some ranks is
 *  assembled all the same (their rows stay empty), not refused. */
#define CM_RAW_PARTIAL 1

/** Read the raw profile @p path into @p out -- a file, or a directory of
 *  one-rank parts "part.<task>.txt", assembled (every rank exactly once).
 *  The file is opened without
 *  following symlinks (O_NOFOLLOW) and must be a regular file of at most
 *  @p max_bytes bytes.  Returns 0, or -1 with @p err filled and @p out
 *  zeroed. */
int cm_raw_read(const char *path, size_t max_bytes, cm_raw_profile_t *out,
                cm_error_t *err);

/** As cm_raw_read(), with @p flags (0 or CM_RAW_PARTIAL).  A directory
 *  missing ranks is refused, without CM_RAW_PARTIAL, with the missing
 *  ranks named as cm_raw_ranks_text() names them. */
int cm_raw_read_flags(const char *path, size_t max_bytes, int flags,
                      cm_raw_profile_t *out, cm_error_t *err);

/** The ranks 0..@p nranks-1 that have no part, as ranges ("0-1,3-7"), into
 *  @p buf of @p size bytes: those of @p seen[i] == 0, or, for a NULL
 *  @p seen, every rank but @p only.  A range is written while it leaves
 *  48 bytes for the summary of those that do not fit (",... and 12 more
 *  ranks", or "12 missing ranks" when none fits); the last range may use
 *  them.  "" when none is missing, or when even the summary does not fit
 *  (never a cut number). */
void cm_raw_ranks_text(const char *seen, int only, int nranks, char *buf, size_t size);

/** As cm_raw_read() on a descriptor the caller opened (for instance after
 *  dropping privileges); @p name is used in messages.  The descriptor is
 *  read from its current offset and left open. */
int cm_raw_read_fd(int fd, const char *name, size_t max_bytes,
                   cm_raw_profile_t *out, cm_error_t *err);

/** Free the matrices of @p p and zero it (NULL is a no-op). */
void cm_raw_release(cm_raw_profile_t *p);

/** Per-rank parts (format 2, one file per rank: what the profiling library
 *  writes since it has no collective of its own) put back together.  Each
 *  rank must arrive exactly once, all of the same rank count and step, and
 *  either all or none of them saying "traffic off". */
typedef struct cm_raw_assembly cm_raw_assembly_t;

/** An empty assembly of @p nranks ranks.  NULL with @p err on error. */
cm_raw_assembly_t *cm_raw_assembly_new(int nranks, cm_error_t *err);

/** Read one part from @p fd (as cm_raw_read_fd) and add it.  -1 with
 *  @p err when the file is invalid, of another rank count or step, a rank
 *  already added, or disagrees with the parts added before on "traffic
 *  off"; the assembly is then unchanged. */
int cm_raw_assembly_add_fd(cm_raw_assembly_t *a, int fd, const char *name,
                           size_t max_bytes, cm_error_t *err);

/** Ranks not added yet. */
int cm_raw_assembly_missing(const cm_raw_assembly_t *a);

/** The ranks not added yet, as cm_raw_ranks_text() writes them. */
void cm_raw_assembly_missing_text(const cm_raw_assembly_t *a, char *buf, size_t size);

/** The whole profile (rank = -1) into @p out (release with cm_raw_release):
 *  the parts' rows, their traffic flag, and the maxima and sums of the
 *  timed parts' times.  -1 with @p err when ranks are missing -- unless
 *  @p flags has CM_RAW_PARTIAL: then their rows are empty and
 *  out->nmissing counts them. */
int cm_raw_assembly_finish(cm_raw_assembly_t *a, cm_raw_profile_t *out,
                           cm_error_t *err);
int cm_raw_assembly_finish_flags(cm_raw_assembly_t *a, int flags, cm_raw_profile_t *out,
                                 cm_error_t *err);

/** Free @p a (NULL is a no-op). */
void cm_raw_assembly_free(cm_raw_assembly_t *a);

#endif /* CM_RAW_H */
