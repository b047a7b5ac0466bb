/*
 * teststore.h -- a profile store in a fresh temporary directory, as a
 * cmocka fixture for the store's unit tests (test_store_parts.c,
 * test_history.c).
 */
#ifndef CM_TESTSTORE_H
#define CM_TESTSTORE_H

#include "cm_store.h"

/** Profile and raw files read through the test stores: 1 MiB at most. */
#define CM_TEST_STORE_MAXB (1u << 20)

typedef struct cm_test_store {
    char *root;         /**< temporary directory */
    char store[4096];   /**< <root>/store */
    cm_store_t *s;      /**< the caller's part of it, created */
} cm_test_store_t;

/** cmocka setup: *state becomes a cm_test_store_t. */
int cm_test_store_setup(void **state);

/** cmocka teardown: close the store, remove the directory. */
int cm_test_store_teardown(void **state);

/** A cmocka test run on its own fresh store. */
#define CM_TEST_STORE_CASE(test) \
    cmocka_unit_test_setup_teardown(test, cm_test_store_setup, cm_test_store_teardown)

#endif /* CM_TESTSTORE_H */
