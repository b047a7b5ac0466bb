#!/bin/sh
test_description='contracts the sources keep

The engine'"'"'s messages name a module and what was wrong, never our own C
file and line: no src/core/*.c uses __FILE__ (an operator cannot act on a
source file name).  Each check runs on a planted copy first, so that it is
known to fail when the contract is broken.'
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

test_done
