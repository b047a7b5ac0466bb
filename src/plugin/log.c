/*
 * log.c -- the plugin's messages.
 *
 * In srun (and sbatch/salloc) Slurm's log *is* the user's terminal: a
 * slurm_error() would print "srun: error: ..." next to our own line.  So
 * there a user-facing message is exactly one "clustermap: ..." line on
 * stderr, and Slurm's log gets it at debug level (srun -v shows it).  On
 * the nodes (slurmstepd) messages go to Slurm's log with slurm_error /
 * slurm_info, where the administrator finds them.
 *
 * A step srun leaves to Slurm therefore leaves two traces, written from one
 * string built in cmp_fallback(): the user's line, when the user asked for
 * placement, and CLUSTERMAP_FALLBACK, which travels with the step's
 * environment to slurmstepd, where the step's first node logs it at info
 * level in the slurmd log the administrator reads.
 *
 * Every line is escaped once formatted (cm_text.h): job names, program
 * names, paths, environment values and whatever the store says about a
 * user's files are the user's text, and slurmd's log and root's terminal
 * must not obey a control byte in it or take a newline in it for a line
 * of their own.  Callers pass values as they are.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "cm_text.h"
#include "plugin.h"
#include "plugin_spank.h"

#define FALLBACK_SUFFIX "; using Slurm's default placement"

static cmp_loglevel_t log_level = CMP_LOG_ERROR;
static int log_remote = 0;
static int req_asked, req_verbose;
static int user_fd = 2;   /* the job's stderr, as far as srun can tell */

/* What is logged of a line that could not be formatted. */
#define LOST "a message was lost: out of memory"

/* The escaped line of @p fmt and @p ap, malloc'd (NULL when out of
 * memory); at its full length. */
static char *vformat(const char *fmt, va_list ap)
{
    char *raw;
    if (vasprintf(&raw, fmt, ap) < 0)
        return NULL;
    char *line = cm_text_escape(raw);
    free(raw);
    return line;
}

/* char *line formatted from the variadic function's own arguments and
 * escaped, NULL when out of memory; the function frees it. */
#define FORMAT_LINE(line, fmt)                          \
    char *line;                                         \
    do {                                                \
        va_list ap_;                                    \
        va_start(ap_, fmt);                             \
        line = vformat(fmt, ap_);                       \
        va_end(ap_);                                    \
    } while (0)
#define SHOWN(line) ((line) ? (line) : LOST)

void cmp_log_init(cmp_loglevel_t level)
{
    log_level = level;
}

void cmp_log_set_remote(int remote)
{
    log_remote = remote;
}

void cmp_log_user_fd(int fd)
{
    user_fd = fd;
}

void cmp_log_request(int asked, int verbose)
{
    req_asked = asked;
    req_verbose = verbose;
}

/* Whether a line reaches the job's stderr.  `verbose` is the user asking
 * to see everything, loglevel=quiet the administrator asking for silence,
 * loglevel=info for a line on every step; by default only the user who
 * asked for placement hears why it did not happen -- a mode that comes
 * from plugstack's default= stays silent. */
static int user_shows(int is_error)
{
    if (req_verbose)
        return 1;
    if (log_level == CMP_LOG_QUIET)
        return 0;
    if (log_level >= CMP_LOG_INFO)
        return 1;
    return is_error && req_asked;
}

/* @p line is escaped (NULL: lost). */
static void emit(int is_error, int show, const char *line)
{
    line = SHOWN(line);
    if (log_remote) {
        if (is_error)
            slurm_error("clustermap: %s", line);
        else
            slurm_info("clustermap: %s", line);
        return;
    }
    if (show)
        dprintf(user_fd, "clustermap: %s\n", line);
    slurm_debug("clustermap: %s", line);
}

