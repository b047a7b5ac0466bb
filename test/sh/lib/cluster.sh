# cluster.sh -- sourced by sharness tests that need the virtual Slurm cluster
# of test/cluster/ (see test/cluster/README.md), after sharness.sh.
# shellcheck shell=sh
#
# Skips the whole test file when the cluster cannot run here (not root, or
# namespaces not permitted).  Each test file gets a cluster of its own, named
# after the file ("t0500" for t0500-*.t), unless CM_CLUSTER_NAME is set, so a
# test never restarts a cluster another test or a developer is using.
#
# Sets
#   CM_CLUSTER_BIN    test/cluster (up.sh, down.sh, run, sbatch-wait, wait-idle)
#   CM_CLUSTER_STATE  the cluster's state directory
# Defines
#   run CMD...        a Slurm client on the login host (test/cluster/run)
#   cluster_idle      wait until no job runs or completes (before checking
#                     which nodes a job gets: Slurm picks n1, n2... if free)
#   cluster_finish    call right before test_done: takes the cluster down
#                     (unless CM_CLUSTER_KEEP=1) after copying its logs to
#                     ./cluster-log (kept with the trash directory on failure)
# Bring the cluster up in the first test, with the plugstack the file needs:
#   test_expect_success 'cluster up' '"$CM_CLUSTER_BIN/up.sh"'

. "$SHARNESS_TEST_DIRECTORY/../sh/lib/diag.sh"   # also from test/pkg
CM_CLUSTER_BIN=$(cd "$SHARNESS_TEST_DIRECTORY/../cluster" && pwd)
if [ -z "${CM_CLUSTER_NAME:-}" ]; then
    CM_CLUSTER_NAME=$(basename "$0" | sed -n 's/^\(t[0-9][0-9]*\).*/\1/p' | cut -c1-8)
    CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-cmtest}
fi
export CM_CLUSTER_NAME
CM_CLUSTER_STATE=$(. "$CM_CLUSTER_BIN/lib.sh" && echo "$CM_STATE") ||
    error "test/cluster/lib.sh: bad cluster settings"

if [ "$(id -u)" -ne 0 ]; then
    skip_all='the virtual Slurm cluster needs root (network namespaces, bind mounts)'
    test_done
fi
if ! command -v ip >/dev/null 2>&1 ||
   ! unshare --net --uts --mount --propagation private true 2>/dev/null; then
    skip_all='creating network/UTS/mount namespaces is not permitted here'
    test_done
fi

run() { "$CM_CLUSTER_BIN/run" "$@"; }

# SRUN_PMIX: srun can start Open MPI programs, which needs Slurm's mpi/pmix
# plugin (Open MPI 5 and 6 have no PMI-2: under srun --mpi=pmi2 every rank
# is a singleton).  Debian forky's Slurm 26.05.5 ships none; its Open MPI 6
# programs start with mpirun only.  needs_srun_pmix: skip the whole file
# without it.
if (. "$CM_CLUSTER_BIN/lib.sh" && cm_has_pmix); then
    test_set_prereq SRUN_PMIX
fi
needs_srun_pmix() {
    test_have_prereq SRUN_PMIX && return 0
    skip_all="srun cannot start MPI programs here: this Slurm has no mpi/pmix plugin"
    test_done
}
# MPI_RUN: how a batch script of the tests that run on every stack starts
# an MPI program on all of the job's tasks: srun with PMIx where this Slurm
# has it, else mpirun (clustermap's, in a job with --mapping), so that
# forky's Open MPI 6 runs them too.  MPIRUN_ONLY: the latter.  Written
# into a script as it is: an mpirun that clustermap does not place
# (--mapping=off) is told --bind-to none, as Open MPI 6 refuses to bind
# ranks to the CPUs a virtual node claims and this machine lacks.
if test_have_prereq SRUN_PMIX; then
    MPI_RUN="srun -K --mpi=pmix"
else
    MPI_RUN='mpirun --allow-run-as-root $(test -n "$CLUSTERMAP_MPIRUN_DIR" || echo --bind-to none)'
    test_set_prereq MPIRUN_ONLY
fi

cluster_idle() { "$CM_CLUSTER_BIN/wait-idle" 30; }

