# plugin.sh -- sourced by the t05NN-plugin*.t tests after sharness.sh.
# shellcheck shell=sh disable=SC2034
#
# Sets CM_ROOT, CLUSTER (test/cluster), PBUILD (the build with the plugin
# and clustermap's mpirun in bin/:
# $CLUSTERMAP_BUILD, default <root>/build), CM (the command), PLUGIN, PLACELIB
# (the placement module, found next to PLUGIN by default), PROFLIB,
# STATE (the cluster's state directory), STORE (the profile store the
# plugin is configured with, inside STATE so that every node sees it), and
# defines
#   run CMD...              a Slurm client on the cluster's login host
#   run_mpi OUT ERR CMD...  the same for an MPI launch (lib/cluster.sh)
#   sbw [OPTION...] SCRIPT  sbatch and wait for the job (sbatch_mpi of
#                           lib/cluster.sh: test/cluster/sbatch-wait, once
#                           more after Open MPI's start-up race)
#   plugin_cluster_up [PLUGSTACK-ARGS]
#                           bring the cluster up with the plugin configured
#                           (guard=no unless the arguments set guard=)
#   plugstack [ARGS...]     the plugin's plugstack.conf line with ARGS added
#                           (srun and slurmstepd read it at every step: no
#                           restart); without ARGS, as plugin_cluster_up made it
#   ranks_hosts FILE...     "rank host" of the halo/hello output lines
#   plan_of FILE            "rank node core" of the plugin's verbose plan lines
#   check_plan_hosts ERR OUT N, check_bound ERR OUT N
#                           the ranks ran where the plan says, bound where
#                           the plugin says
#   profile_file DIR NAME N the profile file of job NAME with N tasks in the
#                           store directory DIR, whatever its program
#   import_pairs, pairs_share_nodes
#                           the profile `pairs` (8 ranks, i <-> i + 4), and
#                           whether a placed run kept its pairs together
#   cm_lines FILE           the "clustermap:" lines of FILE
#   one_line FILE ERE, no_line FILE
#                           exactly one such line, matching ERE; none
#   test_users, remove_users, as USER CMD...
#                           the unprivileged test users cmtu1 and cmtu2
#   diag FILE...            show FILEs on the test's stderr, "# "-prefixed,
#                           and fail: `check || diag out.err` puts what a
#                           failed check saw into prove's output (and CI's
#                           log), where sharness without -v shows nothing
# Callers set CM_CLUSTER_NAME before sourcing (their own cluster) and
# CM_CLUSTER_SLURM_EXTRA if they need more slurm.conf lines.  With
# CM_PLUGIN_PATHS_ONLY=1 it stops after the paths (tests that look at the
# built files before they know whether the cluster can run here).

