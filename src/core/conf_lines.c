/* conf_lines.c -- the line reader of Slurm's configuration files
 * (conf_lines_internal.h): logical lines, key=value words. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_lines_internal.h"

typedef struct reader {
    FILE *f;
    const char *path;
    int line; /* line of the last logical line's start */
    int next_line;
} reader_t;

/* Next logical line (comments stripped, '\' continuations joined) into buf;
 * 0 at end of file, 1 on a line, -1 on error. */
static int next_line(reader_t *r, char *buf, size_t size, cm_error_t *err)
{
    size_t len = 0;
    int have = 0;
    char piece[CM_CONF_MAX_LINE];
    r->line = r->next_line + 1;
    while (fgets(piece, sizeof piece, r->f)) {
        r->next_line++;
        have = 1;
        size_t plen = strlen(piece);
        if (plen == sizeof piece - 1 && piece[plen - 1] != '\n' && !feof(r->f))
            return cm_error_set(err, "%s:%d: line longer than %d characters", r->path,
                                r->next_line, CM_CONF_MAX_LINE - 2);
        /* fgets stops after a newline, at end of file or with a full
         * buffer; a line that ends before all three held a NUL byte.
         * Refuse it: skipping NULs, "Include /dev/zero" read forever. */
        if ((plen == 0 || piece[plen - 1] != '\n') && !feof(r->f) && !ferror(r->f))
            return cm_error_set(err, "%s:%d: expected text, got a NUL byte", r->path,
                                r->next_line);
        char *hash = strchr(piece, '#');
        if (hash)
            *hash = '\0';
        plen = strlen(piece);
        while (plen && isspace((unsigned char)piece[plen - 1]))
            piece[--plen] = '\0';
        int cont = plen && piece[plen - 1] == '\\';
        if (cont)
            piece[--plen] = '\0';
        if (len + plen + 2 > size)
            return cm_error_set(err, "%s:%d: line longer than %zu characters", r->path,
                                r->line, size - 2);
        memcpy(buf + len, piece, plen);
        len += plen;
        buf[len++] = ' ';
        buf[len] = '\0';
        if (!cont)
            return 1;
    }
    if (ferror(r->f))
        return cm_error_set(err, "%s:%d: read error", r->path, r->next_line);
    return have;
}

/* Split a line into key=value tokens (values may be "double quoted").
 * A token without '=' is kept with val == NULL. */
static int tokenize(char *s, cm_conf_token_t *tok, int *ntok, const char *path, int line,
                    cm_error_t *err)
{
    *ntok = 0;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            return 0;
        if (*ntok >= CM_CONF_MAX_TOKENS)
            return cm_error_set(err, "%s:%d: more than %d words on one line", path, line,
                                CM_CONF_MAX_TOKENS);
        cm_conf_token_t *t = &tok[(*ntok)++];
        t->key = s;
        t->val = NULL;
        while (*s && !isspace((unsigned char)*s) && *s != '=')
            s++;
        if (*s == '=') {
            *s++ = '\0';
            if (*s == '"') {
                t->val = ++s;
                while (*s && *s != '"')
                    s++;
                if (!*s)
                    return cm_error_set(err, "%s:%d: unterminated '\"' in %s=", path,
                                        line, t->key);
                *s++ = '\0';
            } else {
                t->val = s;
                while (*s && !isspace((unsigned char)*s))
                    s++;
                if (*s)
                    *s++ = '\0';
            }
        } else if (*s) {
            *s++ = '\0';
        }
    }
}

int cm_conf_check_kv(const cm_conf_token_t *t, const char *path, int line,
                     cm_error_t *err)
{
    if (!t->val || !*t->key)
        return cm_error_set(err, "%s:%d: expected key=value, got '%s%s%s'", path, line,
                            t->key, t->val ? "=" : "", t->val ? t->val : "");
    return 0;
}

int cm_conf_parse_count(const cm_conf_token_t *t, long max, long *out, const char *path,
                        int line, cm_error_t *err)
{
    char *end;
    errno = 0;
    long v = strtol(t->val, &end, 10);
    if (!*t->val || *end || errno || v < 0 || v > max)
        return cm_error_set(err, "%s:%d: %s: expected an integer 0..%ld, got '%s'", path,
                            line, t->key, max, t->val);
    *out = v;
    return 0;
}

int cm_conf_read_lines(const char *path, cm_conf_line_fn fn, void *ctx, cm_error_t *err)
{
    reader_t r = { fopen(path, "r"), path, 0, 0 };
    if (!r.f)
        return cm_error_set(err, "%s: cannot open: %s", path, strerror(errno));
    char *buf = malloc(CM_CONF_MAX_LINE);
    cm_conf_token_t *tok = malloc(CM_CONF_MAX_TOKENS * sizeof *tok);
    int rc = 0, got, ntok;
    if (!buf || !tok) {
        rc = cm_error_set(err, "%s: out of memory", path);
        goto out;
    }
    while ((got = next_line(&r, buf, CM_CONF_MAX_LINE, err)) > 0) {
        if ((rc = tokenize(buf, tok, &ntok, path, r.line, err)) < 0)
            goto out;
        if (ntok > 0 && (rc = fn(ctx, tok, ntok, path, r.line, err)) < 0)
            goto out;
    }
    if (got < 0)
        rc = -1;
out:
    free(buf);
    free(tok);
    fclose(r.f);
    return rc;
}
