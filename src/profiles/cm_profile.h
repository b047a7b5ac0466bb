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
 * Conventions are those of clustermap.h: opaque handles, cm_error_t last
 * (may be NULL), NULL or -1 on failure with a message naming the file and
 * the field; a NULL handle or required pointer is such a failure, never a
 * crash (test/unit/test_profiles_null.c calls every function this way).
 * Strings passed in are copied when the profile keeps them; strings the
 * accessors return belong to the profile and stay valid until it is freed
 * or, for the key, until cm_profile_set_key() replaces it.  A profile is
 * not changed by a call that fails.
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

/** Largest JSON document a reader parses (16 MiB), whatever the file size
 *  limit: json-c needs 17 to 45 bytes of memory a byte of document (the
 *  most for minimal entries), so this holds a JSON profile to about 750 MB,
 *  as CM_PROFILE_MAX_ENTRIES holds a binary one to about 700 MB.  The store
 *  writes JSON only for profiles far below it (CM_PROFILE_BIN_MIN_ENTRIES). */
#define CM_PROFILE_JSON_MAX_BYTES ((size_t)16 << 20)

/** Largest task count a profile may have (1 << 20 = 1048576 ranks). */
#define CM_PROFILE_MAX_TASKS (1 << 20)

/** Longest job name / user name, in bytes (without the NUL).  A job name
 *  is 1..255 bytes, a user name 0..255; any byte but NUL is allowed. */
#define CM_PROFILE_MAX_NAME 255

/** Longest job id string ("jobid.stepid"), in bytes (without the NUL);
 *  job ids are printable ASCII without blanks (0x21..0x7e). */
#define CM_PROFILE_MAX_JOBID 129

/** How many job ids a profile keeps (the most recent ones; adding one
 *  more drops the oldest). */
#define CM_PROFILE_MAX_JOBIDS 32

/** Default merge weight of a new run (see cm_profile_merge). */
#define CM_PROFILE_DEFAULT_WEIGHT 0.5

/** Weight value meaning "cumulative mean": w = run.runs / (old.runs +
 *  run.runs), so that every run merged counts the same. */
#define CM_PROFILE_WEIGHT_MEAN (-1.0)

/** Which traffic of a profile. */
typedef enum cm_part {
    CM_PART_P2P = 1,  /**< point-to-point sends */
    CM_PART_COLL = 2, /**< collectives, as logical per-destination volume */
    CM_PART_ALL = 3   /**< both, summed */
} cm_part_t;

/** Parse "p2p", "coll" or "all" (exact, case-sensitive) into *@p out.
 *  0, or -1 with *@p out untouched for any other text, a NULL @p name or a
 *  NULL @p out. */
int cm_part_parse(const char *name, cm_part_t *out);

/* ------------------------------------------------------------------------ */
/* Profiles                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct cm_profile cm_profile_t;

/** A one-run profile from matrices.  @p p2p and @p coll (either may be NULL
 *  for "no traffic", not both) must have @p ntasks ranks, 1 <= @p ntasks <=
 *  CM_PROFILE_MAX_TASKS; they are copied (the caller keeps and frees its
 *  matrices).  @p user is the user's name (informational; the uid is the
 *  key), 0..CM_PROFILE_MAX_NAME bytes; @p job_name 1..CM_PROFILE_MAX_NAME
 *  bytes; both copied.  The profile has runs = 1, first = last update =
 *  @p now, no job ids, and carries message counts when every matrix given
 *  has them.  Returns a profile the caller releases with cm_profile_free(),
 *  or NULL with @p err (both matrices NULL, a NULL or too long name, a task
 *  count out of range or unlike a matrix's, out of memory). */
cm_profile_t *cm_profile_new(uid_t uid, const char *user, const char *job_name,
                             int ntasks, const cm_matrix_t *p2p, const cm_matrix_t *coll,
                             time_t now, cm_error_t *err);

struct cm_raw_profile; /* src/profiles/raw.h */

/** A one-run profile of a raw profile (the PMPI library's output) for
 *  (@p uid, @p user, @p job_name), task count = the raw rank count, with the
 *  raw file's "jobid.stepid" as its job id (when the raw file names one).
 *  What cm_profile_new() does with the raw profile's matrices, which stay
 *  the caller's (cm_raw_release()).  Returns a profile the caller releases
 *  with cm_profile_free(), or NULL with @p err on the failures of
 *  cm_profile_new(), for a job id cm_profile_add_jobid() refuses and for
 *  a NULL @p raw (this function is built with the store). */
