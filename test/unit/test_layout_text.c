/* test_layout_text.c -- the hostfile and the per-rank core list
 * (src/launch/layout_text.c): what srun writes is what srun and the tasks
 * read back, and what cannot be written is refused, never cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmp_layout_text.h"

static const char *const NAMES[] = { "n1", "node-02", "n3" };

static void test_hostfile_round_trip(void **state)
{
    (void)state;
    int node[] = { 2, 0, 0, 1, 2 }, back[5];
    size_t len = 0;
    cm_error_t err;
    char *text = cmp_hostfile_format(NAMES, node, 5, &len, &err);
    assert_non_null(text);
    assert_string_equal(text, "n3\nn1\nn1\nnode-02\nn3\n");
    assert_int_equal(len, strlen(text));
    assert_int_equal(cmp_hostfile_parse(text, len, NAMES, 3, 5, back, &err), 0);
    assert_memory_equal(back, node, sizeof node);
    free(text);
    /* no ranks: an empty file */
    text = cmp_hostfile_format(NAMES, node, 0, &len, &err);
    assert_non_null(text);
    assert_int_equal(len, 0);
    assert_int_equal(cmp_hostfile_parse(text, len, NAMES, 3, 0, back, &err), 0);
    free(text);
}

static void test_hostfile_refused(void **state)
{
    (void)state;
    const char *bad[] = { "n1", "two words", "" };
    int node[] = { 0, 1 }, back[4];
    size_t len;
    cm_error_t err;
    assert_null(cmp_hostfile_format(bad, node, 2, &len, &err));
    assert_non_null(strstr(err.msg, "'two words' of rank 1"));
    node[1] = 2;
    assert_null(cmp_hostfile_format(bad, node, 2, &len, &err));
    assert_non_null(strstr(err.msg, "rank 1 is empty"));
    assert_int_equal(cmp_hostfile_parse("n1\nn9\n", 6, NAMES, 3, 2, back, &err), -1);
    assert_string_equal(err.msg,
                        "hostfile: line 2: 'n9' is not a node of the allocation");
    assert_int_equal(cmp_hostfile_parse("n1\nn1\nn1\n", 9, NAMES, 3, 2, back, &err), -1);
    assert_string_equal(err.msg, "hostfile: line 3: more lines than the 2 ranks");
    assert_int_equal(cmp_hostfile_parse("n1\n", 3, NAMES, 3, 2, back, &err), -1);
    assert_string_equal(err.msg, "hostfile: 1 lines for 2 ranks");
    /* a last line without its newline still counts */
    assert_int_equal(cmp_hostfile_parse("n1\nn3", 5, NAMES, 3, 2, back, &err), 0);
    assert_int_equal(back[1], 2);
}

static void test_core_list(void **state)
{
    (void)state;
    int slot[] = { 3, 0, 1048576, 12 };
    cm_error_t err;
    char *list = cmp_core_list_format(slot, 4, &err);
    assert_non_null(list);
    assert_string_equal(list, "3,0,1048576,12");
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(cmp_core_list_entry(list, r), slot[r]);
    assert_int_equal(cmp_core_list_entry(list, 4), -1);
    free(list);
    slot[2] = (1 << 20) + 1;
    assert_null(cmp_core_list_format(slot, 4, &err));
    assert_string_equal(err.msg,
                        "core list: rank 2 has slot 1048577 (expected 0 to 1048576)");
    slot[2] = -1;
    assert_null(cmp_core_list_format(slot, 4, &err));
    /* what a task must not take for a slot */
    assert_int_equal(cmp_core_list_entry("", 0), -1);
    assert_int_equal(cmp_core_list_entry("1,x,3", 1), -1);
    assert_int_equal(cmp_core_list_entry("1,2x,3", 1), -1);
    assert_int_equal(cmp_core_list_entry("1,-2,3", 1), -1);
    assert_int_equal(cmp_core_list_entry("1,,3", 1), -1);
    assert_int_equal(cmp_core_list_entry("1,2,3", 2), 3);
    /* the largest list srun binds: 16384 ranks of 7 digits */
    int *big = malloc(16384 * sizeof *big);
    assert_non_null(big);
    for (int r = 0; r < 16384; r++)
        big[r] = 1048576 - r;
    list = cmp_core_list_format(big, 16384, &err);
    assert_non_null(list);
    assert_int_equal(cmp_core_list_entry(list, 16383), 1048576 - 16383);
    free(list);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostfile_round_trip),
        cmocka_unit_test(test_hostfile_refused),
        cmocka_unit_test(test_core_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
