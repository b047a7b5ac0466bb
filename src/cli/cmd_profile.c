/*
 * cmd_profile.c -- `clustermap profile`: the profile store from the command
 * line (list, show, export, import, merge, ingest, delete, reset, prune).
 * The store and the file format are described in docs/profile-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cm_store.h"
#include "cm_text.h"
#include "raw.h"

/* Options, as bits of what each action accepts. */
enum {
    O_STORE = 1 << 0, O_USER = 1 << 1, O_JOB = 1 << 2, O_NTASKS = 1 << 3,
    O_FORMAT = 1 << 4, O_PART = 1 << 5, O_OUTPUT = 1 << 6, O_WEIGHT = 1 << 7,
    O_FORCE = 1 << 8, O_MAXB = 1 << 9, O_TOP = 1 << 10, O_OLDER = 1 << 11,
    O_UNUSED = 1 << 12, O_DRY = 1 << 13, O_NOW = 1 << 14, O_ALL = 1 << 15,
    O_PARTIAL = 1 << 16
};

/* Longest --older-than / --unused-for, in days. */
#define MAX_DAYS 100000
/* Latest --now: 9999-12-31T23:59:59Z, as for the profile's dates. */
#define MAX_NOW 253402300799LL

typedef struct popts {
    const char *cmd;          /* "profile show", for messages */
    const char *store, *user, *job_name, *format, *output;
    int ntasks;               /* -1: not given */
    cm_part_t part;
    double weight;
    int force, top, given;
    int64_t older_than, unused_for;  /* prune: seconds, -1 when not given */
    int64_t now;              /* prune: --now, -1 when not given */
    int dry_run, all_users;
    int partial;              /* import/merge: a run with ranks missing */
    char program[CM_STORE_PROGRAM_MAX]; /* import: what every raw part named */
    size_t max_bytes;
    uid_t uid;                /* --user, or the caller */
    char uname[CM_PROFILE_MAX_NAME + 1];
    char *arg;                /* the positional argument (NAME or FILE) */
} popts_t;

typedef struct action {
    const char *name;
    int (*run)(popts_t *o);
    int accepts;              /* O_* */
    int arg;                  /* 1: one positional argument */
    const char *synopsis;
    const char *help;
} action_t;

static const action_t *find_action(const char *name);

/* ---- helpers ---------------------------------------------------------------- */

/* --user NAME|UID (default: the caller). */
static int resolve_user(popts_t *o)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    uint64_t v;

    if (!o->user) {
        o->uid = getuid();
    } else if (cm_cli_parse_u64(o->user, UINT32_MAX - 1, &v) == 0) {
        o->uid = (uid_t)v;
    } else if (getpwnam_r(o->user, &pw, buf, sizeof buf, &res) == 0 && res) {
        o->uid = pw.pw_uid;
    } else {
        return cm_cli_usage_error(o->cmd, "--user '%s': no such user (give a "
                                  "name or a numeric uid)", o->user);
    }
    return 0;
}

/* Writing into someone else's profiles needs root; reading is left to the
 * kernel (the user directories are 0700), which gives the clearer error. */
static int check_write_access(const popts_t *o)
{
    if (getuid() != 0 && o->uid != getuid())
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "permission denied: only root "
                           "may write the profiles of uid %lu (you are uid %lu)",
                           (unsigned long)o->uid, (unsigned long)getuid());
    return 0;
}

static cm_store_t *open_store(popts_t *o, int flags)
{
    cm_error_t err = { "" };
    cm_store_t *s = cm_store_open(o->store, o->uid, flags, o->max_bytes, &err);
    if (!s)
        cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    else
        snprintf(o->uname, sizeof o->uname, "%s", cm_store_user(s));
    return s;
}

static int need(const popts_t *o, int what)
{
    if ((what & O_JOB) && !o->job_name)
        return cm_cli_usage_error(o->cmd, "missing --job-name NAME");
    if ((what & O_NTASKS) && o->ntasks < 0)
        return cm_cli_usage_error(o->cmd, "missing --ntasks N");
    return 0;
}

/* NAME without a program part names the profile of that job name: the
 * one stored under exactly that name (name=, import), else the only
 * "NAME@PROGRAM-HASH" with that task count; several are an error that
 * lists them.  o->arg becomes the full key.  0 or the exit status. */
static int resolve_key(popts_t *o, cm_store_t *s)
{
    static char key[CM_PROFILE_MAX_NAME + 1];
    cm_error_t err = { "" };
    cm_store_entry_t *e;
    int n, found = 0, exact = 0;
    char names[1024] = "";
    size_t used = 0, nl;

    if (cm_profile_key_program(o->arg, NULL) || cm_store_list(s, &e, &n, &err) < 0)
        return 0;   /* a full key; or listing fails, and loading says why */
    for (int k = 0; k < n && !exact; k++) {
        if (!e[k].valid || e[k].ntasks != o->ntasks)
            continue;
        if (!strcmp(e[k].job_name, o->arg)) {
            exact = 1;
            break;
        }
        if (!cm_profile_key_program(e[k].job_name, &nl) || nl != strlen(o->arg) ||
            strncmp(e[k].job_name, o->arg, nl))
            continue;
        if (!found++)
            snprintf(key, sizeof key, "%s", e[k].job_name);
        int w = snprintf(names + used, sizeof names - used, "%s'%s'", used ? ", " : "",
                         e[k].job_name);
        if (w > 0 && (size_t)w < sizeof names - used)
            used += (size_t)w;
    }
    free(e);
    if (exact || !found)
        return 0;
    if (found > 1)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "'%s' with %d tasks names %d "
                           "profiles, one per program: %s; give the whole name",
                           o->arg, o->ntasks, found, names);
    o->arg = key;
    return 0;
}

