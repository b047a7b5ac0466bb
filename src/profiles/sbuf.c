/* sbuf.c -- the growable byte buffer both profile writers fill
 * (profile_json.c, profile_bin.c; cm_sbuf_t in profile_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

void cm_sbuf_add(cm_sbuf_t *b, const void *data, size_t len)
{
    if (b->failed)
        return;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *s;
        while (cap < b->len + len + 1)
            cap *= 2;
        s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, data, len);
    b->len += len;
    b->s[b->len] = '\0';
}
