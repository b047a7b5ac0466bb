/* conf_lines_internal.h -- the line reader of Slurm's configuration files
 * (slurm.conf, topology.conf, gres.conf), shared by their readers in
 * src/core.  Private to the engine.
 *
 * A logical line is a physical line with its '#' comment cut and trailing
 * blanks removed; a '\' at its end joins the next line.  A line is split
 * into key=value words (a value may be "double quoted"); a word without
 * '=' is kept with a NULL value.  Errors read "<path>:<line>: ...".
 */
#ifndef CM_CONF_LINES_INTERNAL_H
#define CM_CONF_LINES_INTERNAL_H

#include "clustermap.h"

/** Longest logical line, and most words on one line. */
#define CM_CONF_MAX_LINE 65536
#define CM_CONF_MAX_TOKENS 256

/** One word of a line: key, and value (NULL when the word had no '='). */
typedef struct cm_conf_token {
    char *key, *val;
} cm_conf_token_t;

/** Called for every non-empty logical line with its words (valid only
 *  during the call), the file's path and the line's first line number.
 *  0 to go on, -1 with @p err to stop. */
typedef int (*cm_conf_line_fn)(void *ctx, cm_conf_token_t *tok, int ntok,
                               const char *path, int line, cm_error_t *err);

/** Read @p path line by line and hand every non-empty line to @p fn.
 *  0 at end of file, -1 with @p err on the first error (the file cannot
 *  be opened or read, a line too long or holding a NUL byte, too many
 *  words, an unterminated quote, or what @p fn returned). */
int cm_conf_read_lines(const char *path, cm_conf_line_fn fn, void *ctx, cm_error_t *err);

/** 0 when @p t is key=value with a non-empty key, else -1 with @p err
 *  ("<path>:<line>: expected key=value, got ..."). */
int cm_conf_check_kv(const cm_conf_token_t *t, const char *path, int line,
                     cm_error_t *err);

/** @p t's value as a decimal integer 0..@p max into @p out, or -1 with
 *  @p err naming the key ( @p out then untouched). */
int cm_conf_parse_count(const cm_conf_token_t *t, long max, long *out, const char *path,
                        int line, cm_error_t *err);

#endif
