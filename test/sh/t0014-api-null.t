#!/bin/sh
test_description='the NULL pass covers the whole public API

Every function src/core/clustermap.h declares is called in
test/unit/test_api_null.c, and every function src/profiles/cm_profile.h
and src/profiles/cm_history.h declare is called in
test/unit/test_profiles_null.c; those call each with NULL handles, NULL
pointers, out-of-range sizes and indices and garbage text: a function
added to a header without its row there fails this test.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

HEADER=$CM_ROOT/src/core/clustermap.h
NULL_TEST=$CM_ROOT/test/unit/test_api_null.c
PROFILE_H=$CM_ROOT/src/profiles/cm_profile.h
HISTORY_H=$CM_ROOT/src/profiles/cm_history.h
PROFILES_NULL_TEST=$CM_ROOT/test/unit/test_profiles_null.c

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

test_expect_success 'cm_profile.h and cm_history.h: the function names are found' '
    { functions "$PROFILE_H" && functions "$HISTORY_H"; } | sort -u >declared-profiles &&
    test $(wc -l <declared-profiles) -ge 35 &&
    grep -qx cm_profile_parse_json declared-profiles &&
    grep -qx cm_profile_from_raw declared-profiles &&
    grep -qx cm_guard_decide declared-profiles
'

test_expect_success 'test_profiles_null.c calls every function cm_profile.h and cm_history.h declare' '
    functions "$PROFILES_NULL_TEST" >called-profiles &&
    comm -23 declared-profiles called-profiles >missing-profiles &&
    { test ! -s missing-profiles ||
      { sed "s/^/not called in test_profiles_null.c: /" missing-profiles >&2; false; }; }
'

test_done
