/* error.c -- filling caller-owned error records. */
#include <stdarg.h>
#include <stdio.h>

#include "clustermap.h"

int cm_error_set(cm_error_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}
