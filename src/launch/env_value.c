/*
 * env_value.c -- environment values at their full length (cmp_env_value.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_env_value.h"

char *cmp_env_value_read(cmp_getenv_fn get, void *ctx, const char *name, cm_error_t *err)
{
    if (err)
        err->msg[0] = '\0';
    if (!get || !name) {
        cm_error_set(err, "environment: expected a getter and a name, got NULL");
        return NULL;
    }
    /* most values fit the first try; a long one doubles its way up */
    for (size_t size = 256;;) {
        char *buf = malloc(size);
        if (!buf) {
            cm_error_set(err, "%s: out of memory for its value", name);
            return NULL;
        }
        cmp_get_t rc = get(ctx, name, buf, size);
        if (rc == CMP_GET_OK && memchr(buf, '\0', size))
            return buf;
        free(buf);
        if (rc == CMP_GET_UNSET)
            return NULL;
        if (rc != CMP_GET_SHORT && rc != CMP_GET_OK) {
            cm_error_set(err, "%s: cannot be read", name);
            return NULL;
        }
        if (size > CMP_ENV_VALUE_MAX) {
            cm_error_set(err, "%s: longer than %zu bytes", name, CMP_ENV_VALUE_MAX);
            return NULL;
        }
        size = size * 2 > CMP_ENV_VALUE_MAX ? CMP_ENV_VALUE_MAX + 1 : size * 2;
    }
}

int cmp_env_list_has(const char *list, const char *item)
{
    if (!list || !item)
        return 0;
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ": ");
        if (l == n && !strncmp(p, item, n))
            return 1;
        p += l;
        p += strspn(p, ": ");
    }
    return 0;
}

char *cmp_env_list_prepend(const char *item, const char *list, int once)
{
    char *s = NULL;
    if (!item)
        return NULL;
    int have = list && list[0];
    if (have && once && cmp_env_list_has(list, item))
        return strdup(list);
    if (asprintf(&s, "%s%s%s", item, have ? ":" : "", have ? list : "") < 0)
        return NULL;
    return s;
}
