#!/bin/sh
test_description='contracts the sources keep

The engine'"'"'s messages name a module and what was wrong, never our own C
file and line: no src/core/*.c uses __FILE__ (an operator cannot act on a
source file name).  Comments in src/ say why, not which seed paper,
issue or stop asked for it: the papers are named in docs/design.md ("Where
each method comes from").  Each check runs on a planted file first, so
that it is known to fail when the contract is broken.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
# Sources only: no build needed, so lib/clustermap.sh (which requires the
# command) is not sourced.
CM_ROOT=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)

# file_refs FILE...: the lines that use __FILE__, as FILE:LINE:text;
# status 1 when there are any.
file_refs() {
    ! grep -n -H __FILE__ "$@"
}

# history_refs FILE...: the lines that cite the project's history ("seed
# 004", "issue 13", "stop 26"); status 1 when there are any.
history_refs() {
    ! grep -n -H -i -E '\b(seeds? [0-9]{3}|issues? #?[0-9]+|stop [0-9]+)\b' "$@"
}

test_expect_success 'the check finds a planted __FILE__' '
    printf "%s\n" "int f(cm_error_t *err)" "{" \
        "    return cm_error_set(err, \"%s:%d: oops\", __FILE__, __LINE__);" \
        "}" >planted.c &&
    test_expect_code 1 file_refs planted.c >found &&
    grep -q "^planted.c:3:" found
'

test_expect_success 'no src/core/*.c prints __FILE__' '
    file_refs "$CM_ROOT"/src/core/*.c
'

test_expect_success 'the check finds planted history notes, not seeds' '
    printf "%s\n" "/* as seed 004 does */" "/* see issue 13 */" \
        "/* since stop 26 */" "#define START_SEED 0x43502d4e5343ULL" \
        "/* seed 1 is the default */" >history.c &&
    test_expect_code 1 history_refs history.c >found &&
    cut -d: -f2 found >lines &&
    printf "%s\n" 1 2 3 >expected &&
    test_cmp expected lines
'

test_expect_success 'no source of src/ cites seeds, issues or stops' '
    history_refs "$CM_ROOT"/src/*/*.c "$CM_ROOT"/src/*/*.h
'

test_done
