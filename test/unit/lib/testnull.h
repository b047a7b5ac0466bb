/* testnull.h -- the NULL passes' checks (test_*_null.c).
 *
 * FAILS(call) runs @p call twice, once with `err` pointing to a record
 * (which must then hold a message) and once with `err` NULL (every public
 * function allows it), and expects -1 both times; FAILS_NULL does the same
 * for calls that return a pointer, expecting NULL.  @p call names `err`
 * for its error record.  Include after <cmocka.h>. */
#ifndef CM_TESTNULL_H
#define CM_TESTNULL_H

#include "clustermap.h"

#define FAILS(call)                                                                      \
    do {                                                                                 \
        cm_error_t e_ = { "" };                                                          \
        cm_error_t *err = &e_;                                                           \
        if ((call) != -1)                                                                \
            fail_msg("%s: expected -1", #call);                                          \
        if (!e_.msg[0])                                                                  \
            fail_msg("%s: no error message", #call);                                     \
        err = NULL;                                                                      \
        if ((call) != -1)                                                                \
            fail_msg("%s (err NULL): expected -1", #call);                               \
    } while (0)

#define FAILS_NULL(call)                                                                 \
    do {                                                                                 \
        cm_error_t e_ = { "" };                                                          \
        cm_error_t *err = &e_;                                                           \
        if ((call) != NULL)                                                              \
            fail_msg("%s: expected NULL", #call);                                        \
        if (!e_.msg[0])                                                                  \
            fail_msg("%s: no error message", #call);                                     \
        err = NULL;                                                                      \
        if ((call) != NULL)                                                              \
            fail_msg("%s (err NULL): expected NULL", #call);                             \
    } while (0)

#endif /* CM_TESTNULL_H */
