/*
 * cm_profile.h -- communication profiles: what clustermap remembers about
 * one kind of job.
 *
 * A profile is the key (user, job name, task count), the averaged
 * point-to-point and collective traffic between ranks (bytes and messages,
 * sparse), how many runs were merged into it, when, and the last job ids.
 * On disk a profile is one JSON document (docs/profile-format.md, "Stored
 * profile (JSON)") or its binary form, protected by a checksum over its
 * content.  Where profiles are kept is the store's (cm_store.h); a job's
 * run history and the guard that reads it are in cm_history.h.
 *
 * Conventions are those of clustermap.h: opaque handles, cm_error_t last,
 * NULL/-1 on failure with a message naming the file and the field.
 */
#ifndef CM_PROFILE_H
#define CM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "clustermap.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Schema version written into (and required from) every stored profile. */
#define CM_PROFILE_VERSION 1

/** Default bound on the size of a profile file read back (64 MiB). */
#define CM_PROFILE_DEFAULT_MAX_BYTES ((size_t)64 << 20)

/** Largest task count a profile may have. */
#define CM_PROFILE_MAX_TASKS (1 << 20)

/** Longest job name / user name, in bytes. */
#define CM_PROFILE_MAX_NAME 255

/** Longest job id string ("jobid.stepid"), in bytes. */
#define CM_PROFILE_MAX_JOBID 129

/** How many job ids a profile keeps (the most recent ones). */
#define CM_PROFILE_MAX_JOBIDS 32

/** Default merge weight of a new run (see cm_profile_merge). */
#define CM_PROFILE_DEFAULT_WEIGHT 0.5

/** Weight value meaning "cumulative mean": w = run.runs / (old.runs +
 *  run.runs), so that every run merged counts the same. */
#define CM_PROFILE_WEIGHT_MEAN (-1.0)

/** Which traffic of a profile. */
typedef enum cm_part {
    CM_PART_P2P = 1,   /**< point-to-point sends */
    CM_PART_COLL = 2,  /**< collectives, as logical per-destination volume */
    CM_PART_ALL = 3    /**< both, summed */
} cm_part_t;

/** Parse "p2p", "coll", "all".  -1 when unknown. */
int cm_part_parse(const char *name, cm_part_t *out);

/* ------------------------------------------------------------------------ */
/* Profiles                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct cm_profile cm_profile_t;

/** A one-run profile from matrices.  @p p2p and @p coll (either may be NULL
 *  for "no traffic", not both) must have @p ntasks ranks; they are copied.
 *  @p user is the user's name (informational; the uid is the key).  The
 *  profile has runs = 1, first = last update = @p now, no job ids, and
 *  carries message counts when every matrix given has them. */
cm_profile_t *cm_profile_new(uid_t uid, const char *user, const char *job_name,
                             int ntasks, const cm_matrix_t *p2p,
                             const cm_matrix_t *coll, time_t now,
                             cm_error_t *err);

struct cm_raw_profile;   /* src/profiles/raw.h */

/** A one-run profile of a raw profile (the PMPI library's output) for
 *  (@p uid, @p user, @p job_name), task count = the raw rank count, with the
 *  raw file's "jobid.stepid" as its job id (when the raw file names one). */
cm_profile_t *cm_profile_from_raw(const struct cm_raw_profile *raw, uid_t uid,
                                  const char *user, const char *job_name,
                                  time_t now, cm_error_t *err);

/** Add @p jobid ("jobid.stepid") to the bounded list of job ids (the oldest
 *  is dropped past CM_PROFILE_MAX_JOBIDS).  Printable ASCII, 1..129 bytes. */
int cm_profile_add_jobid(cm_profile_t *p, const char *jobid, cm_error_t *err);

/** Change the key (what `profile import --job-name` does).  The matrices
 *  keep their rank count. */
int cm_profile_set_key(cm_profile_t *p, uid_t uid, const char *user,
                       const char *job_name, cm_error_t *err);

/** Merge: a new profile with, for every entry of the union of both sparsity
 *  patterns, value = (1 - w) * old + w * run (bytes and messages, each part);
 *  runs = old.runs + run.runs; first update of @p old, last update @p now;
 *  job ids of old then run (bounded); key of @p old.  @p weight is in
 *  (0, 1], or CM_PROFILE_WEIGHT_MEAN.  Different task counts are an error.
 *  Message counts are kept when both sides have them. */
cm_profile_t *cm_profile_merge(const cm_profile_t *old, const cm_profile_t *run,
                               double weight, time_t now, cm_error_t *err);

/** Parse a weight: a decimal number in (0, 1] or "mean". */
int cm_profile_weight_parse(const char *s, double *out);

/** A new matrix (caller frees) of the given part: p2p, coll, or their sum.
 *  cm_matrix_has_msgs() follows cm_profile_has_msgs(). */
cm_matrix_t *cm_profile_matrix(const cm_profile_t *p, cm_part_t part,
                               cm_error_t *err);

