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

# The profile store's and the launch model's public headers have their
# own NULL passes: test/unit/test_store_null.c (cm_store.h,
# cm_store_step.h, and the safe-open helpers of cm_file.h) and
# test/unit/test_launch_null.c (the launch headers, whose names start
# with cmp_).

STORE_HEADERS="$CM_ROOT/src/store/cm_store.h $CM_ROOT/src/store/cm_store_step.h $CM_ROOT/src/util/cm_file.h"
STORE_NULL_TEST=$CM_ROOT/test/unit/test_store_null.c
LAUNCH_HEADERS=$(for h in request config srun_args alloc mpirun layout_text step dirwalk leftovers; do
    echo "$CM_ROOT/src/launch/cmp_$h.h"; done)
LAUNCH_NULL_TEST=$CM_ROOT/test/unit/test_launch_null.c

# launch_functions FILE: as functions, for the launch model's cmp_ names.
launch_functions() {
    code "$1" | grep -oE '\bcmp_[a-z_0-9]+ *\(' | tr -d ' (' | sort -u
}

# not_called DECLARED CALLED TEST: fail, naming them, when a declared
# function is not called in TEST.
not_called() {
    comm -23 "$1" "$2" >missing &&
    { test ! -s missing ||
      { sed "s/^/not called in $3: /" missing >&2; false; }; }
}

test_expect_success 'store headers and cm_file.h: the function names are found' '
    for h in $STORE_HEADERS; do functions "$h"; done | sort -u >store_declared &&
    test $(wc -l <store_declared) -ge 40 &&
    grep -qx cm_store_open store_declared &&
    grep -qx cm_store_profile_counts store_declared &&
    grep -qx cm_file_read_fd store_declared
'

test_expect_success 'test_store_null.c calls every function of the store headers and cm_file.h' '
    functions "$STORE_NULL_TEST" >store_called &&
    not_called store_declared store_called test_store_null.c
'

test_expect_success 'launch headers: the function names are found' '
    for h in $LAUNCH_HEADERS; do launch_functions "$h"; done | sort -u >launch_declared &&
    test $(wc -l <launch_declared) -ge 45 &&
    grep -qx cmp_request_parse launch_declared &&
    grep -qx cmp_step_decide launch_declared &&
    grep -qx cmp_hostfile_parse launch_declared
'

test_expect_success 'test_launch_null.c calls every function of the launch headers' '
    launch_functions "$LAUNCH_NULL_TEST" >launch_called &&
    not_called launch_declared launch_called test_launch_null.c
'

test_done
