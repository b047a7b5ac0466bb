/* teststore.c -- see teststore.h. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testdata.h"
#include "teststore.h"

int cm_test_store_setup(void **state)
{
    cm_test_store_t *f = calloc(1, sizeof *f);
    cm_error_t err = { "" };
    if (!f)
        return -1;
    f->root = cm_test_mkdtemp();
    snprintf(f->store, sizeof f->store, "%s/store", f->root);
    f->s = cm_store_open(f->store, getuid(), CM_STORE_CREATE, CM_TEST_STORE_MAXB,
                         &err);
    if (!f->s)
        fprintf(stderr, "%s\n", err.msg);
    *state = f;
    return f->s ? 0 : -1;
}

int cm_test_store_teardown(void **state)
{
    cm_test_store_t *f = *state;
    cm_store_close(f->s);
    cm_test_rmtree(f->root);
    free(f);
    return 0;
}