cm_profile_t *cm_profile_from_raw(const struct cm_raw_profile *raw, uid_t uid,
                                  const char *user, const char *job_name, time_t now,
                                  cm_error_t *err);

/** Add a copy of @p jobid ("jobid.stepid") to the bounded list of job ids
 *  (the oldest is dropped past CM_PROFILE_MAX_JOBIDS).  @p jobid is
 *  1..CM_PROFILE_MAX_JOBID bytes of printable ASCII without blanks.  0, or
 *  -1 with @p err and the list unchanged (NULL @p p or @p jobid, a job id
 *  out of those bounds, out of memory). */
int cm_profile_add_jobid(cm_profile_t *p, const char *jobid, cm_error_t *err);

/** Change the key (what `profile import --job-name` does): @p user and
 *  @p job_name are checked as cm_profile_new() checks them and copied; the
 *  strings cm_profile_user() and cm_profile_job_name() returned before are
 *  freed.  The matrices keep their rank count.  0, or -1 with @p err and
 *  the key unchanged (NULL @p p, a NULL or too long name, out of memory). */
int cm_profile_set_key(cm_profile_t *p, uid_t uid, const char *user, const char *job_name,
                       cm_error_t *err);

/** Merge: a new profile with, for every entry of the union of both sparsity
 *  patterns, value = (1 - w) * old + w * run (bytes and messages, each part);
 *  runs = old.runs + run.runs; first update of @p old, last update the later
 *  of @p now and old's; job ids of old then run (bounded); key of @p old.
 *  @p weight is in (0, 1], or CM_PROFILE_WEIGHT_MEAN.  Message counts are
 *  kept when both sides have them.  Neither input is changed.  Returns a
 *  new profile the caller releases with cm_profile_free(), or NULL with
 *  @p err (NULL @p old or @p run, different task counts, a weight out of
 *  range, a run counter past 2^31 - 1, out of memory). */
cm_profile_t *cm_profile_merge(const cm_profile_t *old, const cm_profile_t *run,
                               double weight, time_t now, cm_error_t *err);

/** Parse a weight into *@p out: a decimal number in (0, 1] (strtod syntax,
 *  the whole text) or "mean" (CM_PROFILE_WEIGHT_MEAN).  0, or -1 with
 *  *@p out untouched for anything else, NULL @p s or NULL @p out. */
int cm_profile_weight_parse(const char *s, double *out);

/** A new matrix of the given part: p2p, coll, or their sum (CM_PART_ALL);
 *  the caller releases it with cm_matrix_free().  cm_matrix_has_msgs()
 *  follows cm_profile_has_msgs().  A value of @p part with neither bit
 *  gives an empty matrix.  NULL with @p err for a NULL @p p or out of
 *  memory. */
cm_matrix_t *cm_profile_matrix(const cm_profile_t *p, cm_part_t part, cm_error_t *err);

/** The stored matrix of one part, owned by the profile (valid until
 *  cm_profile_free(); do not free it): CM_PART_COLL gives the collective
 *  part, any other value the point-to-point part.  Never NULL for a
 *  profile (an absent part is an empty matrix); NULL for a NULL @p p. */
const cm_matrix_t *cm_profile_part(const cm_profile_t *p, cm_part_t part);

/* The accessors below read the profile; for a NULL @p p they answer the
 * value their note gives. */

/** The user id of the key; (uid_t)-1 for NULL. */
uid_t cm_profile_uid(const cm_profile_t *p);
/** The user's name, owned by the profile (valid until cm_profile_free() or
 *  cm_profile_set_key()); may be empty; NULL for NULL. */
const char *cm_profile_user(const cm_profile_t *p);
/** The job name of the key, owned as cm_profile_user()'s; NULL for NULL. */
const char *cm_profile_job_name(const cm_profile_t *p);
/** The task count, 1..CM_PROFILE_MAX_TASKS; 0 for NULL. */
int cm_profile_ntasks(const cm_profile_t *p);
/** How many runs were merged into the profile, at least 1; 0 for NULL. */
long cm_profile_runs(const cm_profile_t *p);
/** Non-zero when every run merged had real message counts; 0 for NULL. */
int cm_profile_has_msgs(const cm_profile_t *p);
/** Seconds since the epoch (UTC) of the first run merged; 0 for NULL. */
int64_t cm_profile_first_update(const cm_profile_t *p);
/** Seconds since the epoch (UTC) of the last merge; 0 for NULL. */
int64_t cm_profile_last_update(const cm_profile_t *p);
/** How many job ids the profile keeps, 0..CM_PROFILE_MAX_JOBIDS; 0 for
 *  NULL. */
