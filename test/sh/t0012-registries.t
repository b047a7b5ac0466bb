#!/bin/sh
test_description='each vocabulary is written in one place

The environment variables: src/util/cm_env.h spells every CLUSTERMAP_
variable, no other file of src/ starts a string with one, no two macros
spell the same variable, and each variable marked "user: DOC" there is
named in that document.  The site configuration: `clustermap profile
show` judges the guard with the guard_window=, guard_probe= and
guard_recheck= of the clustermap line of plugstack.conf, parsed by the
plugin'"'"'s own table (src/launch/config.c).'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
if test -z "${CLUSTERMAP:-}" && test -n "${CLUSTERMAP_BUILD:-}"
then CLUSTERMAP=$CLUSTERMAP_BUILD/clustermap
fi
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

ENV_H=$CM_ROOT/src/util/cm_env.h

# Literals allowed outside cm_env.h ("path:literal" lines): none.
PENDING=''

# stray_literals ROOT: "path:"CLUSTERMAP_X" for every string of ROOT/src
# that starts with a variable's name, outside cm_env.h and PENDING.
stray_literals() {
    (cd "$1" && grep -rnoE "\"CLUSTERMAP_[A-Za-z0-9_]*" src) |
        grep -v "^src/util/cm_env.h:" | sed "s/:[0-9]*:/:/" | sort -u >found
    printf "%s\n" "$PENDING" | sort -u >pending
    comm -23 found pending
}

# env_vars: "MACRO VARIABLE" for every variable cm_env.h defines.
env_vars() {
    sed -n 's/^#define \([A-Z_]*\) *"\(CLUSTERMAP_[A-Z_]*\)".*/\1 \2/p' "$ENV_H"
}

# user_vars: "VARIABLE DOC" for the variables users may set.
user_vars() {
    sed -n 's/^#define [A-Z_]* *"\(CLUSTERMAP_[A-Z_]*\)" *\/\* *user: *\([^ ]*\) *\*\/.*/\1 \2/p' \
        "$ENV_H"
}

test_expect_success 'cm_env.h defines the variables, each once' '
    env_vars >vars &&
    test $(wc -l <vars) -ge 30 &&
    cut -d" " -f2 vars | sort >names &&
    sort -u names >names.u &&
    test_cmp names names.u &&
    cut -d" " -f1 vars | sort >macros &&
    sort -u macros >macros.u &&
    test_cmp macros macros.u
'

test_expect_success 'no file of src/ but cm_env.h starts a string with CLUSTERMAP_' '
    stray_literals "$CM_ROOT" >stray &&
    { test ! -s stray || { sed "s/^/spelled outside cm_env.h: /" stray >&2; false; }; }
'

test_expect_success 'every variable users may set is named in the document cm_env.h gives' '
    user_vars >user &&
    test $(wc -l <user) -ge 8 &&
    while read -r var doc; do
        test -f "$CM_ROOT/$doc" ||
            { echo "cm_env.h: $var: no document $doc" >&2; return 1; }
        grep -qw -- "$var" "$CM_ROOT/$doc" ||
            { echo "$doc does not name $var" >&2; return 1; }
    done <user
'

test_expect_success 'the check finds a stray literal (a copy of src/ with one)' '
    mkdir -p copy/src/util copy/src/x &&
    cp "$ENV_H" copy/src/util/ &&
    echo "const char *s = \"CLUSTERMAP_NEW\";" >copy/src/x/y.c &&
    stray_literals copy >copy.stray &&
    test "$(cat copy.stray)" = "src/x/y.c:\"CLUSTERMAP_NEW"
'

# A store with one profile of 16 tasks and no timed run: the guard's
# verdict is "few-placed" whatever the rule; the rule line shows its figures.
test_expect_success 'a store and a site whose plugstack.conf sets the guard' '
    mkdir -p site/p.d st &&
    printf "# site\ninclude p.d/*.conf\n" >site/plugstack.conf &&
    printf "optional /usr/lib/x/other.so guard_window=9\n" >site/p.d/a.conf &&
    printf "required /usr/lib/x/clustermap.so guard_window=3 guard_probe=0 guard_recheck=7 colour=blue\n" \
        >site/p.d/cm.conf &&
    touch site/slurm.conf &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name g --store "$PWD/st"
'

test_expect_success 'profile show: the guard rule of plugstack.conf (a bad argument aside)' '
    SLURM_CONF=$PWD/site/slurm.conf cm_run profile show g --ntasks 16 --store "$PWD/st" >show &&
    grep "^guard.rule=window 3, min_placed 2, min_default 2, probe after 0, recheck after 7, " show &&
    grep "^guard.rule=.*(plugstack.conf.s guard_window, guard_probe and guard_recheck)$" show
'

test_expect_success 'profile show: guard=no in plugstack.conf is said' '
    printf "required /usr/lib/x/clustermap.so guard=no\n" >site/p.d/cm.conf &&
    SLURM_CONF=$PWD/site/slurm.conf cm_run profile show g --ntasks 16 --store "$PWD/st" >show.off &&
    grep "^guard.rule=window 5, .*; guard=no there: jobs are placed without it)$" show.off
'

test_expect_success 'profile show: slurm.conf.s PlugStackConfig= names the plugstack.conf' '
    mkdir -p other &&
    printf "required /usr/lib/x/clustermap.so guard_window=4\n" >other/ps.conf &&
    printf "ClusterName=c\n  plugstackconfig = \"$PWD/other/ps.conf\"  # here\n" >site/ps-slurm.conf &&
    SLURM_CONF=$PWD/site/ps-slurm.conf cm_run profile show g --ntasks 16 --store "$PWD/st" >show.ps &&
    grep "^guard.rule=window 4, " show.ps
'

test_expect_success 'profile show: the defaults without a clustermap line' '
    SLURM_CONF=$PWD/nowhere/slurm.conf cm_run profile show g --ntasks 16 --store "$PWD/st" >show.def &&
    grep "^guard.rule=window 5, min_placed 2, min_default 2, probe after 5, recheck after 20, .*(the defaults: no clustermap line in plugstack.conf)$" show.def
'

test_done
