/*
 * log.c -- the plugin's messages.
 *
 * In srun (and sbatch/salloc) Slurm's log *is* the user's terminal: a
 * slurm_error() would print "srun: error: ..." next to our own line.  So
 * there a user-facing message is exactly one "clustermap: ..." line on
 * stderr, and Slurm's log gets it at debug level (srun -v shows it).  On
 * the nodes (slurmstepd) messages go to Slurm's log with slurm_error /
 * slurm_info, where the administrator finds them.
 */
#include <stdarg.h>
#include <stdio.h>

#include <slurm/spank.h>

#include "plugin.h"
#include "plugin_spank.h"

static cmp_loglevel_t log_level = CMP_LOG_ERROR;
static int log_remote = 0;

void cmp_log_init(cmp_loglevel_t level)
{
    log_level = level;
}

void cmp_log_set_remote(int remote)
{
    log_remote = remote;
}

static void emit(int is_error, int to_user, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    if (log_remote) {
        if (is_error)
            slurm_error("clustermap: %s", line);
        else
            slurm_info("clustermap: %s", line);
        return;
    }
    if (to_user) {
        fprintf(stderr, "clustermap: %s\n", line);
        fflush(stderr);
    }
    slurm_debug("clustermap: %s", line);
}

void cmp_user_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(1, log_level >= CMP_LOG_ERROR, fmt, ap);
    va_end(ap);
}

void cmp_user_info(int force, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(0, force || log_level >= CMP_LOG_INFO, fmt, ap);
    va_end(ap);
}

void cmp_debug(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (log_level >= CMP_LOG_DEBUG && !log_remote)
        fprintf(stderr, "clustermap: debug: %s\n", line);
    slurm_debug("clustermap: %s", line);
}

void cmp_log_info(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    slurm_info("clustermap: %s", line);
}

void cmp_log_error(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    slurm_error("clustermap: %s", line);
}