int cm_profile_njobids(const cm_profile_t *p);
/** Job id @p k, oldest first (0 <= k < njobids), owned by the profile:
 *  valid until cm_profile_free() or until cm_profile_add_jobid() drops it
 *  from a full list.  NULL for a NULL @p p or @p k out of range. */
const char *cm_profile_jobid(const cm_profile_t *p, int k);

/** The profile key of job @p job_name when it runs the executable at
 *  @p path (as the caller resolved it; this function reads no file system):
 *  "<job name>@<file name of path>-<8 hex digits of the FNV-1a 64 hash of
 *  path>", so that two programs run under one job name (every script called
 *  job.sh) never share a profile.  In the file name, bytes other than
 *  [A-Za-z0-9._-] become '_' and only its first 63 bytes are kept (the hash
 *  covers the whole path, so cut names stay apart); the job name is cut to
 *  make the key fit CM_PROFILE_MAX_NAME.  The key is written to @p out,
 *  NUL-terminated, which has room for @p size bytes (CM_PROFILE_MAX_NAME + 1
 *  always suffices).  0, or -1 with @p err and @p out untouched when
 *  @p job_name or @p path is NULL or empty, @p out is NULL or @p size is
 *  too small. */
int cm_profile_program_key(const char *job_name, const char *path, char *out, size_t size,
                           cm_error_t *err);

/** The program part of a key made by cm_profile_program_key() (after its
 *  last '@'), a pointer into @p key (valid as long as @p key is), or NULL
 *  when @p key has none (a name= profile, an import) or is NULL.
 *  *name_len (when @p name_len is not NULL) gets the length of the job name
 *  part: the whole key's when there is no program part, 0 for a NULL key. */
const char *cm_profile_key_program(const char *key, size_t *name_len);

/** FNV-1a 64 over the canonical serialisation of the whole content (key,
 *  counters, timestamps, job ids, both matrices); docs/profile-format.md
 *  defines the byte stream.  Equal profiles have equal checksums.  0 for a
 *  NULL @p p. */
uint64_t cm_profile_checksum(const cm_profile_t *p);

/** Release @p p, its strings and its matrices (NULL: no-op). */
void cm_profile_free(cm_profile_t *p);

/* -- JSON ------------------------------------------------------------------ */

/** The JSON document of @p p, malloc'd and NUL-terminated (*len without the
 *  NUL when @p len is not NULL); the caller frees it with free().
 *  Deterministic: equal profiles give equal bytes.  NULL with @p err (and
 *  *len untouched) for a NULL @p p or out of memory. */
char *cm_profile_to_json(const cm_profile_t *p, size_t *len, cm_error_t *err);

/** Write the JSON document to @p fd (all of it, retrying short writes);
 *  @p name is what messages call the file.  0, or -1 with @p err (NULL
 *  @p p, a write error; part of the document may then have been written).
 *  @p fd stays open. */
int cm_profile_write_json_fd(const cm_profile_t *p, int fd, const char *name,
                             cm_error_t *err);

/** Write the JSON document to @p path (created or truncated, mode 0644; a
 *  final symbolic link is not followed).  Not atomic: a reader may see
 *  part of the document while it is written.  0, or -1 with @p err (NULL
 *  @p p or @p path, cannot create, write error). */
int cm_profile_write_json(const cm_profile_t *p, const char *path, cm_error_t *err);

/** Parse and validate a JSON document of @p len bytes (need not be
 *  NUL-terminated; a NUL byte in it is an error), nested at most 8 deep.
 *  Every field is checked (presence, type, range, schema version, sorted
 *  and in-range entries, the limits CM_PROFILE_MAX_*, checksum); errors
 *  read "NAME: field 'p2p.entries[3][1]': expected ..., got ...", where
 *  NAME is @p name.  @p text is only read.  Returns a new profile the
 *  caller releases with cm_profile_free(), or NULL with @p err (NULL
 *  @p text, anything the checks refuse, more than CM_PROFILE_JSON_MAX_BYTES
 *  bytes: "NAME: JSON profile of N bytes is above the limit of 16777216
 *  bytes for a JSON profile ...", refused before parsing). */
cm_profile_t *cm_profile_parse_json(const char *text, size_t len, const char *name,
                                    cm_error_t *err);

/* -- Binary form (docs/profile-format.md, "Binary form") -------- */

/** The store writes profiles of more entries (p2p and collective) than
 *  this in the binary form, smaller ones as JSON. */
#define CM_PROFILE_BIN_MIN_ENTRIES 16384

