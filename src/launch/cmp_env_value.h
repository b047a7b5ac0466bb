/*
 * cmp_env_value.h -- environment values at their full length (env_value.c).
 *
 * The plugin reads the job's environment through a call that copies into
 * the caller's buffer and fails when the value does not fit (SPANK's
 * spank_getenv); a value read into a fixed buffer is then either refused
 * or, worse, used cut.  These read a value whatever its length, up to a
 * stated bound, and build PATH- and LD_PRELOAD-like lists without a
 * buffer: nothing here ever cuts a user's value.
 */
#ifndef CMP_ENV_VALUE_H
#define CMP_ENV_VALUE_H

#include <stddef.h>

#include "clustermap.h"

/* The longest value read: well above the 128 KiB (MAX_ARG_STRLEN) that
 * execve() lets one variable of srun's or sbatch's environment hold. */
#define CMP_ENV_VALUE_MAX ((size_t)1 << 20)

/** What a getter says about one variable. */
typedef enum cmp_get {
    CMP_GET_OK = 0, /* the value and its NUL are in the buffer */
    CMP_GET_UNSET,  /* no such variable */
    CMP_GET_SHORT,  /* the value does not fit the buffer (its content is
                       then undefined) */
    CMP_GET_ERROR   /* any other failure */
} cmp_get_t;

/** Copy variable @p name's value into @p buf of @p size bytes. */
typedef cmp_get_t (*cmp_getenv_fn)(void *ctx, const char *name, char *buf, size_t size);

/** The value of @p name, as @p get reads it, at its full length: a
 *  malloc'd string the caller frees.  NULL with @p err's message empty
 *  when the variable is unset; NULL with @p err naming the variable when
 *  it is longer than CMP_ENV_VALUE_MAX bytes, the getter fails, memory
 *  runs out, or @p get or @p name is NULL. */
char *cmp_env_value_read(cmp_getenv_fn get, void *ctx, const char *name, cm_error_t *err);

/** A list with @p item first: "@p item:@p list", or @p item alone when
 *  @p list is NULL or empty.  With @p once, @p list as it is when it
 *  already holds @p item (items separated by ':' or ' ', as ld.so reads
 *  LD_PRELOAD).  A malloc'd string, never cut; NULL when memory runs out
 *  or @p item is NULL. */
char *cmp_env_list_prepend(const char *item, const char *list, int once);

/** @p list (':' or ' ' separated) holds @p item as one of its items; 0
 *  for a NULL @p list or @p item. */
int cmp_env_list_has(const char *list, const char *item);

#endif /* CMP_ENV_VALUE_H */
