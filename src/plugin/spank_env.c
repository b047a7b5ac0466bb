/*
 * spank_env.c -- the job's environment at its full length, through
 * spank_getenv (cmp_env_value.h does the growing).
 */
#include <stdlib.h>

#include "plugin_spank.h"

static cmp_get_t spank_get(void *ctx, const char *name, char *buf, size_t size)
{
    if (size > (size_t)CMP_ENV_VALUE_MAX + 1)
        return CMP_GET_ERROR; /* spank_getenv takes an int */
    /* an int: spank_err_t is slurm_err_t, whose enum has no ESPANK_SUCCESS */
    int rc = spank_getenv((spank_t)ctx, name, buf, (int)size);
    return rc == ESPANK_SUCCESS    ? CMP_GET_OK
        : rc == ESPANK_ENV_NOEXIST ? CMP_GET_UNSET
        : rc == ESPANK_NOSPACE     ? CMP_GET_SHORT
                                   : CMP_GET_ERROR;
}

char *cmp_spank_getenv_all(spank_t sp, const char *name, cm_error_t *err)
{
    return cmp_env_value_read(spank_get, sp, name, err);
}
