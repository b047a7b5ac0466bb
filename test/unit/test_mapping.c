/* test_mapping.c -- mapping files (src/core/mapping.c): reading, writing,
 * errors that name the file and line. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"

static void test_read_ok(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *p = cm_test_write_file(dir, "m.txt",
                                       "# a mapping\n"
                                       "3\n"
                                       "\n"
                                       "  0  \n"
                                       "# middle comment\n"
                                       "2 # rank 2\n"
                                       "1\r\n"
                                       "\n");
    int map[4] = { -1, -1, -1, -1 };
    cm_error_t err = { "" };
    assert_int_equal(cm_mapping_read(p, 4, map, &err), 0);
    assert_int_equal(map[0], 3);
    assert_int_equal(map[1], 0);
    assert_int_equal(map[2], 2);
    assert_int_equal(map[3], 1);
    cm_test_rmtree(dir);
}

/* Read @p text expecting failure; the message must contain @p want. */
static void read_fails(const char *text, int n, const char *want)
{
    char *dir = cm_test_mkdtemp();
    const char *p = cm_test_write_file(dir, "bad.map", text);
    char path[4096];
    snprintf(path, sizeof path, "%s", p);
    int map[8];
    cm_error_t err = { "" };
    assert_int_equal(cm_mapping_read(path, n, map, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("error \"%s\" lacks \"%s\"", err.msg, want);
    assert_non_null(strstr(err.msg, path));
    cm_test_rmtree(dir);
}

static void test_read_errors(void **state)
{
    (void)state;
    read_fails("0\n1\n2\n", 4, "bad.map:3: expected 4 entries");
    read_fails("0\n1\n# c\n2\n3\n", 3, "bad.map:5: expected exactly 3 entries");
    read_fails("0\nabc\n", 2, "bad.map:2: expected a non-negative slot number");
    read_fails("0\n-1\n", 2, "bad.map:2: expected a non-negative slot number");
    read_fails("0\n1 2\n", 2, "bad.map:2: expected one slot number per line");
    read_fails("99999999999\n", 1, "bad.map:1: expected a slot number below 2^31");
    read_fails("", 1, "bad.map:1: expected 1 entries (one per rank), got 0");
    char *longline = malloc(3000);
    memset(longline, ' ', 2998);
    longline[0] = '1';
    longline[2998] = '\n';
    longline[2999] = '\0';
    read_fails(longline, 1, "bad.map:1: expected a line of at most");
    free(longline);

    int map[2];
    cm_error_t err = { "" };
    assert_int_equal(cm_mapping_read("/nonexistent/x.map", 2, map, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/x.map"));
    assert_int_equal(cm_mapping_read("/dev/null", 0, map, &err), -1);
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int k = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            k++;
    closedir(d);
    return k;
}

static void test_write_roundtrip(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/out.map", dir);
    int map[5] = { 4, 0, 3, 1, 2 };
    cm_error_t err = { "" };
    assert_int_equal(cm_mapping_write(path, map, 5, &err), 0);
    /* Only the target is left: the temporary was renamed onto it. */
    assert_int_equal(count_files(dir), 1);
    int back[5];
    assert_int_equal(cm_mapping_read(path, 5, back, &err), 0);
    assert_memory_equal(back, map, sizeof map);
    FILE *f = fopen(path, "r");
    char buf[64] = "";
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    assert_string_equal(buf, "4\n0\n3\n1\n2\n");

    /* Overwriting replaces the file as a whole. */
    int map2[2] = { 7, 8 };
    assert_int_equal(cm_mapping_write(path, map2, 2, &err), 0);
    assert_int_equal(count_files(dir), 1);
    assert_int_equal(cm_mapping_read(path, 2, back, &err), 0);
    assert_int_equal(back[0], 7);
    assert_int_equal(back[1], 8);

    /* Failures leave no temporary behind and name the path. */
    char bad[4200];
    snprintf(bad, sizeof bad, "%s/nodir/out.map", dir);
    assert_int_equal(cm_mapping_write(bad, map, 5, &err), -1);
    assert_non_null(strstr(err.msg, "nodir/out.map"));
    int neg[2] = { 0, -3 };
    assert_int_equal(cm_mapping_write(path, neg, 2, &err), -1);
    assert_non_null(strstr(err.msg, "rank 1"));
    assert_int_equal(cm_mapping_write(path, map, 0, &err), -1);
    assert_int_equal(count_files(dir), 1);
    cm_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_ok),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_write_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