void cmp_fallback(cmp_fallback_kind_t kind, const char *note, const char *fmt, ...)
{
    static int done;
    char *reason = NULL, *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&reason, fmt, ap) < 0)
        reason = NULL;
    va_end(ap);
    /* whole: slurmstepd reads it back at its full length */
    if (!reason || asprintf(&line, "%s" FALLBACK_SUFFIX "%s", reason, note ? note : "") < 0)
        line = NULL;
    free(reason);
    /* shown escaped here; handed over as it is, slurmstepd escapes it */
    char *shown = line ? cm_text_escape(line) : NULL;
    if (done++) {   /* a step has one reason: the first */
        slurm_debug("clustermap: %s", SHOWN(shown));
    } else if (kind == CMP_NOTHING_TO_DO) {
        emit(0, req_verbose, shown);
    } else {
        emit(1, user_shows(1), shown);
        if (!log_remote && line)
            setenv(CMP_ENV_FALLBACK, line, 1);
    }
    free(shown);
    free(line);
}

/* The value of @p var that srun handed over, on the step's first node
 * (one record per step), with the step's ids; NULL elsewhere, when unset,
 * or in a batch or extern step, which inherit it from wherever sbatch ran.
 * Taken out of the tasks' environment on every node: srun's, not theirs.
 * A value that cannot be read whole (over CMP_ENV_VALUE_MAX) is the error,
 * named, not cut. */
static char *step_value(spank_t sp, const char *var, uint32_t *job, uint32_t *stepid,
                        uid_t *uid)
{
    uint32_t node = 1;
    cm_error_t err = { "" };
    char *line = cmp_spank_getenv_all(sp, var, &err);
    if (!line && !err.msg[0])
        return NULL;   /* not set */
    spank_unsetenv(sp, var);
    if (spank_get_item(sp, S_JOB_NODEID, &node) != ESPANK_SUCCESS || node != 0 ||
        spank_get_item(sp, S_JOB_STEPID, stepid) != ESPANK_SUCCESS ||
        *stepid == SLURM_BATCH_SCRIPT || *stepid == SLURM_EXTERN_CONT ||
        spank_get_item(sp, S_JOB_ID, job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, uid) != ESPANK_SUCCESS) {
        free(line);
        return NULL;
    }
    return line ? line : strdup(err.msg);
}

void cmp_log_step_fallback(spank_t sp)
{
    uint32_t job = 0, stepid = 0;
    uid_t uid = 0;
    char *line = step_value(sp, CMP_ENV_FALLBACK, &job, &stepid, &uid);
    if (!line)
        return;
    /* The user's environment can set it too (srun --export): a forged
     * value stays one line of the log. */
    char *shown = cm_text_escape(line);
    slurm_info("clustermap: job %u.%u uid %lu: %s", job, stepid, (unsigned long)uid,
               SHOWN(shown));
    free(shown);
    free(line);
}

void cmp_log_step_gpu_notes(spank_t sp)
{
    uint32_t job = 0, stepid = 0;
    uid_t uid = 0;
    char *text = step_value(sp, CMP_ENV_GPU_NOTES, &job, &stepid, &uid);
    /* one log line per line srun wrote, each escaped */
    for (char *l = text, *end; l && *l; l = end ? end + 1 : l + strlen(l)) {
        if ((end = strchr(l, '\n')))
            *end = '\0';
        char *shown = cm_text_escape(l);
        slurm_info("clustermap: job %u.%u uid %lu: %s", job, stepid, (unsigned long)uid,
                   SHOWN(shown));
        free(shown);
    }
    free(text);
}

void cmp_user_error(const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    emit(1, user_shows(1), line);
    free(line);
}

void cmp_user_info(int force, const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    emit(0, force || user_shows(0), line);
    free(line);
}

void cmp_user_notice(const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    emit(0, 1, line);
    free(line);
}

void cmp_admin_error(const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    if (log_remote)
        slurm_error("clustermap: %s", SHOWN(line));
    else
        slurm_debug("clustermap: %s", SHOWN(line));
    free(line);
}

void cmp_debug(const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    if (log_level >= CMP_LOG_DEBUG && !log_remote)
        fprintf(stderr, "clustermap: debug: %s\n", SHOWN(line));
    slurm_debug("clustermap: %s", SHOWN(line));
    free(line);
}

void cmp_log_info(const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    slurm_info("clustermap: %s", SHOWN(line));
    free(line);
}

void cmp_log_error(const char *fmt, ...)
{
    FORMAT_LINE(line, fmt);
    slurm_error("clustermap: %s", SHOWN(line));
    free(line);
}
