/*
 * matrix_internal.h -- private helpers shared by the matrix code and its
 * three readers (Matrix Market, METIS, triplets).  Not part of the public
 * API: only src/core/matrix*.c and src/core/read_*.c include it.
 */
#ifndef CM_MATRIX_INTERNAL_H
#define CM_MATRIX_INTERNAL_H

#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/** The entries added so far are about 1 / @p times of all there will be:
 *  make room for the rest in one step.  Large arrays that grow by doubling
 *  are moved several times (realloc), and in some virtual machines every
 *  page of a moved array costs a fault again when it is next used.
 *  Advice: nothing changes when the memory cannot be had. */
void cm_builder_expect(cm_builder_t *b, double times);

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
 *  only for lines longer than a block, up to CM_MAX_LINE + 2 bytes.
 *
 *  Every byte of a line and the CM_LINES_PAD bytes after its end are
 *  readable and set, so the number scanners may read eight bytes at a
 *  time (cm_count_digits). */
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
    long long size;     /**< bytes from where reading started to the end
                             of the file, -1 when unknown (not a regular
                             file) */
    long long got;      /**< bytes fread so far */
} cm_lines_t;

/** Readable bytes kept after the last byte read (see cm_lines_t). */
#define CM_LINES_PAD 8

/** Bytes asked of fread at a time (the buffer starts smaller and doubles
 *  up to this size, so short streams cost little memory). */
#define CM_LINES_BLOCK (256 * 1024)

void cm_lines_init(cm_lines_t *l, FILE *f, const char *name);
void cm_lines_fini(cm_lines_t *l);

/** Next line into l->buf: 1 when a line was read, 0 at end of file, -1 on
 *  error (too long, NUL byte, read error; @p err filled). */
int cm_lines_next(cm_lines_t *l, cm_error_t *err);

/** Entries a reader adds before cm_lines_reserve(). */
#define CM_RESERVE_AFTER 65536

/** Called once by a reader, after CM_RESERVE_AFTER entries: when the
 *  stream's size is known, tell @p b how many entries to expect at the
 *  rate so far (cm_builder_expect). */
void cm_lines_reserve(const cm_lines_t *l, cm_builder_t *b);

/** Make the next cm_lines_next() return the current line again (used by
 *  the format detection, which looks at the first line). */
void cm_lines_unread(cm_lines_t *l);

/** Next whitespace-separated token of the line at *cur, NUL-terminated in
 *  place; *cur advances past it.  NULL when the line has no more tokens. */
char *cm_token(char **cur);

/** "<file>:<line>: expected <what>, got '<tok>'" (or "got end of line"
 *  when @p tok is NULL).  Returns -1. */
int cm_lines_fail(const cm_lines_t *l, cm_error_t *err, const char *what,
                  const char *tok);

/* ---- fields: the common spellings inline, the rest out of line ---------
 *
 * Readers spend their time on a few fields per line, so the usual case of
 * each check below is inlined into them: plain digits, plain decimals,
 * blanks and tabs.  Every other spelling (signs, hexadecimal, "inf",
 * overlong digit strings, other white space) and every error goes to the
 * *_slow function, which uses isspace, strtoll and strtod and decides
 * exactly as the readers always did, messages included.  A token ends at a
 * NUL or at a character every locale's isspace() accepts. */

static inline int cm_is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10;
}

static inline int cm_ends_token(unsigned char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
           c == '\v' || c == '\f';
}

