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

/** cm_builder_finish() for a builder about to be freed: when its entries
 *  came in row order (as files usually list them), its arrays become the
 *  matrix's instead of being copied, and the builder is left empty (only
 *  cm_builder_free() is of use then).  Same matrix, same errors. */
cm_matrix_t *cm_builder_finish_take(cm_builder_t *b, cm_error_t *err);

/** 1 when building @p m summed repeated entries: the only way a matrix
 *  built from finite values can hold an infinite one (the readers check
 *  the sums then only). */
int cm_matrix_merged(const cm_matrix_t *m);

/* ---- line reader ------------------------------------------------------- */

/** Reads a stream line by line, counting lines (1-based) for error messages,
 *  refusing lines longer than CM_MAX_LINE and NUL bytes.  The trailing
 *  newline (and a '\r' before it) is removed.
 *
 *  The stream is read in blocks of CM_LINES_BLOCK bytes (fread), and each
 *  line is handed out in place, inside the block buffer: the reader may
 *  consume the stream beyond the last line it returned.  The buffer grows
 *  only for lines longer than a block, up to CM_MAX_LINE + 2 bytes. */
typedef struct cm_lines {
    FILE *f;
    const char *name;   /**< file name used in messages */
    long lineno;        /**< number of the line in buf (0 before the first) */
    char *buf;          /**< current line, NUL-terminated, writable */
    char *mem;          /**< block buffer; buf points into it */
    size_t cap;         /**< size of mem (one byte kept for a final NUL) */
    size_t pos, end;    /**< unread bytes: mem[pos, end) */
    size_t nul;         /**< offset of the first NUL in mem[pos, end), or
                             SIZE_MAX when there is none */
    int eof;            /**< fread reached end of file or an error */
    int again;          /**< cm_lines_unread(): return buf once more */
} cm_lines_t;

/** Bytes asked of fread at a time (the buffer starts smaller and doubles
 *  up to this size, so short streams cost little memory). */
#define CM_LINES_BLOCK (256 * 1024)

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

/** The fast path of cm_next_value() alone, for callers whose message is
 *  costly to format: 1 with *out set and *cur advanced when the next token
 *  is a plain decimal ("12", "0.25", "3e5") whose double is exact to
 *  compute; 0, with *cur unchanged, for anything else (a valid number of
 *  another spelling or an error: call cm_next_value() then).  Never
 *  accepts what cm_next_value() refuses, never yields a different value. */
int cm_fast_value(char **cur, double *out);

/** Fail unless the rest of the line is blank. */
int cm_expect_eol(cm_lines_t *l, char **cur, cm_error_t *err);

/* ---- the readers (called by cm_matrix_read_stream) --------------------- */

cm_matrix_t *cm_read_mtx(cm_lines_t *l, cm_error_t *err);
cm_matrix_t *cm_read_metis(cm_lines_t *l, cm_error_t *err);
cm_matrix_t *cm_read_triplets(cm_lines_t *l, cm_error_t *err);

#endif /* CM_MATRIX_INTERNAL_H */