# Open MPI 4.1.4's TCP transport occasionally kills a rank during start-up
# with a call through NULL ("Failing at address: (nil)"), more often when
# ranks on different nodes connect to each other at once.  It is not ours
# to fix; a job or step that died of it is run once more, and said so.
# Open MPI 5.0.7 has its own (open-mpi/ompi issue 12495, still open): a rank
# leaves MPI_Init's fence and sends before a peer that is still waiting on
# it has added MPI_COMM_WORLD to ob1, whose matching then reads a NULL
# communicator (SIGSEGV at 0xe0, mca_pml_ob1_recv_frag_callback_match under
# ompi_mpi_init); on this loaded 2-core machine it hit one 16-rank launch in
# a few.  Slurm 22.05's mpi/pmix_v4 has one of its own: a slurmstepd
# rejects another's direct connection when munge refuses the credential
# ("Munge decode failed: Unauthorized credential for client UID=<the job
# user>", then "Verifying authentication credential: Invalid authentication
# credential"), and the step's ranks crash or hang in MPI_Init; seen twice
# in CI (2026-11-25, t0519, jobs of an unprivileged user), and on
# production clusters with pmix_v3 (esm-tools/esm_tools issue 1367).
ompi_race() {
    grep -q "Failing at address: (nil)" "$@" 2>/dev/null ||
        grep -q "Verifying authentication credential: Invalid authentication credential" \
            "$@" 2>/dev/null ||
        { grep -q "mca_pml_ob1_recv_frag_callback_match" "$@" 2>/dev/null &&
          grep -q "ompi_mpi_init" "$@" 2>/dev/null; }
}

# How many times a launch that died of one of these races is run again.
# Two was not enough: three launches in a row crashed in one row of two CI
# runs of 2026-11-28 (t0510 row 17, t0513 row 10), on a loaded machine.
OMPI_RACE_RETRIES=4

# run_mpi OUT ERR CMD...: run CMD on the login host, stdout to OUT and
# stderr to ERR, again (at most OMPI_RACE_RETRIES more) while it fails of an Open MPI
# start-up race.
run_mpi() {
    out=$1 err=$2; shift 2
    n=0
    while :; do
        run "$@" >"$out" 2>"$err" && return 0
        ompi_race "$err" && [ "$n" -lt "$OMPI_RACE_RETRIES" ] || return 1
        n=$((n + 1))
        say "# Open MPI start-up race (see test/sh/lib/cluster.sh); running again"
    done
}

# race_retry SUBMIT [ARG...]: run SUBMIT ARG... (a command that submits a
# job and waits for it), and again (at most OMPI_RACE_RETRIES more) while the job's -e
# file (else its -o file) shows an Open MPI start-up race -- also when the
# job itself succeeded, as a script whose last command is not the srun does.
# A job that sbatch-wait gave up on (exit 124: still pending or running
# after CM_JOB_TIMEOUT) is submitted once more, with what sbatch-wait saw
# in prove's output.  In a CI run of 2026-11-28, t0513 took 244 s against
# its usual 130 s and one of its jobs failed with nothing in its files:
# one job cancelled after 120 s, most likely Open MPI's connection set-up
# starved of CPU (t0513 has its ranks yield now).  A hang that comes back
# is still a failure.
race_retry() {
    # _rr_ names: SUBMIT may be a shell function with loop counters of its own
    _rr_log= _rr_prev=
    for _rr_a in "$@"; do
        case $_rr_prev in -e) _rr_log=$_rr_a ;; -o) [ -n "$_rr_log" ] || _rr_log=$_rr_a ;; esac
        _rr_prev=$_rr_a
    done
    _rr_n=0 _rr_hung=0 _rr_err=$(mktemp)
    while :; do
        "$@" 2>"$_rr_err"
        _rr_rc=$?
        cat "$_rr_err" >&2
        if [ "$_rr_rc" -eq 124 ] && [ "$_rr_hung" -eq 0 ]; then
            _rr_hung=1
            { sed 's/^/# /' "$_rr_err"; echo "# submitting it again"; } >&7
            continue
        fi
        [ -n "$_rr_log" ] && ompi_race "$_rr_log" && [ "$_rr_n" -lt "$OMPI_RACE_RETRIES" ] || break
        _rr_n=$((_rr_n + 1))
        say "# Open MPI start-up race (see test/sh/lib/cluster.sh); submitting again"
    done
    rm -f "$_rr_err"
    return $_rr_rc
}

# sbatch_mpi [SBATCH-OPTION...] SCRIPT: sbatch-wait under race_retry.
sbatch_mpi() { race_retry "$CM_CLUSTER_BIN/sbatch-wait" "$@"; }

cluster_finish() {
    if [ -d "$CM_CLUSTER_STATE/log" ]; then
        rm -rf cluster-log && cp -r "$CM_CLUSTER_STATE/log" cluster-log 2>/dev/null
    fi
    if [ "${CM_CLUSTER_KEEP:-0}" = 1 ]; then
        say "# cluster $CM_CLUSTER_NAME kept: CM_CLUSTER_NAME=$CM_CLUSTER_NAME test/cluster/run ..."
    else
        "$CM_CLUSTER_BIN/down.sh" >/dev/null 2>&1
    fi
}
