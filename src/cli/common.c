/* common.c -- error reporting, number printing and parsing for the command. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "cm_text.h"

/* "clustermap CMD: <message>" on stderr, the message escaped (cm_text.h):
 * it may name a user's job, program or file, read from a store that root
 * lists or prunes. */
static void say(const char *cmd, const char *fmt, va_list ap)
{
    char *msg = NULL;
    fprintf(stderr, "clustermap %s: ", cmd);
    if (vasprintf(&msg, fmt, ap) < 0) {
        fputs("out of memory", stderr);
        return;
    }
    cm_text_fputs(msg, stderr);
    free(msg);
}

int cm_cli_fail(int status, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

int cm_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'clustermap %s --help'.\n", cmd);
    return CM_EXIT_USAGE;
}

void cm_cli_print_time(FILE *f, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];
    if (gmtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        fputs(buf, f);
    else
        fprintf(f, "%lld", (long long)t);
}

void cm_cli_print_number(FILE *f, double x)
{
    /* Below 2^53 every integer is exact, so "%.0f" prints it digit for
     * digit; anything else gets the shortest form that reads back equal. */
    if (isfinite(x) && x == floor(x) && fabs(x) < 9007199254740992.0)
        fprintf(f, "%.0f", x == 0 ? 0.0 : x);
    else
        fprintf(f, "%.17g", x);
}

int cm_cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

double cm_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cm_cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *text = optind > 0 ? argv[optind - 1] : "?";

    if (c == ':')
        return cm_cli_usage_error(cmd, "option '%s' needs an argument", text);
    if (optopt > 0 && optopt < 0x100 && text[0] == '-' && text[1] != '-')
        return cm_cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cm_cli_usage_error(cmd, "unknown option '%s'", text);
}

int cm_cli_output_fail(const char *cmd, const char *path, const char *msg)
{
    struct stat st;
    /* A name for something that is neither a file nor a directory
     * (/dev/stdout, a FIFO) was likely meant as a stream; a missing
     * directory or a file of another user was not. */
    int stream = lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
                 !S_ISDIR(st.st_mode);

    return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s%s", msg, stream ?
                       " (use --output - for standard output)" : "");
}

int cm_cli_output_open(cm_cli_output_t *out, const char *cmd, const char *path)
{
    cm_error_t err = { "" };

    out->cmd = cmd;
    out->path = NULL;
    out->f = stdout;
    out->file = NULL;
    if (!path || strcmp(path, "-") == 0)
        return CM_EXIT_OK;
    out->file = cm_file_atomic_open(path, &err);
    if (!out->file)
        return cm_cli_output_fail(cmd, path, err.msg);
    out->path = path;
    out->f = cm_file_atomic_stream(out->file);
    return CM_EXIT_OK;
}

int cm_cli_output_close(cm_cli_output_t *out, int status)
{
    cm_error_t err = { "" };

    if (out->file) {
        if (status != CM_EXIT_OK)
            cm_file_atomic_abort(out->file);
        else if (cm_file_atomic_commit(out->file, &err) != 0)
            status = cm_cli_output_fail(out->cmd, out->path, err.msg);
    } else if ((fflush(stdout) != 0 || ferror(stdout)) && status == CM_EXIT_OK) {
        status = cm_cli_fail(CM_EXIT_FAIL, out->cmd, "standard output: write "
                             "failed: %s", strerror(errno));
    }
    out->file = NULL;
    out->f = NULL;
    return status;
}