/** The stored matrix of one part (CM_PART_P2P or CM_PART_COLL), owned by the
 *  profile.  Never NULL: an absent part is an empty matrix. */
const cm_matrix_t *cm_profile_part(const cm_profile_t *p, cm_part_t part);

uid_t cm_profile_uid(const cm_profile_t *p);
const char *cm_profile_user(const cm_profile_t *p);
const char *cm_profile_job_name(const cm_profile_t *p);
int cm_profile_ntasks(const cm_profile_t *p);
long cm_profile_runs(const cm_profile_t *p);
int cm_profile_has_msgs(const cm_profile_t *p);
/** Seconds since the epoch (UTC). */
int64_t cm_profile_first_update(const cm_profile_t *p);
int64_t cm_profile_last_update(const cm_profile_t *p);
int cm_profile_njobids(const cm_profile_t *p);
/** Job id @p k, oldest first (0 <= k < njobids). */
const char *cm_profile_jobid(const cm_profile_t *p, int k);

/** The profile key of job @p job_name when it runs the executable at
 *  @p path (resolved; the text given when it cannot be): "<job name>@<file
 *  name of path>-<8 hex digits of the FNV-1a 64 hash of path>", so that two
 *  programs run under one job name (every script called job.sh) never share
 *  a profile.  The job name is cut to make the key fit CM_PROFILE_MAX_NAME.
 *  0, or -1 with @p err when @p job_name or @p path is empty. */
int cm_profile_program_key(const char *job_name, const char *path, char *out,
                           size_t size, cm_error_t *err);

/** The program part of a key made by cm_profile_program_key() (after its
 *  last '@'), or NULL when @p key has none (a name= profile, an import).
 *  *name_len gets the length of the job name part. */
const char *cm_profile_key_program(const char *key, size_t *name_len);

/** FNV-1a 64 over the canonical serialisation of the whole content (key,
 *  counters, timestamps, job ids, both matrices); docs/profile-format.md
 *  defines the byte stream.  Equal profiles have equal checksums. */
uint64_t cm_profile_checksum(const cm_profile_t *p);

void cm_profile_free(cm_profile_t *p);

/* -- JSON ------------------------------------------------------------------ */

/** The JSON document of @p p, malloc'd and NUL-terminated (*len without the
 *  NUL when @p len is not NULL).  Deterministic: equal profiles give equal
 *  bytes. */
char *cm_profile_to_json(const cm_profile_t *p, size_t *len, cm_error_t *err);

/** Write the JSON document to @p fd (all of it, retrying short writes). */
int cm_profile_write_json_fd(const cm_profile_t *p, int fd, const char *name,
                             cm_error_t *err);

/** Write the JSON document to @p path (created or truncated, mode 0644). */
int cm_profile_write_json(const cm_profile_t *p, const char *path,
                          cm_error_t *err);

/** Parse and validate a JSON document of @p len bytes (need not be
 *  NUL-terminated).  Every field is checked (presence, type, range, schema
 *  version, sorted and in-range entries, checksum); errors read
 *  "NAME: field 'p2p.entries[3][1]': expected ..., got ...". */
cm_profile_t *cm_profile_parse_json(const char *text, size_t len,
                                    const char *name, cm_error_t *err);

/* -- Binary form (docs/profile-format.md, "Binary form") -------- */

/** The store writes profiles of more entries (p2p and collective) than
 *  this in the binary form, smaller ones as JSON. */
#define CM_PROFILE_BIN_MIN_ENTRIES 16384

/** The binary form of @p p, malloc'd (*@p len bytes): the same content and
 *  checksum as the JSON document, entries delta-coded, the body deflated.
 *  Deterministic. */
char *cm_profile_to_bin(const cm_profile_t *p, size_t *len, cm_error_t *err);

/** Non-zero when @p data starts with the binary form's magic bytes. */
int cm_profile_is_bin(const void *data, size_t len);

/** Parse and validate a binary profile of @p len bytes whose inflated body
 *  may not exceed @p max_body bytes: the same checks as the JSON reader
 *  (ranges, names, job ids, non-zero entries, checksum), plus the header's
 *  version, flags and lengths; errors read "NAME: binary profile, FIELD at
 *  byte N of the body: ...". */
cm_profile_t *cm_profile_parse_bin(const void *data, size_t len, const char *name,
                                   size_t max_body, cm_error_t *err);

/** Read a profile from an open descriptor, JSON or binary (told by its
 *  first bytes): it must be a regular file of at
 *  most @p max_bytes (0: CM_PROFILE_DEFAULT_MAX_BYTES), checked with fstat
 *  before reading and enforced while reading; a binary body may inflate
 *  to at most 16 times that. */
cm_profile_t *cm_profile_read_json_fd(int fd, const char *name,
                                      size_t max_bytes, cm_error_t *err);

/** Open @p path without following a final symbolic link and read it as
 *  cm_profile_read_json_fd() does (JSON or binary). */
cm_profile_t *cm_profile_read_json(const char *path, size_t max_bytes,
                                   cm_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* CM_PROFILE_H */
