/*
 * testdata.h -- locating test inputs and writing scratch files in unit
 * tests.  Every test binary is linked with all of test/unit/lib/.
 */
#ifndef CM_TESTDATA_H
#define CM_TESTDATA_H

/** Path of @p rel (e.g. "matrices/cg.S.16.mtx") under the test data
 *  directory: $CM_TEST_DATA (set by test/run-unit.sh), else "test/data".
 *  The result lives in a thread-local ring of 8 buffers: it stays valid
 *  for the next 7 calls of cm_test_data_path()/cm_test_write_file() in the
 *  same thread, so several paths can appear in one call. */
const char *cm_test_data_path(const char *rel);

/** A fresh private directory under $TMPDIR (or /tmp), malloc'd path.
 *  Aborts the test program when it cannot be made. */
char *cm_test_mkdtemp(void);

/** Write @p text to @p dir/@p name (created or truncated) and return the
 *  full path (same ring of buffers as cm_test_data_path()).  Aborts on
 *  failure. */
const char *cm_test_write_file(const char *dir, const char *name,
                               const char *text);

/** Remove the regular files in @p dir and the directory itself (no
 *  recursion), then free @p dir.  NULL is a no-op. */
void cm_test_rmtree(char *dir);

#endif /* CM_TESTDATA_H */
