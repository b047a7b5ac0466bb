/*
 * cm_text.c -- the escape of text from users (cm_text.h).  One walk over
 * the input, a character at a time: next() says how many input bytes the
 * character takes and what it becomes; the three entry points only differ
 * in where that goes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_text.h"

/* The longest text one character becomes: a 4-byte sequence escaped. */
#define UNIT_MAX 16

/* A character that is displayed as something other than itself: a C1
 * control (some terminals obey U+009B as CSI), or one that reorders the
 * text around it or breaks the line, so that what an administrator reads
 * is not what the bytes say. */
static int hidden(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
        (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The number of bytes of the character at @p s (@p len >= 1 bytes left)
 * that is kept as it is: 0 when its first byte is to be escaped.  A
 * well-formed sequence of a hidden character is escaped whole: *span is
 * how many bytes are to be escaped (1 for anything ill-formed). */
static size_t kept(const unsigned char *s, size_t len, size_t *span)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp, min;

    *span = 1;
    if (c < 0x80)
        return c >= 0x20 && c != 0x7f;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    if (hidden(cp)) {
        *span = n;
        return 0;
    }
    return n;
}

/* The text of the next character of @p s (@p len >= 1 bytes left) into
 * @p buf; its length.  *used: the input bytes it takes. */
static size_t next(const unsigned char *s, size_t len, char buf[UNIT_MAX], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    size_t span, n = kept(s, len, &span), out = 0;

    if (n) {
        memcpy(buf, s, n);
        *used = n;
        return n;
    }
    for (size_t i = 0; i < span; i++) {
        buf[out++] = '\\';
        switch (s[i]) {
        case '\n': buf[out++] = 'n'; break;
        case '\t': buf[out++] = 't'; break;
        case '\r': buf[out++] = 'r'; break;
        default:
            buf[out++] = 'x';
            buf[out++] = hex[s[i] >> 4];
            buf[out++] = hex[s[i] & 0xf];
        }
    }
    *used = span;
    return out;
}

static int refused(const char *s, size_t len)
{
    return (!s && len) || len > CM_TEXT_MAX_INPUT;
}

size_t cm_text_escape_to(char *out, size_t size, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t total = 0, written = 0, used;
    char buf[UNIT_MAX];
    int full = 0; /* a character did not fit: none after it is written */

    if (out && size)
        out[0] = '\0';
    if (refused(s, len))
        return (size_t)-1;
    for (size_t i = 0; i < len; i += used) {
        size_t n = next(u + i, len - i, buf, &used);
        if (!full && out && total + n < size) {
            memcpy(out + total, buf, n);
            written = total + n;
        } else {
            full = 1;
        }
        total += n;
    }
    if (out && size)
        out[written] = '\0';
    return total;
}

char *cm_text_escape(const char *s)
{
    if (!s) {
        errno = EINVAL;
        return NULL;
    }
    size_t len = strlen(s);
    size_t need = cm_text_escape_to(NULL, 0, s, len);
    if (need == (size_t)-1) {
        errno = ENOMEM;
        return NULL;
    }
    char *out = malloc(need + 1);
    if (out)
        cm_text_escape_to(out, need + 1, s, len);
    return out;
}

long cm_text_fwrite(const char *s, size_t len, FILE *f)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t used;
    long total = 0;
    char buf[UNIT_MAX];

    if (!f || refused(s, len)) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < len; i += used) {
        size_t n = next(u + i, len - i, buf, &used);
        if (fwrite(buf, 1, n, f) != n)
            return -1;
        total += (long)n;
    }
    return total;
}

long cm_text_fputs(const char *s, FILE *f)
{
    if (!s) {
        errno = EINVAL;
        return -1;
    }
    return cm_text_fwrite(s, strlen(s), f);
}