static int load(popts_t *o, cm_store_t *s, cm_profile_t **p)
{
    cm_error_t err = { "" };
    int rc = resolve_key(o, s);
    if (rc)
        return rc;
    rc = cm_store_load(s, o->arg, o->ntasks, p, &err);
    if (rc < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    if (rc == 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "no profile '%s' with %d "
                           "tasks for uid %lu in %s", o->arg, o->ntasks,
                           (unsigned long)o->uid, cm_store_dir(s));
    return 0;
}

/* Input format of import/merge: explicit, or by content. */
typedef enum { IN_MATRIX, IN_RAW, IN_JSON } input_kind_t;

static int sniff(const popts_t *o, input_kind_t *kind, cm_format_t *fmt)
{
    char head[64];
    ssize_t n;
    int fd;
    const char *c;

    *fmt = CM_FORMAT_AUTO;
    if (o->format && strcmp(o->format, "auto")) {
        if (strcmp(o->format, "raw") == 0)
            *kind = IN_RAW;
        else if (strcmp(o->format, "json") == 0)
            *kind = IN_JSON;
        else if (cm_format_parse(o->format, fmt) == 0)
            *kind = IN_MATRIX;
        else
            return cm_cli_usage_error(o->cmd, "--format '%s': expected auto, "
                                      "mtx, metis, triplets, raw or json",
                                      o->format);
        return 0;
    }
    fd = open(o->arg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s: %s", o->arg,
                           errno == ELOOP ? "is a symbolic link; refusing to "
                           "follow it" : strerror(errno));
    struct stat dst;
    if (fstat(fd, &dst) == 0 && S_ISDIR(dst.st_mode)) {
        close(fd);   /* a directory of one-rank parts (cm_raw_read) */
        *kind = IN_RAW;
        return 0;
    }
    n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s: %s", o->arg,
                           strerror(errno));
    head[n] = '\0';
    for (c = head; *c == ' ' || *c == '\t' || *c == '\n' || *c == '\r'; c++)
        ;
    if (strncmp(head, "clustermap-raw", 14) == 0)
        *kind = IN_RAW;
    else if (*c == '{')
        *kind = IN_JSON;
    else
        *kind = IN_MATRIX;
    return 0;
}

/* The file of import/merge as a profile of (o->uid, --job-name). */
static int read_input(popts_t *o, cm_profile_t **out)
{
    cm_error_t err = { "" };
    input_kind_t kind = IN_MATRIX;
    cm_format_t fmt;
    cm_profile_t *p = NULL;
    time_t now = time(NULL);
    int rc = sniff(o, &kind, &fmt);

    if (rc)
        return rc;
    if (kind == IN_JSON) {
        p = cm_profile_read_json(o->arg, o->max_bytes, &err);
        if (p && cm_profile_set_key(p, o->uid, o->uname, o->job_name ? o->job_name
                                    : cm_profile_job_name(p), &err) < 0) {
            cm_profile_free(p);
            p = NULL;
        }
    } else if ((rc = need(o, O_JOB)) != 0) {
        return rc;
    } else if (kind == IN_RAW) {
        cm_raw_profile_t raw;
        char ranks[160];
        memset(&raw, 0, sizeof raw);
        if (cm_raw_read_flags(o->arg, o->max_bytes, o->partial ? CM_RAW_PARTIAL : 0,
                              &raw, &err) < 0)
            return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s%s", err.msg,
                               strstr(err.msg, "refusing an incomplete profile")
                                   ? "; --partial imports it all the same" : "");
        /* One rank's part is one row of the run's matrix: stored as the
         * whole run, it would place the other ranks as if they were idle. */
        if (raw.rank >= 0 && raw.nmissing && !o->partial) {
            cm_raw_ranks_text(NULL, raw.rank, raw.nranks, ranks, sizeof ranks);
            rc = cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s: the part of rank %d of a run "
                             "of %d ranks, ranks %s missing; give the directory "
                             "of all its parts, or --partial to import this one "
                             "alone", o->arg, raw.rank, raw.nranks, ranks);
            cm_raw_release(&raw);
            return rc;
        }
        p = cm_profile_from_raw(&raw, o->uid, o->uname, o->job_name, now, &err);
        snprintf(o->program, sizeof o->program, "%s", raw.program);
        cm_raw_release(&raw);
    } else {
        struct stat st;
        cm_matrix_t *m;
        if (lstat(o->arg, &st) == 0 && S_ISLNK(st.st_mode))
            return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s: is a symbolic link; "
                               "refusing to follow it", o->arg);
        if (lstat(o->arg, &st) == 0 && (uintmax_t)st.st_size > o->max_bytes)
            return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s: file is %jd bytes, "
                               "more than the limit of %zu bytes", o->arg,
                               (intmax_t)st.st_size, o->max_bytes);
        m = cm_matrix_read(o->arg, fmt, &err);
        if (m) {
            p = cm_profile_new(o->uid, o->uname, o->job_name, cm_matrix_n(m), m,
                               NULL, now, &err);
            cm_matrix_free(m);
        }
    }
    if (!p)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    if (o->ntasks >= 0 && cm_profile_ntasks(p) != o->ntasks) {
        rc = cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s: has %d tasks, --ntasks "
                         "says %d", o->arg, cm_profile_ntasks(p), o->ntasks);
        cm_profile_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* ---- actions ------------------------------------------------------------------ */