static inline char *cm_skip_blanks(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/** cm_blank() without the fast path. */
int cm_blank_slow(const char *s);

/** True when @p s holds only white space (isspace()). */
static inline int cm_blank(const char *s)
{
    s = cm_skip_blanks((char *)s);
    if (*s == '\0')
        return 1;
    if ((unsigned char)*s > ' ' && (unsigned char)*s < 0x7f)
        return 0;   /* printable ASCII: no locale calls it a space */
    return cm_blank_slow(s);
}

/* Digits are counted and converted eight at a time where words are
 * little-endian (x86-64, arm64): a line of numbers is mostly digits.  The
 * eight bytes at a digit are readable (CM_LINES_PAD); bytes after the
 * first non-digit never change the result.  -DCM_SWAR_DIGITS=0 builds the
 * byte-by-byte loops instead (to test them). */
#ifndef CM_SWAR_DIGITS
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CM_SWAR_DIGITS 1
#else
#define CM_SWAR_DIGITS 0
#endif
#endif

static inline unsigned long long cm_load8(const char *p)
{
    unsigned long long x;
    memcpy(&x, p, sizeof x);
    return x;
}

/** Number of decimal digits at @p p, up to the first non-digit. */
static inline size_t cm_count_digits(const char *p)
{
#if CM_SWAR_DIGITS
    const unsigned long long zeros = 0x3030303030303030ULL;
    const unsigned long long high = 0x8080808080808080ULL;
    size_t n = 0;
    for (;;) {
        /* a byte b is a digit when b - '0' is 0..9: neither that nor
         * b - '0' + 0x76 has its high bit set.  A borrow or carry only
         * spoils bytes above the first non-digit, which is all we want. */
        unsigned long long d = cm_load8(p + n) - zeros;
        unsigned long long bad = (d | (d + 0x7676767676767676ULL)) & high;
        if (bad)
            return n + (size_t)__builtin_ctzll(bad) / 8;
        n += 8;
    }
#else
    size_t n = 0;
    while (cm_is_digit((unsigned char)p[n]))
        n++;
    return n;
#endif
}

/** The value of the @p n digits at @p p, n <= 19 (below 2^64). */
static inline unsigned long long cm_digits_value(const char *p, size_t n)
{
    unsigned long long v = 0;
#if CM_SWAR_DIGITS
    static const unsigned long long pow10[9] = {
        1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
    };
    while (n > 0) {
        /* up to eight digits: the first in the lowest byte; shifted to
         * the top, the zero bytes below act as leading zeros; then pairs,
         * quads and the eight are combined by multiplications */
        size_t k = n < 8 ? n : 8;
        unsigned long long d = (cm_load8(p) - 0x3030303030303030ULL) << (8 * (8 - k));
        d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFULL;
        d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFULL;
        d = (d * 10000 + (d >> 32)) & 0xFFFFFFFFULL;
        v = v * pow10[k] + d;
        p += k;
        n -= k;
    }
#else
    while (n-- > 0)
        v = v * 10 + (unsigned)(*p++ - '0');
#endif
    return v;
}

/** Up to 18 plain digits at *p (no sign; cannot overflow, so the value
 *  strtoll gives) ending the token: 1 with *out set and *p moved past
 *  them, 0 (*p unchanged) for anything else. */
static inline int cm_scan_long(const char **p, long long *out)
{
    size_t n = cm_count_digits(*p);

    if (n == 0 || n > 18 || !cm_ends_token((unsigned char)(*p)[n]))
        return 0;
    *out = (long long)cm_digits_value(*p, n);
    *p += n;
    return 1;
}

/** cm_scan_long() after blanks and tabs, for the token at *cur. */
static inline int cm_fast_long(char **cur, long long *out)
{
    const char *p = cm_skip_blanks(*cur);

    if (!cm_scan_long(&p, out))
        return 0;
    *cur = (char *)p;
    return 1;
}

/** cm_next_long() without the fast path: every spelling, every error. */
int cm_next_long_slow(cm_lines_t *l, char **cur, long long lo, long long hi,
                      const char *what, long long *out, cm_error_t *err);

/** Parse the next token as an integer in [lo, hi]; -1 with an error naming
 *  @p what (and the range) otherwise. */
static inline int cm_next_long(cm_lines_t *l, char **cur, long long lo,
                               long long hi, const char *what, long long *out,
                               cm_error_t *err)
{
    char *start = *cur;
    long long v;

    if (cm_fast_long(cur, &v) && v >= lo && v <= hi) {
        *out = v;
        return 0;
    }
    *cur = start;
    return cm_next_long_slow(l, cur, lo, hi, what, out, err);
}

/** Powers of ten exact in a double, 10^0 .. 10^22. */
extern const double cm_pow10_exact[23];

/** A plain decimal at *p ("12", "0.25", "5.", ".5", "3e5", "1E-7") whose
 *  double is exact to compute, ending the token: 1 with *out set and *p
 *  moved past it; 0 (*p unchanged) for anything else -- a valid number of
 *  another spelling or an error, for strtod to decide.  Never accepts what
 *  strtod refuses, never yields another value.
 *
 *  Clinger's fast path: a decimal m * 10^e with m < 2^53 and |e| <= 22 is
 *  one correctly rounded multiplication or division of two exact doubles,
 *  which is what strtod returns too (same rounding mode).  Needs doubles
 *  evaluated as doubles (FLT_EVAL_METHOD 0, as on x86-64 and arm64).  Up
 *  to 19 digits cannot overflow m, so m is tested once, at the end;
 *  longer strings (leading or trailing zeros included) go to strtod. */
static inline int cm_scan_value(const char **pp, double *out)
{
    static const unsigned long long pow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
        10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
        100000000000ULL, 1000000000000ULL, 10000000000000ULL,
        100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL,
        10000000000000000000ULL,
    };
    const char *p = *pp;
    size_t whole = cm_count_digits(p), frac = 0;
    unsigned long long m;
    int e = 0;

    if (p[whole] == '.')
        frac = cm_count_digits(p + whole + 1);
    if (whole + frac == 0 || whole + frac > 19)
        return 0;
    m = cm_digits_value(p, whole);
    p += whole;
    if (*p == '.') {
        m = m * pow10[frac] + cm_digits_value(p + 1, frac);
        p += 1 + frac;
        e = -(int)frac;
    }
    if (m >= (1ULL << 53))
        return 0;
    if (*p == 'e' || *p == 'E') {
        int neg = 0, x = 0;
        p++;
        if (*p == '+' || *p == '-')
            neg = *p++ == '-';
        if (!cm_is_digit((unsigned char)*p))
            return 0;
        for (; cm_is_digit((unsigned char)*p); p++) {
            if (x > 1000)
                return 0;
            x = x * 10 + (*p - '0');
        }
        e += neg ? -x : x;
    }
    if (!cm_ends_token((unsigned char)*p))
        return 0;
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
    if (e != 0)
        return 0;
#endif
    if (e == 0)
        *out = (double)m;
    else if (e > 0 && e <= 22)
        *out = (double)m * cm_pow10_exact[e];
    else if (e < 0 && e >= -22)
        *out = (double)m / cm_pow10_exact[-e];
    else
        return 0;
    *pp = p;
    return 1;
}

