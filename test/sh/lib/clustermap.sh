# clustermap.sh -- sourced by the sharness tests after sharness.sh.
# shellcheck shell=sh disable=SC2034
#
# Sets
#   CM_ROOT     the repository (test/sh/../..)
#   CLUSTERMAP  the command under test (env CLUSTERMAP, default
#               $CM_ROOT/build/clustermap, which test/check.sh builds)
#   CM_DATA     $CM_ROOT/test/data
#   CM_MATRICES, CM_GRAPHS  its matrices/ and graphs/
#   JCOST       the independent cost calculator test/sh/lib/jcost.pl
# and defines cm_run (run the command), cm_value KEY FILE (the value of a
# "KEY=value" line) and valid_mapping FILE N SLOTS.
#
# A test starts with
#   test_description='...'
#   SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
#   . /usr/share/sharness/sharness.sh
#   . "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"
# (sharness defaults SHARNESS_TEST_DIRECTORY to the current directory, which
# is the repository root under `prove test/sh/*.t`).

CM_ROOT=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
CLUSTERMAP=${CLUSTERMAP:-$CM_ROOT/build/clustermap}
case $CLUSTERMAP in
/*) ;;
*) CLUSTERMAP=$CM_ROOT/$CLUSTERMAP ;;
esac
CM_DATA=$CM_ROOT/test/data
CM_MATRICES=$CM_DATA/matrices
CM_GRAPHS=$CM_DATA/graphs
JCOST=$SHARNESS_TEST_DIRECTORY/lib/jcost.pl
export CLUSTERMAP CM_ROOT CM_DATA

# A missing binary is a failure, not a skip: check.sh builds it first.
test -x "$CLUSTERMAP" || error "$CLUSTERMAP not built (run make, or set CLUSTERMAP)"

cm_run() {
    "$CLUSTERMAP" "$@"
}

# cm_value KEY FILE: the value of the line "KEY=value" in FILE.
cm_value() {
    sed -n "s/^$1=//p" "$2"
}

# valid_mapping FILE N SLOTS: N lines, each an integer in [0, SLOTS), all
# distinct.
valid_mapping() {
    test "$(wc -l <"$1")" -eq "$2" &&
    awk -v slots="$3" '
        !/^[0-9]+$/ || $1 >= slots { print "bad line " NR ": " $0; bad = 1 }
        seen[$1]++ { print "slot " $1 " twice"; bad = 1 }
        END { exit bad }' "$1"
}
