#!/bin/sh
test_description='the NULL pass covers the whole public API

Every function src/core/clustermap.h declares is called in
test/unit/test_api_null.c, which calls each with NULL handles, NULL
pointers and out-of-range sizes and indices: a function added to the
header without its row there fails this test.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

HEADER=$CM_ROOT/src/core/clustermap.h
NULL_TEST=$CM_ROOT/test/unit/test_api_null.c

# code FILE: FILE without its C comments (a name in a note is not a
# declaration, nor a call).
code() {
    perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$1"
}

# functions: the names followed by '(' in FILE's code, one a line, sorted.
functions() {
    code "$1" | grep -oE '\bcm_[a-z_0-9]+ *\(' | tr -d ' (' | sort -u
}

test_expect_success 'clustermap.h: the function names are found' '
    functions "$HEADER" >declared &&
    test $(wc -l <declared) -ge 90 &&
    grep -qx cm_plan declared &&
    grep -qx cm_file_atomic_stream declared
'

test_expect_success 'test_api_null.c calls every function clustermap.h declares' '
    functions "$NULL_TEST" >called &&
    comm -23 declared called >missing &&
    { test ! -s missing ||
      { sed "s/^/not called in test_api_null.c: /" missing >&2; false; }; }
'

test_done
