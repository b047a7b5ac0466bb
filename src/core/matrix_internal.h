/*
 * matrix_internal.h -- private helpers shared by the matrix code and its
 * three readers (Matrix Market, METIS, triplets).  Not part of the public
 * API: only src/core/matrix*.c and src/core/read_*.c include it.
 */
#ifndef CM_MATRIX_INTERNAL_H
#define CM_MATRIX_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "clustermap.h"

/** Largest rank count any reader or the builder accepts (bounded input:
 *  a CSR row pointer for more ranks than this is never allocated). */
#define CM_MAX_RANKS (1 << 24)

/** Longest accepted input line, in bytes (newline excluded). */
#define CM_MAX_LINE (1 << 20)

/** Change the rank count of a builder before cm_builder_finish().  The
 *  triplet reader creates its builder with CM_MAX_RANKS (a builder's memory
 *  does not depend on n) and shrinks it to max index + 1 at the end.  Fails
 *  when an entry already added does not fit. */
int cm_builder_set_n(cm_builder_t *b, int n, cm_error_t *err);

/* ---- line reader ------------------------------------------------------- */

/** Reads a stream line by line, counting lines (1-based) for error messages,
 *  refusing lines longer than CM_MAX_LINE and NUL bytes.  The trailing
 *  newline (and a '\r' before it) is removed. */
typedef struct cm_lines {
    FILE *f;
    const char *name;   /**< file name used in messages */
    long lineno;        /**< number of the line in buf (0 before the first) */
    char *buf;          /**< current line, NUL-terminated, writable */
    size_t cap;
    int again;          /**< cm_lines_unread(): return buf once more */
} cm_lines_t;

void cm_lines_init(cm_lines_t *l, FILE *f, const char *name);
void cm_lines_fini(cm_lines_t *l);

/** Next line into l->buf: 1 when a line was read, 0 at end of file, -1 on
 *  error (too long, NUL byte, read error; @p err filled). */
int cm_lines_next(cm_lines_t *l, cm_error_t *err);

/** Make the next cm_lines_next() return the current line again (used by
 *  the format detection, which looks at the first line). */
void cm_lines_unread(cm_lines_t *l);

/** Next whitespace-separated token of the line at *cur, NUL-terminated in
 *  place; *cur advances past it.  NULL when the line has no more tokens. */
char *cm_token(char **cur);

/** True when @p s holds only blanks. */
int cm_blank(const char *s);

/** "<file>:<line>: expected <what>, got '<tok>'" (or "got end of line"
 *  when @p tok is NULL).  Returns -1. */
int cm_lines_fail(const cm_lines_t *l, cm_error_t *err, const char *what,
                  const char *tok);

/** Parse the next token as an integer in [lo, hi]; -1 with an error naming
 *  @p what (and the range) otherwise. */
int cm_next_long(cm_lines_t *l, char **cur, long long lo, long long hi,
                 const char *what, long long *out, cm_error_t *err);

/** Parse the next token as a finite, non-negative number. */
int cm_next_value(cm_lines_t *l, char **cur, const char *what, double *out,
                  cm_error_t *err);

/** Fail unless the rest of the line is blank. */
int cm_expect_eol(cm_lines_t *l, char **cur, cm_error_t *err);

/* ---- the readers (called by cm_matrix_read_stream) --------------------- */

cm_matrix_t *cm_read_mtx(cm_lines_t *l, cm_error_t *err);
cm_matrix_t *cm_read_metis(cm_lines_t *l, cm_error_t *err);
cm_matrix_t *cm_read_triplets(cm_lines_t *l, cm_error_t *err);

#endif /* CM_MATRIX_INTERNAL_H */
