/*
 * profile_internal.h -- what profile.c, profile_json.c and the store share.
 * Not part of the public API (src/profiles/cm_store.h).
 */
#ifndef CM_PROFILE_INTERNAL_H
#define CM_PROFILE_INTERNAL_H

#include <dirent.h>

#include "cm_hash.h"
#include "cm_history.h"
#include "cm_profile.h"

/** Upper bound of the run counter (fits every JSON integer reader). */
#define CM_PROFILE_MAX_RUNS 2147483647L

struct cm_profile {
    uid_t uid;
    char *user;
    char *job_name;
    int ntasks;
    long runs;
    int has_msgs;
    int64_t first_update, last_update;
    int njobids;
    char *jobids[CM_PROFILE_MAX_JOBIDS];   /* oldest first */
    cm_matrix_t *part[2];                  /* p2p, coll; never NULL once built */
};

/** A profile with its key checked and set, runs = 1, no matrices yet. */
cm_profile_t *cm_profile_alloc(uid_t uid, const char *user,
                               const char *job_name, int ntasks,
                               cm_error_t *err);

/** wa * a + wb * b over the union of both patterns (either may be NULL);
 *  message counts are dropped (zero) unless @p has_msgs. */
cm_matrix_t *cm_profile_combine(int n, const cm_matrix_t *a, double wa,
                                const cm_matrix_t *b, double wb, int has_msgs,
                                cm_error_t *err);

/** "<what>: expected ..." unless @p s is a name of at most
 *  CM_PROFILE_MAX_NAME bytes (non-empty unless @p allow_empty). */
int cm_profile_check_name(const char *what, const char *s, int allow_empty,
                          cm_error_t *err);

/** Same for a job id: 1..CM_PROFILE_MAX_JOBID printable ASCII bytes. */
int cm_profile_check_jobid(const char *what, const char *s, cm_error_t *err);

/** A growable byte buffer, NUL-terminated (the JSON and binary writers):
 *  after a failed allocation it is marked failed and adds nothing more. */
typedef struct cm_sbuf {
    char *s;
    size_t len, cap;
    int failed;
} cm_sbuf_t;

void cm_sbuf_add(cm_sbuf_t *b, const void *data, size_t len);


#endif /* CM_PROFILE_INTERNAL_H */