static int do_list(popts_t *o)
{
    cm_error_t err = { "" };
    cm_store_entry_t *e;
    int n, bad = 0;
    cm_store_t *s = open_store(o, 0);

    if (!s)
        return CM_EXIT_FAIL;
    if (cm_store_list(s, &e, &n, &err) < 0) {
        cm_store_close(s);
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    }
    printf("%-32s %8s %6s %-20s %-20s %-10s %-12s %s\n", "NAME", "NTASKS",
           "RUNS", "LAST-UPDATE", "LAST-USE", "SIZE", "BYTES", "PROGRAM");
    for (int k = 0; k < n; k++) {
        if (!e[k].valid) {
            cm_cli_fail(CM_EXIT_FAIL, o->cmd, "skipping %s", e[k].error);
            bad = 1;
            continue;
        }
        size_t nl;
        const char *prog = cm_profile_key_program(e[k].job_name, &nl);
        char named[CM_STORE_PROGRAM_MAX];
        /* an imported profile's key has no program: its parts named one */
        if (!prog && cm_store_program_get(s, e[k].job_name, e[k].ntasks, named,
                                          sizeof named, &err) > 0)
            prog = named;
        else if (!prog && err.msg[0]) {
            cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
            err.msg[0] = '\0';
            bad = 1;
        }
        /* names and programs are the users': escaped (cm_text.h) */
        long w = cm_text_fwrite(e[k].job_name, nl, stdout);
        printf("%*s %8d %6ld ", w >= 0 && w < 32 ? 32 - (int)w : 0, "", e[k].ntasks,
               e[k].runs);
        cm_cli_print_time(stdout, e[k].last_update);
        putchar(' ');
        cm_cli_print_time(stdout, e[k].last_use);
        printf(" %-10llu", (unsigned long long)e[k].file_bytes);
        char bytes[64];
        FILE *m = fmemopen(bytes, sizeof bytes, "w");
        if (m) {
            cm_cli_print_number(m, e[k].p2p_bytes + e[k].coll_bytes);
            fclose(m);
        } else {
            snprintf(bytes, sizeof bytes, "?");
        }
        printf(" %-12s ", bytes);
        cm_text_fputs(prog ? prog : "-", stdout);
        putchar('\n');
    }
    free(e);
    cm_store_close(s);
    return bad ? CM_EXIT_FAIL : CM_EXIT_OK;
}

typedef struct talk {
    int src, dst;
    double bytes, msgs;
} talk_t;

static int talk_cmp(const void *a, const void *b)
{
    const talk_t *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static void print_part(FILE *f, const char *key, const cm_matrix_t *m)
{
    double bytes, msgs;
    cm_matrix_totals(m, &bytes, &msgs);
    fprintf(f, "%s.bytes=", key);
    cm_cli_print_number(f, bytes);
    fprintf(f, "\n%s.msgs=", key);
    cm_cli_print_number(f, msgs);
    fprintf(f, "\n%s.nnz=%zu\n", key, cm_matrix_nnz(m));
}

/* show's text format into @p f. */
static int print_summary(const popts_t *o, const cm_profile_t *p, FILE *f)
{
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_profile_matrix(p, o->part, &err);
    size_t nnz, len = 0;
    talk_t *t;
    double total;

    if (!m)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    /* the key and the job ids are what the file says: escaped (cm_text.h) */
    fputs("job_name=", f);
    cm_text_fputs(cm_profile_job_name(p), f);
    fputs("\nuser=", f);
    cm_text_fputs(cm_profile_user(p), f);
    fprintf(f, "\nuid=%lu\nntasks=%d\nruns=%ld\n", (unsigned long)cm_profile_uid(p),
            cm_profile_ntasks(p), cm_profile_runs(p));
    fprintf(f, "first_update=");
    cm_cli_print_time(f, cm_profile_first_update(p));
    fprintf(f, "\nlast_update=");
    cm_cli_print_time(f, cm_profile_last_update(p));
    fprintf(f, "\njobs=");
    for (int k = 0; k < cm_profile_njobids(p); k++) {
        fputs(k ? "," : "", f);
        cm_text_fputs(cm_profile_jobid(p, k), f);
    }
    fprintf(f, "\nhas_msgs=%d\n", cm_profile_has_msgs(p));
    print_part(f, "p2p", cm_profile_part(p, CM_PART_P2P));
    print_part(f, "coll", cm_profile_part(p, CM_PART_COLL));
    print_part(f, o->part == CM_PART_ALL ? "total" :
               o->part == CM_PART_P2P ? "selected.p2p" : "selected.coll", m);
    nnz = cm_matrix_nnz(m);
    t = malloc((nnz ? nnz : 1) * sizeof *t);
    if (!t) {
        cm_matrix_free(m);
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "out of memory");
    }
    for (int i = 0; i < cm_matrix_n(m); i++) {
        const int *cols;
        const double *bytes, *msgs;
        int rl;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &rl);
        for (int k = 0; k < rl; k++)
            t[len++] = (talk_t){ i, cols[k], bytes[k], msgs[k] };
    }
    qsort(t, len, sizeof *t, talk_cmp);
    cm_matrix_totals(m, &total, NULL);
    for (size_t k = 0; k < len && (int)k < o->top; k++) {
        fprintf(f, "top.%zu=%d %d ", k + 1, t[k].src, t[k].dst);
        cm_cli_print_number(f, t[k].bytes);
        fputc(' ', f);
        cm_cli_print_number(f, t[k].msgs);
        fprintf(f, " %.2f%%\n", total > 0 ? 100.0 * t[k].bytes / total : 0.0);
    }
    free(t);
    cm_matrix_free(m);
    return CM_EXIT_OK;
}