CM_ROOT=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
. "$SHARNESS_TEST_DIRECTORY/lib/diag.sh"
CLUSTER=$CM_ROOT/test/cluster
PBUILD=${CLUSTERMAP_BUILD:-$CM_ROOT/build}
case $PBUILD in
/*) ;;
*) PBUILD=$CM_ROOT/$PBUILD ;;
esac
CM=$PBUILD/clustermap
PLUGIN=$PBUILD/clustermap.so
PLACELIB=$PBUILD/clustermap-place.so
PROFLIB=$PBUILD/libclustermap-prof.so
export CM_CLUSTER_NAME
unset CM_CLUSTER_PLUGSTACK CM_CLUSTER_PLUGSTACK_FILE CM_CLUSTER_NODES
unset SLURM_HOSTFILE SLURM_JOB_ID CLUSTERMAP_STORE
STATE=$(. "$CLUSTER/lib.sh" && echo "$CM_STATE")
STORE=$STATE/store

for f in "$CM" "$PLUGIN" "$PLACELIB" "$PROFLIB"; do
    test -f "$f" || error "$f not built (run make, or set CLUSTERMAP_BUILD)"
done
[ "${CM_PLUGIN_PATHS_ONLY:-0}" = 1 ] && return 0

# run, run_mpi, sbatch_mpi, cluster_finish and the skip rules (root,
# namespaces) come from cluster.sh; the tests also need mpicc.
. "$SHARNESS_TEST_DIRECTORY/lib/cluster.sh"
if ! command -v mpicc >/dev/null 2>&1; then
    skip_all='needs mpicc'
    test_done
fi
sbw() { sbatch_mpi "$@"; }

# The Slurm release of the stack under test ("24.11.5"), and the
# prerequisite NODES_ARBITRARY when srun accepts -N together with the
# arbitrary layout of SLURM_HOSTFILE (before 23.11; 24.11 and 26.05 refuse
# it, and the plugin then leaves such a step to Slurm).
SLURM_RELEASE=$(slurmd -V 2>/dev/null | awk '{print $2}')
slurm_older_than() {   # MAJOR.MINOR
    printf '%s\n%s\n' "$1" "$SLURM_RELEASE" | sort -V -C 2>/dev/null && return 1
    return 0
}
if slurm_older_than 23.11; then test_set_prereq NODES_ARBITRARY; fi

# test_users: the unprivileged test users cmtu1 and cmtu2 (group users),
# created when missing; sets U1 and U2.  remove_users deletes those
# test_users created.  as USER CMD...: run CMD as USER.
test_users() {
    if ! command -v useradd >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
        skip_all='needs useradd and setpriv (two unprivileged test users)'
        test_done
    fi
    created_users=
    for u in cmtu1 cmtu2; do
        if ! id "$u" >/dev/null 2>&1; then
            useradd -M -N -g users -s /bin/sh "$u" || error "useradd $u failed"
            created_users="$created_users $u"
        fi
    done
    U1=$(id -u cmtu1) U2=$(id -u cmtu2)
}
remove_users() {
    for u in $created_users; do userdel "$u" 2>/dev/null; done
}
as() {
    u=$1; shift
    setpriv --reuid="$u" --regid=users --clear-groups "$@"
}

# sbw_as USER [OPTION...] SCRIPT: submit as USER (group users), wait as
# root; after 60 s, cancel the job and return 124 (as sbatch-wait does).
# (_sw_ names: race_retry runs it and keeps counters of its own.)
sbw_as() {
    _sw_u=$1; shift
    _sw_id=$(run setpriv --reuid="$_sw_u" --regid=users --clear-groups sbatch --parsable "$@") ||
        return 1
    _sw_id=${_sw_id%%;*}
    _sw_i=0
    while [ "$_sw_i" -lt 600 ]; do
        _sw_st=$(run scontrol -o show job "$_sw_id" | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p')
        case $_sw_st in
            COMPLETED) return 0 ;;
            FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 1 ;;
        esac
        sleep 0.1; _sw_i=$((_sw_i + 1))
    done
    echo "sbw_as: job $_sw_id still ${_sw_st:-unknown} after 60 s; cancelling" >&2
    run scancel "$_sw_id"; return 124
}

# The measured guard (guard=yes, the default) decides from run times,
# which on one shared machine are noise: the tests of placement mechanics
# turn it off so that their placements are deterministic; t0513 tests it
# (plugin_cluster_up guard=yes ...).
plugstack() {
    echo "$CM_CLUSTER_PLUGSTACK $*" >"$STATE/etc/plugstack.conf"
}

# prof_lib_only_on NODE...: the profiler's library copied into the private
# /tmp of those nodes only, and plugstack.conf's prof_lib pointed there, so
# that every other node lacks it.  Call test_when_finished "plugstack" in
# the test to restore the plugstack.
prof_lib_only_on() {
    for i in "$@"; do
        mkdir -p "$STATE/tmp/$i/cmlib" && cp "$PROFLIB" "$STATE/tmp/$i/cmlib/" || return 1
    done &&
    plugstack prof_lib=/tmp/cmlib/libclustermap-prof.so
}

plugin_cluster_up() {
    case " $* " in
    *" guard="*) guard= ;;
    *) guard=guard=no ;;
    esac
    CM_CLUSTER_PLUGSTACK="required $PLUGIN store=$STORE prof_lib=$PROFLIB mpirun_dir=$PBUILD/bin $guard $*"
    export CM_CLUSTER_PLUGSTACK
    "$CLUSTER/up.sh" >up.out 2>&1 || { cat up.out; return 1; }
}

ranks_hosts() { awk '$1 == "rank" && $3 == "size" {print $2, $6}' "$@"; }
plan_of() { sed -n 's/^clustermap: rank \([0-9]*\) -> \([^ ]*\) core \([0-9]*\)$/\1 \2 \3/p' "$@"; }

# check_plan_hosts ERR OUT N: the N ranks ran on the hosts of the plan
# (both sides in rank order: tasks that print their own line print in any);
# leaves plan.hosts and ran.hosts ("rank host") behind.
check_plan_hosts() {
    plan_of "$1" | awk '{print $1, $2}' | sort -n >plan.hosts &&
    ranks_hosts "$2" | sort -n >ran.hosts &&
    test "$(wc -l <plan.hosts)" -eq "$3" &&
    test_cmp plan.hosts ran.hosts
}

# check_bound ERR OUT N: each of the N ranks ran on the CPUs the plugin
# says it bound it to ("clustermap: rank R slot S cpus LIST" lines of ERR,
# "rank R size S host H cpus LIST" lines of OUT); leaves "joined" (rank,
# bound, ran) behind.
check_bound() {
    sed -n "s/^clustermap: rank \([0-9]*\) slot [0-9]* cpus \(.*\)$/\1 \2/p" "$1" |
        sort -k1,1 >bound &&
    test "$(wc -l <bound)" -eq "$3" &&
    awk '$1 == "rank" {print $2, $8}' "$2" | sort -k1,1 >ran.cpus &&
    join bound ran.cpus >joined &&
    test "$(wc -l <joined)" -eq "$3" &&
    awk '$2 != $3 {print; bad = 1} END {exit bad}' joined
}
# import_pairs: the profile of job `pairs` in STORE, 8 ranks, rank i
# talking to rank i + 4 only (Slurm's and mpirun's own layouts put every
# pair apart); pairs_share_nodes: in ran.hosts (check_plan_hosts), every
# node ran 2 ranks and each pair shares one.
import_pairs() {
    for i in 0 1 2 3; do
        echo "$i $((i + 4)) 1000000 100" && echo "$((i + 4)) $i 1000000 100" || return 1
    done >pairs.txt &&
    "$CM" profile --store "$STORE" import pairs.txt --job-name pairs --format triplets \
        >import.out &&
    "$CM" profile --store "$STORE" list >list && grep "^pairs  *8 " list
}
pairs_share_nodes() {
    awk '{print $2}' ran.hosts | sort | uniq -c | awk '{print $1}' >counts &&
    printf '2\n2\n2\n2\n' >expect &&
    test_cmp expect counts &&
    awk '{host[$1] = $2} END {for (i = 0; i < 4; i++) if (host[i] != host[i + 4]) exit 1}' \
        ran.hosts
}
cm_lines() { grep '^clustermap:' "$@" || true; }
# Profiles are keyed by job name and program: NAME%40PROGRAM-HASH.N.json
# (docs/profile-format.md), or NAME.N.json for name= profiles.
profile_file() {
    f=$(ls "$1" 2>/dev/null | grep -E "^$2(%40.*-[0-9a-f]{8})?[.]$3[.]json$" | head -n 1)
    test -n "$f" && echo "$1/$f"
}
# one_line FILE ERE: exactly one clustermap line in FILE, and it matches;
# no_line FILE: none.
one_line() {
    cm_lines "$1" >lines &&
    test "$(wc -l <lines)" -eq 1 &&
    grep -E "$2" lines
}
no_line() { test -z "$(cm_lines "$1")"; }

# The job's output must be readable by every test user: a world-writable
# sticky directory in the trash directory (which is outside /tmp, so every
# node sees it).
mkdir -p out && chmod 1777 out && chmod o+rx . 2>/dev/null
