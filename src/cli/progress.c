/*
 * progress.c -- what a long command is doing, on a terminal: one line on
 * stderr, rewritten in place ("clustermap plan: planning: scotch-ms, 3.2 s"),
 * once the command has run for two seconds, and erased when it ends.
 * Nothing when stderr is not a terminal or with --quiet.
 *
 * A thread of its own draws the line every quarter second: the phases that
 * take long (reading a large matrix, a construction of the planner) are
 * single calls that could not report from inside.  The command names its
 * phases; the thread only reads the current one.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define QUIET_FOR 2.0    /* seconds before the first line */
#define TICK_NS 250000000L
#define WIDTH 78

struct cm_cli_progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    const char *cmd;
    char phase[96];
    double start;
    int done, drawn;
};

static void draw(cm_cli_progress_t *p, double now)
{
    char line[WIDTH + 1];
    int len = snprintf(line, sizeof line, "clustermap %s: %s, %.1f s", p->cmd, p->phase,
                       now - p->start);
    if (len < 0)
        return;
    if (len > WIDTH)
        len = WIDTH;
    fprintf(stderr, "\r%-*.*s", WIDTH, len, line);
    fflush(stderr);
    p->drawn = 1;
}

static void *run(void *arg)
{
    cm_cli_progress_t *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->done) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        double now = cm_cli_now();
        if (!p->done && now - p->start >= QUIET_FOR)
            draw(p, now);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

cm_cli_progress_t *cm_cli_progress_start(const char *cmd, int quiet)
{
    if (quiet || !isatty(STDERR_FILENO))
        return NULL;
    cm_cli_progress_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;   /* progress is a courtesy: the command goes on */
    p->cmd = cmd;
    p->start = cm_cli_now();
    snprintf(p->phase, sizeof p->phase, "starting");
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->wake);
        free(p);
        return NULL;
    }
    return p;
}

void cm_cli_progress_phase(cm_cli_progress_t *p, const char *fmt, ...)
{
    if (!p)
        return;
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&p->lock);
    vsnprintf(p->phase, sizeof p->phase, fmt, ap);
    pthread_mutex_unlock(&p->lock);
    va_end(ap);
}

void cm_cli_progress_end(cm_cli_progress_t *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    if (p->drawn) {   /* leave the terminal as it was */
        fprintf(stderr, "\r%*s\r", WIDTH, "");
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    free(p);
}

/* cm_plan_options_t's callback: the candidate the planner starts. */
void cm_cli_progress_plan(const char *stage, void *arg)
{
    cm_cli_progress_phase(arg, "planning: %s", stage);
}