/* show's json format (export's only one) into @p f. */
static int write_json(const popts_t *o, const cm_profile_t *p, FILE *f)
{
    cm_error_t err = { "" };
    size_t len;
    char *text = cm_profile_to_json(p, &len, &err);

    if (!text)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    /* A short write sets the stream's error flag, which closing reports. */
    fwrite(text, 1, len, f);
    free(text);
    return CM_EXIT_OK;
}

/* The selected part as Matrix Market (bytes) or triplets (bytes and
 * messages, which `eval --matrix` then prices with their latency). */
static int write_matrix(const popts_t *o, const cm_profile_t *p, FILE *f,
                        int triplets)
{
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_profile_matrix(p, o->part, &err);
    int rc = CM_EXIT_OK;

    if (!m)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    if ((triplets ? cm_matrix_write_triplets(m, f, &err)
                  : cm_matrix_write_mtx(m, f, &err)) < 0)
        rc = cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    cm_matrix_free(m);
    return rc;
}

/* "program=NAME" when an import kept the name its parts gave (the key
 * of an imported profile has none); nothing otherwise. */
static int print_program(const popts_t *o, cm_store_t *s, const cm_profile_t *p,
                         FILE *f)
{
    cm_error_t err = { "" };
    char named[CM_STORE_PROGRAM_MAX];
    int rc = cm_store_program_get(s, cm_profile_job_name(p), cm_profile_ntasks(p), named,
                                  sizeof named, &err);

    if (rc < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    if (rc > 0) {
        fputs("program=", f);
        cm_text_fputs(named, f);
        fputc('\n', f);
    }
    return CM_EXIT_OK;
}

/* Write @p p in format @p fmt to --output (standard output by default);
 * a file is only put in place when all of it was written. */
static int write_profile(const popts_t *o, cm_store_t *s, const cm_profile_t *p,
                         const char *fmt)
{
    cm_cli_output_t out;
    int rc = cm_cli_output_open(&out, o->cmd, o->output);

    if (rc != CM_EXIT_OK)
        return rc;
    if (strcmp(fmt, "mtx") == 0 || strcmp(fmt, "triplets") == 0)
        rc = write_matrix(o, p, out.f, strcmp(fmt, "triplets") == 0);
    else if (strcmp(fmt, "json") == 0)
        rc = write_json(o, p, out.f);
    else if ((rc = print_summary(o, p, out.f)) == CM_EXIT_OK &&
             (rc = print_program(o, s, p, out.f)) == CM_EXIT_OK &&
             (rc = cm_cli_print_runs(out.f, o->cmd, s, o->arg, o->ntasks)) ==
                 CM_EXIT_OK)
        rc = cm_cli_print_trace(out.f, o->cmd, s, o->arg, o->ntasks);
    return cm_cli_output_close(&out, rc);
}

static int do_show(popts_t *o)
{
    cm_profile_t *p = NULL;
    cm_store_t *s;
    int rc;
    const char *fmt = o->format ? o->format : "text";

    if (strcmp(fmt, "text") && strcmp(fmt, "mtx") && strcmp(fmt, "triplets") &&
        strcmp(fmt, "json"))
        return cm_cli_usage_error(o->cmd, "--format '%s': expected text, mtx, "
                                  "triplets or json", fmt);
    if ((rc = need(o, O_NTASKS)) != 0)
        return rc;
    s = open_store(o, 0);
    if (!s)
        return CM_EXIT_FAIL;
    rc = load(o, s, &p);
    if (rc == 0)
        rc = write_profile(o, s, p, fmt);
    cm_profile_free(p);
    cm_store_close(s);
    return rc;
}

static int do_export(popts_t *o)
{
    o->format = "json";
    return do_show(o);
}

/* What import and merge do with the profile read from o->arg. */
typedef int (*store_fn)(popts_t *o, cm_store_t *s, const cm_profile_t *p);

/* Read the input profile and hand it to @p fn with the store opened for
 * writing (created if need be). */
static int with_input(popts_t *o, store_fn fn)
{
    cm_profile_t *p = NULL;
    cm_store_t *s;
    int rc = check_write_access(o);

    if (rc)
        return rc;
    s = open_store(o, CM_STORE_CREATE);
    if (!s)
        return CM_EXIT_FAIL;
    rc = read_input(o, &p);
    if (rc == 0)
        rc = fn(o, s, p);
    cm_profile_free(p);
    cm_store_close(s);
    return rc;
}

static int import_into(popts_t *o, cm_store_t *s, const cm_profile_t *p)
{
    cm_error_t err = { "" };

    if (cm_store_save(s, p, o->force, &err) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s%s", err.msg,
                           strstr(err.msg, "exists already") ?
                           "; use --force to replace it" : "");
    printf("imported %s as '", o->arg);
    cm_text_fputs(cm_profile_job_name(p), stdout);
    printf("' with %d tasks for %s\n", cm_profile_ntasks(p), o->uname);
    /* kept beside the profile (its format has no field for it), for list
     * and show; a replaced profile loses the name of the one before */
    if (cm_store_program_set(s, cm_profile_job_name(p), cm_profile_ntasks(p),
                             o->program[0] ? o->program : NULL, &err) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s (the profile is imported, "
                           "without the program name)", err.msg);
    return 0;
}

static int merge_into(popts_t *o, cm_store_t *s, const cm_profile_t *p)
{
    cm_error_t err = { "" };
    long runs = 0;

    if (cm_store_merge(s, p, o->weight, CM_STORE_MUST_EXIST, time(NULL), &runs,
                       &err) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    printf("merged %s into '", o->arg);
    cm_text_fputs(cm_profile_job_name(p), stdout);
    printf("' with %d tasks: runs=%ld\n", cm_profile_ntasks(p), runs);
    return 0;
}

static int do_import(popts_t *o)
{
    return with_input(o, import_into);
}

static int do_merge(popts_t *o)
{
    return with_input(o, merge_into);
}

static int do_ingest(popts_t *o)
{
    cm_error_t err = { "" };
    cm_store_t *s;
    long runs = 0;
    int rc;

    if (!o->user)
        return cm_cli_usage_error(o->cmd, "missing --user USER");
    if ((rc = need(o, O_JOB)) != 0 || (rc = check_write_access(o)) != 0)
        return rc;
    s = open_store(o, CM_STORE_CREATE);
    if (!s)
        return CM_EXIT_FAIL;
    if (cm_store_ingest(s, o->arg, o->job_name, o->weight, &runs, &err) < 0)
        rc = cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    else
        printf("ingested %s into '%s' for %s: runs=%ld\n", o->arg, o->job_name,
               o->uname, runs);
    cm_store_close(s);
    return rc;
}

/* delete and reset: an action on one stored profile, named as by show. */
static int on_profile(popts_t *o, int (*act)(popts_t *o, cm_store_t *s))
{
    cm_store_t *s;
    int rc;

    if ((rc = need(o, O_NTASKS)) != 0 || (rc = check_write_access(o)) != 0)
        return rc;
    s = open_store(o, 0);
    if (!s)
        return CM_EXIT_FAIL;
    if ((rc = resolve_key(o, s)) == 0)
        rc = act(o, s);
    cm_store_close(s);
    return rc;
}

static int delete_one(popts_t *o, cm_store_t *s)
{
    cm_error_t err = { "" };
    if (cm_store_delete(s, o->arg, o->ntasks, &err) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    return CM_EXIT_OK;
}

static int reset_one(popts_t *o, cm_store_t *s)
{
    cm_error_t err = { "" };
    int had = cm_store_history_reset(s, o->arg, o->ntasks, &err);
    if (had < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    printf("%s the run history of '%s' with %d tasks: the guard starts again\n",
           had ? "forgot" : "there was no", o->arg, o->ntasks);
    /* the trace is evidence of earlier runs too (docs/overlays.md) */
    int trace = cm_store_trace_remove(s, o->arg, o->ntasks, &err);
    if (trace < 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    if (trace)
        printf("forgot the tnbc trace of '%s' with %d tasks\n", o->arg,
               o->ntasks);
    return CM_EXIT_OK;
}

static int do_delete(popts_t *o)
{
    return on_profile(o, delete_one);
}

static int do_reset(popts_t *o)
{
    return on_profile(o, reset_one);
}

/* prune: what one user's store lost (or would lose). */
typedef struct prune_out {
    const popts_t *o;
    const char *user;
} prune_out_t;

static void prune_report(const cm_store_entry_t *e, cm_prune_status_t st,
                         const char *msg, void *arg)
{
    const prune_out_t *p = arg;

    if (st == CM_PRUNE_FAILED) {
        cm_cli_fail(CM_EXIT_FAIL, p->o->cmd, "%s", msg);
        return;
    }
    /* cron mails this to root: the name is escaped (cm_text.h) */
    printf("%s ", p->o->dry_run ? "would remove" : "removed");
    cm_text_fputs(e->job_name, stdout);
    printf(" with %d tasks of ", e->ntasks);
    cm_text_fputs(p->user, stdout);
    fputs(" (last used ", stdout);
    cm_cli_print_time(stdout, e->last_use);
    printf(", %llu bytes)\n", (unsigned long long)e->file_bytes);
}

/* Prune the store of o->uid.  0, or 1 after the messages. */
static int prune_user(popts_t *o, const cm_prune_rule_t *r,
                      cm_prune_total_t *total)
{
    cm_error_t err = { "" };
    cm_store_t *s = open_store(o, 0);
    prune_out_t out = { o, NULL };
    int failed = total->failed, rc;

    if (!s)
        return 1;
    out.user = cm_store_user(s);
    rc = cm_store_prune(s, r, o->dry_run ? CM_PRUNE_DRY_RUN : 0, prune_report,
                        &out, total, &err);
    if (rc < 0 && total->failed == failed)   /* the listing itself failed */
        cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
    cm_store_close(s);
    return rc < 0;
}

static int do_prune(popts_t *o)
{
    cm_prune_total_t total = { 0, 0, 0, 0 };
    cm_prune_rule_t r = { o->now >= 0 ? o->now : (int64_t)time(NULL),
                          o->older_than, o->unused_for };
    cm_error_t err = { "" };
    int bad = 0, rc;

    if (o->older_than < 0 && o->unused_for < 0)
        return cm_cli_usage_error(o->cmd, "missing --older-than DAYS or "
                                  "--unused-for DAYS");
    if (o->all_users && o->user)
        return cm_cli_usage_error(o->cmd, "--all-users and --user exclude "
                                  "each other");
    if (o->all_users && getuid() != 0)
        return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "permission denied: only "
                           "root may prune the profiles of all users "
                           "(--all-users); you are uid %lu",
                           (unsigned long)getuid());
    if (!o->all_users) {
        if (!o->dry_run && (rc = check_write_access(o)) != 0)
            return rc;
        bad = prune_user(o, &r, &total);
    } else {
        uid_t *uids;
        int n;
        if (cm_store_uids(o->store, &uids, &n, &err) < 0)
            return cm_cli_fail(CM_EXIT_FAIL, o->cmd, "%s", err.msg);
        for (int k = 0; k < n; k++) {
            o->uid = uids[k];
            bad |= prune_user(o, &r, &total);
        }
        free(uids);
    }
    printf("%s %d profile%s (%llu bytes)",
           o->dry_run ? "would remove" : "removed", total.removed,
           total.removed == 1 ? "" : "s", (unsigned long long)total.bytes);
    if (total.skipped)
        printf("; %d user%s skipped (lock held)", total.skipped,
               total.skipped == 1 ? "" : "s");
    printf("\n");
    return bad ? CM_EXIT_FAIL : CM_EXIT_OK;
}

/* ---- command line ------------------------------------------------------------- */

static const action_t actions[] = {
    { "list", do_list, O_STORE | O_USER, 0, "list [--user U]",
      "The profiles of the user: name, task count, runs, last update (UTC),\n"
      "last use (UTC: the last update or the newest run in the profile's\n"
      "run history, whichever is later), size (bytes on disk of the profile\n"
      "and its side files), total bytes sent (p2p + coll), program (the\n"
      "file name and a hash of the path of what the job's srun launched;\n"
      "for an import of raw parts, the program they all named; '-' for\n"
      "name= and other imported profiles).  Where the program matters,\n"
      "NAME in the other actions is NAME@PROGRAM, or just NAME when one\n"
      "program has that task count.\n"
      "Invalid files are reported on stderr and make the exit status 1.\n" },
    { "show", do_show, O_STORE | O_USER | O_NTASKS | O_FORMAT | O_PART |
      O_OUTPUT | O_TOP | O_MAXB, 1,
      "show NAME --ntasks N [--format text|mtx|triplets|json]\n"
      "           [--part p2p|coll|all]\n"
      "           [--top K] [--output FILE] [--user U]",
      "Print a profile.  text (default): key=value lines (job_name, user, uid,\n"
      "ntasks, runs, first_update, last_update, jobs, has_msgs, then bytes,\n"
      "msgs and nnz of p2p, coll and the selected part) and the K (default\n"
      "10) largest entries as 'top.I=SRC DST BYTES MSGS PERCENT', then\n"
      "'program=' when an import of raw parts kept the name they gave, the\n"
      "run history ('history.runs=', 'run.K=' lines: job, date, placement,\n"
      "algorithm, program, times, predicted J) and the guard's decision\n"
      "('guard=place|default|probe', 'guard.why=') and whether a tnbc\n"
      "trace is kept ('tnbc.trace=none|kept|incomplete', its ranks, the\n"
      "call sites of rank 0's file, bytes).  mtx: the\n"
      "bytes of the selected part (default all) as Matrix Market.  triplets:\n"
      "'src dst bytes msgs' lines (0-based), messages included, for\n"
      "'clustermap eval/plan --matrix'.  json: the stored document.\n" },
    { "export", do_export, O_STORE | O_USER | O_NTASKS | O_OUTPUT | O_MAXB, 1,
      "export NAME --ntasks N [--output FILE] [--user U]",
      "Write the stored JSON document (to standard output by default).\n" },
    { "import", do_import, O_STORE | O_USER | O_JOB | O_NTASKS | O_FORMAT |
      O_FORCE | O_MAXB | O_PARTIAL, 1,
      "import FILE --job-name NAME [--format auto|mtx|metis|triplets|raw|json]\n"
      "           [--ntasks N] [--force] [--partial] [--user U]",
      "Store FILE as the profile of NAME (task count = its rank count).\n"
      "auto: 'clustermap-raw' first line -> raw, '{' -> json, else as\n"
      "'clustermap plan --matrix' reads it (Matrix Market, METIS, triplets).\n"
      "Matrix files become the p2p part of a one-run profile.  A json file\n"
      "keeps its runs, dates and jobs; --job-name defaults to its own.  An\n"
      "existing profile is only replaced with --force.  Raw input is a\n"
      "whole run: a directory with the part of every rank, which the\n"
      "profiling library writes there (part.<rank>.txt); one part file, or\n"
      "a directory lacking ranks, is refused with the missing ranks named,\n"
      "unless --partial.\n" },
    { "merge", do_merge, O_STORE | O_USER | O_JOB | O_NTASKS | O_FORMAT |
      O_WEIGHT | O_MAXB | O_PARTIAL, 1,
      "merge FILE --job-name NAME [--weight W] [--format F] [--partial]\n"
      "           [--user U]",
      "Merge FILE (read as by import) into the existing profile of NAME:\n"
      "every entry becomes (1 - W) * old + W * new; runs add up.\n" },
    { "ingest", do_ingest, O_STORE | O_USER | O_JOB | O_WEIGHT | O_MAXB, 1,
      "ingest RAW --user U --job-name NAME [--weight W]",
      "Merge a raw profile written by the profiling library into U's profile\n"
      "of NAME, creating it (and U's store directory) when needed; what the\n"
      "Slurm plugin does at the end of a job.  Root may ingest for any user\n"
      "(files are given to U); other users only for themselves.\n" },
    { "delete", do_delete, O_STORE | O_USER | O_NTASKS, 1,
      "delete NAME --ntasks N [--user U]",
      "Remove a profile (and its run history and tnbc trace).\n" },
    { "reset", do_reset, O_STORE | O_USER | O_NTASKS, 1,
      "reset NAME --ntasks N [--user U]",
      "Forget the run history of a profile, and with it the guard's\n"
      "decision: the next runs are placed again and timed afresh; and its\n"
      "tnbc trace.  The profile itself stays.\n" },
    { "prune", do_prune, O_STORE | O_USER | O_OLDER | O_UNUSED | O_DRY | O_NOW |
      O_ALL, 0,
      "prune [--older-than DAYS] [--unused-for DAYS] [--dry-run]\n"
      "           [--user U | --all-users] [--now EPOCH]",
      "Remove the profiles (with their run histories, tnbc traces and 'no\n"
      "MPI' marks) that match every condition given, at least one of:\n"
      "  --older-than DAYS  last updated more than DAYS days ago\n"
      "  --unused-for DAYS  last used more than DAYS days ago: neither\n"
      "                     updated nor run (timed runs in the history\n"
      "                     count) since\n"
      "Each removal takes the store's lock and judges the profile again as\n"
      "it is then.  One line per profile, 'removed NAME with N tasks of\n"
      "USER (last used DATE, SIZE bytes)', and a total line.  Invalid\n"
      "profiles are kept, reported on stderr, and make the exit status 1.\n"
      "  --dry-run          only say what would be removed\n"
      "  --all-users        every user of the store (root only)\n"
      "  --now EPOCH        judge as if the time were EPOCH (seconds since\n"
      "                     1970 UTC; for tests)\n"
      "Cron example: clustermap profile prune --all-users --unused-for 180\n" },
};

#define NACTIONS ((int)(sizeof actions / sizeof actions[0]))

static const action_t *find_action(const char *name)
{
    for (int k = 0; k < NACTIONS; k++)
        if (strcmp(actions[k].name, name) == 0)
            return &actions[k];
    return NULL;
}

static void common_help(FILE *f, int accepts)
{
    fprintf(f, "\nOptions:\n"
            "  --store DIR        store root (default $%s, else the store= of\n"
            "                     clustermap's line in Slurm's plugstack.conf,\n"
            "                     else %s)\n",
            CM_ENV_STORE, CM_STORE_DEFAULT_DIR);
    if (accepts & O_USER)
        fputs("  --user U           whose profiles: name or uid (default: you)\n",
              f);
    if (accepts & O_WEIGHT)
        fprintf(f, "  --weight W         weight of the new run, in (0, 1], or "
                "'mean'\n"
                "                     (1/runs: every run counts the same); "
                "default %g\n", CM_PROFILE_DEFAULT_WEIGHT);
    if (accepts & O_OUTPUT)
        fputs("  --output FILE      write there, not to standard output ('-');"
              "\n                     only a regular file of yours is replaced,"
              " whole\n", f);
    if (accepts & O_MAXB)
        fprintf(f, "  --max-bytes N      refuse input files larger than N bytes "
                "(default %zu)\n", CM_PROFILE_DEFAULT_MAX_BYTES);
    if (accepts & O_PARTIAL)
        fputs("  --partial          take raw input that lacks ranks (one part\n"
              "                     file, or a directory missing some): their\n"
              "                     rows stay empty\n", f);
    fputs("  -h, --help         this text\n", f);
}

static void usage(FILE *f)
{
    fputs("Usage: clustermap profile [--store DIR] <action> [options]\n\n"
          "The per-user store of communication profiles (docs/profile-format.md)."
          "\n\nActions:\n", f);
    for (int k = 0; k < NACTIONS; k++)
        fprintf(f, "  %s\n", actions[k].synopsis);
    common_help(f, O_USER | O_WEIGHT | O_MAXB);
    fputs("\n'clustermap profile <action> --help' describes an action.\n"
          "Example:\n"
          "  clustermap profile show lammps --ntasks 64\n", f);
}

static void action_usage(FILE *f, const action_t *a)
{
    fprintf(f, "Usage: clustermap profile %s\n\n%s", a->synopsis, a->help);
    common_help(f, a->accepts);
}

enum { OPT_STORE = 256, OPT_USER, OPT_JOB, OPT_NTASKS, OPT_FORMAT, OPT_PART,
       OPT_OUTPUT, OPT_WEIGHT, OPT_FORCE, OPT_MAXB, OPT_TOP, OPT_OLDER,
       OPT_UNUSED, OPT_DRY, OPT_NOW, OPT_ALL, OPT_PARTIAL };

static const struct option longopts[] = {
    { "store", required_argument, NULL, OPT_STORE },
    { "user", required_argument, NULL, OPT_USER },
    { "job-name", required_argument, NULL, OPT_JOB },
    { "ntasks", required_argument, NULL, OPT_NTASKS },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "part", required_argument, NULL, OPT_PART },
    { "output", required_argument, NULL, OPT_OUTPUT },
    { "weight", required_argument, NULL, OPT_WEIGHT },
    { "force", no_argument, NULL, OPT_FORCE },
    { "max-bytes", required_argument, NULL, OPT_MAXB },
    { "top", required_argument, NULL, OPT_TOP },
    { "older-than", required_argument, NULL, OPT_OLDER },
    { "unused-for", required_argument, NULL, OPT_UNUSED },
    { "dry-run", no_argument, NULL, OPT_DRY },
    { "now", required_argument, NULL, OPT_NOW },
    { "all-users", no_argument, NULL, OPT_ALL },
    { "partial", no_argument, NULL, OPT_PARTIAL },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

static int parse(const action_t *a, popts_t *o, int argc, char **argv)
{
    static const int bit[] = { O_STORE, O_USER, O_JOB, O_NTASKS, O_FORMAT,
                               O_PART, O_OUTPUT, O_WEIGHT, O_FORCE, O_MAXB,
                               O_TOP, O_OLDER, O_UNUSED, O_DRY, O_NOW, O_ALL,
                               O_PARTIAL };
    uint64_t v;
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            action_usage(stdout, a);
            return -1;
        }
        if (c == '?')
            return cm_cli_usage_error(o->cmd, "unknown option '%s'",
                                      argv[optind - 1]);
        if (c == ':')
            return cm_cli_usage_error(o->cmd, "option '%s' needs a value",
                                      argv[optind - 1]);
        if (!(a->accepts & bit[c - OPT_STORE]))
            return cm_cli_usage_error(o->cmd, "option '--%s' does not apply "
                                      "to '%s'", longopts[c - OPT_STORE].name,
                                      a->name);
        switch (c) {
        case OPT_STORE: o->store = optarg; break;
        case OPT_USER: o->user = optarg; break;
        case OPT_JOB: o->job_name = optarg; break;
        case OPT_FORMAT: o->format = optarg; break;
        case OPT_OUTPUT: o->output = optarg; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_DRY: o->dry_run = 1; break;
        case OPT_ALL: o->all_users = 1; break;
        case OPT_PARTIAL: o->partial = 1; break;
        case OPT_OLDER:
        case OPT_UNUSED:
            if (cm_cli_parse_u64(optarg, MAX_DAYS, &v) < 0)
                return cm_cli_usage_error(o->cmd, "--%s '%s': expected a "
                                          "whole number of days in 0..%d",
                                          longopts[c - OPT_STORE].name, optarg,
                                          MAX_DAYS);
            *(c == OPT_OLDER ? &o->older_than : &o->unused_for) =
                (int64_t)v * 86400;
            break;
        case OPT_NOW:
            if (cm_cli_parse_u64(optarg, MAX_NOW, &v) < 0)
                return cm_cli_usage_error(o->cmd, "--now '%s': expected "
                                          "seconds since 1970 UTC, 0..%lld",
                                          optarg, MAX_NOW);
            o->now = (int64_t)v;
            break;
        case OPT_NTASKS:
            if (cm_cli_parse_u64(optarg, CM_PROFILE_MAX_TASKS, &v) < 0 || v < 1)
                return cm_cli_usage_error(o->cmd, "--ntasks '%s': expected an "
                                          "integer in 1..%d", optarg,
                                          CM_PROFILE_MAX_TASKS);
            o->ntasks = (int)v;
            break;
        case OPT_TOP:
            if (cm_cli_parse_u64(optarg, 1000000, &v) < 0)
                return cm_cli_usage_error(o->cmd, "--top '%s': expected an "
                                          "integer in 0..1000000", optarg);
            o->top = (int)v;
            break;
        case OPT_MAXB:
            if (cm_cli_parse_u64(optarg, SIZE_MAX / 2, &v) < 0 || v < 1)
                return cm_cli_usage_error(o->cmd, "--max-bytes '%s': expected "
                                          "a positive integer", optarg);
            o->max_bytes = (size_t)v;
            break;
        case OPT_PART:
            if (cm_part_parse(optarg, &o->part) < 0)
                return cm_cli_usage_error(o->cmd, "--part '%s': expected p2p, "
                                          "coll or all", optarg);
            break;
        case OPT_WEIGHT:
            if (cm_profile_weight_parse(optarg, &o->weight) < 0)
                return cm_cli_usage_error(o->cmd, "--weight '%s': expected a "
                                          "number in (0, 1] or 'mean'", optarg);
            break;
        }
    }
    if (a->arg) {
        if (optind >= argc)
        {
            const char *what = a->synopsis + strlen(a->name) + 1;
            return cm_cli_usage_error(o->cmd, "missing %.*s", (int)strcspn(what,
                                      " "), what);
        }
        o->arg = argv[optind++];
    }
    if (optind < argc)
        return cm_cli_usage_error(o->cmd, "unexpected argument '%s'",
                                  argv[optind]);
    return 0;
}

int cm_cmd_profile(int argc, char **argv)
{
    popts_t o;
    const action_t *a;
    const char *store = NULL;
    char cmd[64];
    int first = 1, rc;

    memset(&o, 0, sizeof o);
    while (first < argc && strcmp(argv[first], "--store") == 0 &&
           first + 1 < argc) {
        store = argv[first + 1];
        first += 2;
    }
    if (first >= argc)
        return cm_cli_usage_error("profile", "missing action (list, show, "
                                  "export, import, merge, ingest, delete, "
                                  "reset, prune)");
    if (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0 ||
        strcmp(argv[first], "help") == 0) {
        usage(stdout);
        return fflush(stdout) == 0 ? CM_EXIT_OK : CM_EXIT_FAIL;
    }
    a = find_action(argv[first]);
    if (!a)
        return cm_cli_usage_error("profile", "unknown action '%s'", argv[first]);
    snprintf(cmd, sizeof cmd, "profile %s", a->name);
    o.cmd = cmd;
    o.store = store;
    o.ntasks = -1;
    o.part = CM_PART_ALL;
    o.weight = CM_PROFILE_DEFAULT_WEIGHT;
    o.top = 10;
    o.max_bytes = CM_PROFILE_DEFAULT_MAX_BYTES;
    o.older_than = o.unused_for = o.now = -1;
    rc = parse(a, &o, argc - first, argv + first);
    if (rc)
        return rc < 0 ? (fflush(stdout) == 0 ? CM_EXIT_OK : CM_EXIT_FAIL) : rc;
    if ((rc = resolve_user(&o)) != 0)
        return rc;
    o.store = cm_cli_store_root(o.store);
    return a->run(&o);
}