/** The fast path of cm_next_value() alone, for callers whose message is
 *  costly to format: cm_scan_value() after blanks and tabs, 1 with *cur
 *  advanced, 0 with *cur unchanged (call cm_next_value() then). */
static inline int cm_fast_value(char **cur, double *out)
{
    const char *p = cm_skip_blanks(*cur);

    if (!cm_scan_value(&p, out))
        return 0;
    *cur = (char *)p;
    return 1;
}

/** cm_next_value() without the fast path: every spelling, every error. */
int cm_next_value_slow(cm_lines_t *l, char **cur, const char *what,
                       double *out, cm_error_t *err);

/** Parse the next token as a finite, non-negative number. */
static inline int cm_next_value(cm_lines_t *l, char **cur, const char *what,
                                double *out, cm_error_t *err)
{
    if (cm_fast_value(cur, out))
        return 0;
    return cm_next_value_slow(l, cur, what, out, err);
}

/** cm_expect_eol() without the fast path. */
int cm_expect_eol_slow(cm_lines_t *l, char **cur, cm_error_t *err);

/** Fail unless the rest of the line is blank. */
static inline int cm_expect_eol(cm_lines_t *l, char **cur, cm_error_t *err)
{
    if (!*cm_skip_blanks(*cur))
        return 0;
    return cm_expect_eol_slow(l, cur, err);
}

/* ---- the readers (called by cm_matrix_read_stream) --------------------- */

cm_matrix_t *cm_read_mtx(cm_lines_t *l, cm_error_t *err);
cm_matrix_t *cm_read_metis(cm_lines_t *l, cm_error_t *err);
cm_matrix_t *cm_read_triplets(cm_lines_t *l, cm_error_t *err);

#endif /* CM_MATRIX_INTERNAL_H */
