/*
 * cm_text.h -- text from users made safe to show: one escape for every
 * place where root or an administrator reads a value a user chose (job
 * names, program names, the environment, anything read from a user's
 * store) -- a terminal, a listing, cron's mail, slurmd's log.  A terminal
 * obeys control bytes and escape sequences, and a log reader takes a
 * newline for the start of a line that the program did not write; the
 * escape turns each such byte into visible text, and never shortens what
 * it is given.  No Slurm and no store in here (libcm-util.a).
 *
 * What the escaped text holds, and nothing else:
 *  - printable ASCII, 0x20 to 0x7e, as given (a backslash too);
 *  - well-formed UTF-8 (shortest form, no surrogate, at most U+10FFFF) of
 *    a character that is neither a C1 control (U+0080 to U+009F, which
 *    some terminals obey as ESC sequences) nor one of the characters that
 *    reorder or break a line as it is displayed: U+061C, U+200E, U+200F,
 *    U+2028 to U+202E and U+2066 to U+2069;
 *  - for every other byte, an escape: "\n", "\t" and "\r" for newline,
 *    tab and carriage return, "\xHH" (two lower-case hex digits) for the
 *    rest: the bytes 0x00 to 0x1f, DEL (0x7f), each byte of an ill-formed
 *    UTF-8 sequence, each byte of a C1 or line-reordering character.
 *
 * So the result has no byte below 0x20 and no 0x7f, it is valid UTF-8,
 * and escaping it again changes nothing.  A backslash is not escaped: the
 * escape is for reading, not for decoding ("\x1b" in the output may be
 * what the user wrote), and text that passes through two layers that
 * both escape it is not garbled.  Each input byte becomes at most 4
 * output bytes.
 */
#ifndef CM_TEXT_H
#define CM_TEXT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The longest input the functions below take: its escape, 4 bytes an
 *  input byte at most, and a NUL still fit a size_t. */
#define CM_TEXT_MAX_INPUT ((((size_t)-1) - 1) / 4)

/** Escape the @p len bytes at @p s (NUL bytes among them are escaped as
 *  "\x00") into @p out, which holds @p size bytes, as snprintf does:
 *  returns the length of the whole escape (not counting its NUL), and
 *  writes as many whole escaped characters as fit before a NUL (nothing
 *  when @p size is 0; @p out may then be NULL).  A return of @p size or
 *  more means @p out holds a cut escape: call again with a buffer of the
 *  returned length plus one.  A character is never cut in the middle.
 *  @p s may be NULL when @p len is 0.  (size_t)-1, with "" in @p out when
 *  there is room, for a NULL @p s with a nonzero @p len or @p len over
 *  CM_TEXT_MAX_INPUT. */
size_t cm_text_escape_to(char *out, size_t size, const char *s, size_t len);

/** The escape of the string @p s in a new string, which the caller frees.
 *  NULL with errno EINVAL for a NULL @p s, ENOMEM when out of memory. */
char *cm_text_escape(const char *s);

/** Write the escape of the @p len bytes at @p s to @p f.  Returns the
 *  number of bytes written (to pad a column: it is at least @p len), or
 *  -1 when @p f reports an error (errno as fwrite leaves it), for a NULL
 *  @p f, or for what cm_text_escape_to() refuses (errno EINVAL); it
 *  allocates nothing.  Bytes may already be written when it fails. */
long cm_text_fwrite(const char *s, size_t len, FILE *f);

/** cm_text_fwrite() of the string @p s (a NULL @p s: -1, errno EINVAL). */
long cm_text_fputs(const char *s, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* CM_TEXT_H */