/** The binary form of @p p, malloc'd (*@p len bytes, no terminator; the
 *  caller frees it with free()): the same content and checksum as the JSON
 *  document, entries delta-coded, the body deflated.  Deterministic.  NULL
 *  with @p err for a NULL @p p or @p len, or out of memory. */
char *cm_profile_to_bin(const cm_profile_t *p, size_t *len, cm_error_t *err);

/** Non-zero when the @p len bytes at @p data start with the binary form's
 *  magic bytes; 0 otherwise, for a NULL @p data or fewer bytes than the
 *  magic. */
int cm_profile_is_bin(const void *data, size_t len);

/** Parse and validate a binary profile of @p len bytes whose inflated body
 *  may not exceed @p max_body bytes: the same checks as the JSON reader
 *  (ranges, names, job ids, non-zero entries, checksum), plus the header's
 *  version, flags and lengths, and at most CM_PROFILE_MAX_ENTRIES entries.
 *  The body is inflated a window at a time and the matrices grow with the
 *  entries decoded: memory follows what was read, never what the header
 *  or a count claims.  Errors read "NAME: binary profile, FIELD at
 *  byte N of the body: ...".  @p data is only read.  Returns a new profile
 *  the caller releases with cm_profile_free(), or NULL with @p err (NULL
 *  @p data, no magic or a short header, anything the checks refuse). */
cm_profile_t *cm_profile_parse_bin(const void *data, size_t len, const char *name,
                                   size_t max_body, cm_error_t *err);

/** The most entries (p2p and collective together) a profile may hold:
 *  what bounds a reader's memory for one profile (20 bytes an entry in
 *  the matrices, twice that while the last part is built: at most about
 *  700 MB; docs/profile-format.md, "Memory ceiling").  A 10^6-rank 3-D
 *  halo holds about 6.3 million. */
#define CM_PROFILE_MAX_ENTRIES (1 << 24)

/** What a reader looking for one profile expects of it; compared as soon
 *  as the binary form's header is decoded, before any entry (the JSON
 *  document is compared once parsed). */
typedef struct cm_profile_expect {
    const char *job_name; /**< the key; NULL: any */
    int ntasks;           /**< 0: any */
    double deadline;      /**< CLOCK_MONOTONIC seconds past which reading
                               stops with an error (cm_profile_clock());
                               0: none */
} cm_profile_expect_t;

/** CLOCK_MONOTONIC now, in seconds: the clock of a deadline. */
double cm_profile_clock(void);

/** cm_profile_parse_bin() for a reader that expects @p want (may be
 *  NULL): a profile of another key is refused before its entries are
 *  decoded ("NAME: holds the profile of 'J' with N tasks, expected ...
 *  (fields 'job_name', 'ntasks')"), and decoding stops at the deadline
 *  ("NAME: binary profile: reading stopped at the deadline after N
 *  entries"). */
cm_profile_t *cm_profile_parse_bin_expect(const void *data, size_t len, const char *name,
                                          size_t max_body,
                                          const cm_profile_expect_t *want,
                                          cm_error_t *err);

/** cm_profile_read_json_fd() for a reader that expects @p want (may be
 *  NULL), as cm_profile_parse_bin_expect() says; a JSON document is parsed
 *  1 MiB at a time and parsing stops at the deadline ("NAME: JSON profile:
 *  reading stopped at the deadline after N of M bytes"). */
cm_profile_t *cm_profile_read_fd_expect(int fd, const char *name, size_t max_bytes,
                                        const cm_profile_expect_t *want, cm_error_t *err);

/** Read a profile from an open descriptor, JSON or binary (told by its
 *  first bytes): it must be a regular file of at most @p max_bytes (0:
 *  CM_PROFILE_DEFAULT_MAX_BYTES), checked with fstat before reading and
 *  enforced while reading; a binary body may inflate to at most 16 times
 *  that.  @p name is what messages call the file.  @p fd is read from its
 *  current offset and stays open.  Returns a new profile the caller
 *  releases with cm_profile_free(), or NULL with @p err (a bad descriptor,
 *  not a regular file, too large, a read error, what the parsers refuse). */
cm_profile_t *cm_profile_read_json_fd(int fd, const char *name, size_t max_bytes,
                                      cm_error_t *err);

/** Open @p path without following a final symbolic link and read it as
 *  cm_profile_read_json_fd() does (JSON or binary).  NULL with @p err also
 *  for a NULL @p path, a symbolic link or a file that cannot be opened. */
cm_profile_t *cm_profile_read_json(const char *path, size_t max_bytes, cm_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* CM_PROFILE_H */
