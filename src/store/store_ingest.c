/* store_ingest.c -- from a raw profile (the PMPI library's output) to the
 * store: what the SPANK plugin and `clustermap profile ingest` call. */
#include <stdio.h>
#include <string.h>

#include "store_internal.h"
#include "raw.h"

cm_profile_t *cm_profile_from_raw(const cm_raw_profile_t *raw, uid_t uid,
                                  const char *user, const char *job_name,
                                  time_t now, cm_error_t *err)
{
    char jobid[CM_PROFILE_MAX_JOBID + 64];
    if (!raw) {
        cm_error_set(err, "profile: expected a raw profile, got NULL");
        return NULL;
    }
    cm_profile_t *p = cm_profile_new(uid, user, job_name, raw->nranks, raw->p2p,
                                     raw->coll, now, err);
    if (!p)
        return NULL;
    if (raw->jobid[0]) {
        if (raw->stepid[0])
            snprintf(jobid, sizeof jobid, "%s.%s", raw->jobid, raw->stepid);
        else
            snprintf(jobid, sizeof jobid, "%s", raw->jobid);
        if (cm_profile_add_jobid(p, jobid, err) < 0) {
            cm_profile_free(p);
            return NULL;
        }
    }
    return p;
}

int cm_store_ingest(cm_store_t *s, const char *raw_path, const char *job_name,
                    double weight, long *runs_out, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    cm_raw_profile_t raw;
    cm_profile_t *run;
    time_t now = time(NULL);
    int rc;

    memset(&raw, 0, sizeof raw);
    if (!raw_path)
        return cm_error_set(err, "store: expected a raw profile's path, got NULL");
    if (cm_raw_read(raw_path, cm_store_max_bytes(s), &raw, err) < 0)
        return -1;
    run = cm_profile_from_raw(&raw, cm_store_uid(s), cm_store_user(s),
                              job_name, now, err);
    cm_raw_release(&raw);
    if (!run)
        return -1;
    rc = cm_store_merge(s, run, weight, 0, now, runs_out, err);
    cm_profile_free(run);
    return rc;
}
