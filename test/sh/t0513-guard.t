#!/bin/sh
#
# The measured guard on the virtual cluster: every run of a profiled job is
# timed (elapsed and MPI time per rank, by the profiling library), the
# store keeps the runs with how each was placed, and the plugin stops
# placing a job whose placed runs were slower than its runs under Slurm's
# default -- with one line -- and probes the placement again later
# (guard_probe=2 here).  A job that placement makes faster keeps it.  The
# program (test/mpi/guard_sleep.c) sleeps 3 s for each of its
# group peers that share its node ("same": placement is slower) or do not
# ("other": placement is faster), which no cost model can see.  The rule
# needs two timed runs of each kind, so the guard itself times Slurm's
# default once (run 4) before it judges.
#
# The program starts with $MPI_RUN (lib/cluster.sh): srun, or clustermap's
# mpirun where this Slurm has no PMIx (forky).
#
# Own cluster (CM_CLUSTER_NAME=t0513), taken down at the end unless
# CM_CLUSTER_KEEP=1.

test_description='SPANK plugin: the measured guard'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0513}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

# run_job NAME MODE K: the K-th run of job NAME, its output in out/NAME.K.*
# (sbatch's "Submitted batch job N" in out/NAME.K.sub); a failed job shows
# its files and the cluster's log lines about it (job_diag)
run_job() {
    sbw -J "$1" -N4 -n16 --exclusive --mapping=cluster,verbose \
        -o "out/$1.$3.out" -e "out/$1.$3.err" "$2.sh" >"out/$1.$3.sub" &&
    cat "out/$1.$3.sub" ||
    job_diag "$1.$3"
}
jobid_of() { sed -n "s/^Submitted batch job \([0-9]*\).*/\1/p" "out/$1.sub" | tail -n 1; }
# job_diag NAME.K: show the run's files, the log lines of its job and the
# profile's history in prove's output, and fail
job_diag() {
    j=$(jobid_of "$1")
    grep -h -e "\[$j\." -e "JobId=$j " -e "job $j[ .]" \
        "$STATE"/log/slurmctld.log "$STATE"/log/slurmd-*.log >"out/$1.log" 2>/dev/null
    "$CM" profile --store "$STORE" show "${1%.*}" --ntasks 16 >"out/$1.show" 2>&1
    diag "out/$1.sub" "out/$1.err" "out/$1.out" "out/$1.log" "out/$1.show"
}
# placed FILE: the run was placed from the profile (a plan was printed)
placed() { grep -q "^clustermap: placed 16 tasks of job" "$1"; }
# slurm_layout FILE: ranks ran where Slurm's block layout puts them
slurm_layout() {
    ranks_hosts "$1" | awk '{ want = "n" (int($1 / 4) + 1); if ($2 != want) bad = 1 }
                            END { exit bad }'
}
# The 4 nodes claim 32 cores on the machine's 2: 16 busy-polling ranks left
# Open MPI 4.1.4's connection set-up stalled for 17-92 s in 5 of 41 jobs of
# this program (2026-11-28; none in 50 when idle ranks yield, as they do
# here, with the program opening every connection from one end).
YIELD="export OMPI_MCA_mpi_yield_when_idle=1"
history_runs() { "$CM" profile --store "$STORE" show "$1" --ntasks 16 | sed -n 's/^history.runs=//p'; }

test_expect_success 'cluster with the plugin comes up (guard=yes, guard_probe=2)' '
    plugin_cluster_up guard=yes guard_probe=2 &&
    grep -q "guard_probe=2" "$STATE/etc/plugstack.conf"
'

test_expect_success 'compile the program' '
    mpicc -std=c11 -Wall -Wextra -Werror -O2 -o guard_sleep \
        "$CM_ROOT/test/mpi/guard_sleep.c" &&
    printf "#!/bin/sh\n%s\n%s ./guard_sleep same\n" "$YIELD" "$MPI_RUN" >same.sh &&
    printf "#!/bin/sh\n%s\n%s ./guard_sleep other\n" "$YIELD" "$MPI_RUN" >other.sh &&
    mkdir -p out
'

test_expect_success 'run 1 has no profile: Slurm.s default, profiled and timed' '
    run_job slow same 1 &&
    grep "^clustermap: no profile for job .slow. with 16 tasks" out/slow.1.err &&
    ! placed out/slow.1.err &&
    slurm_layout out/slow.1.out &&
    test "$(history_runs slow)" = 1 &&
    "$CM" profile --store "$STORE" show slow --ntasks 16 >show1 &&
    grep -E "^run.1=[0-9]+[.][0-9]+ [-0-9T:Z]+ default how=- program=guard_sleep elapsed_max=[0-9.]+ " show1
'

test_expect_success 'runs 2 and 3 are placed from the profile, timed only' '
    run_job slow same 2 &&
    placed out/slow.2.err &&
    ! slurm_layout out/slow.2.out &&
    grep "^clustermap: recorded the run.s time in the history of .slow. with 16 tasks (.* s, placed)" out/slow.2.err &&
    run_job slow same 3 &&
    placed out/slow.3.err &&
    j=$(jobid_of slow.2) && test -n "$j" &&
    "$CM" explain --store "$STORE" "$j" >explain.out &&
    grep "^== step $j.0$" explain.out &&
    grep "^job=slow$" explain.out &&
    grep -E "^winner=[a-z+-]+$" explain.out &&
    grep -E "^J_ratio=0[.][0-9]+$" explain.out &&
    grep -E "^level[.]node[.]bytes=[0-9.e+]+ default=[0-9.e+]+$" explain.out &&
    grep -E "^candidate=block J=" explain.out &&
    test_must_fail "$CM" explain --store "$STORE" 999999 2>noexpl.err &&
    grep "no record of job 999999" noexpl.err &&
    test "$(history_runs slow)" = 3 &&
    "$CM" profile --store "$STORE" list | grep -E "^slow +16 +1 "
'

test_expect_success 'run 4 times Slurm.s default, to compare (one default run is no spread)' '
    "$CM" profile --store "$STORE" show slow --ntasks 16 >show3 &&
    grep "^guard=default$" show3 && grep "^guard.reason=measure$" show3 &&
    run_job slow same 4 &&
    grep -E "^clustermap: job .slow.: timing Slurm.s default to compare with the placed runs \(2 and 1 runs so far\); using Slurm.s default placement$" out/slow.4.err &&
    ! placed out/slow.4.err &&
    slurm_layout out/slow.4.out
'

test_expect_success 'the placed runs were slower: run 5 is Slurm.s default, with its line' '
    run_job slow same 5 &&
    { grep -E "^clustermap: job .slow. ran slower when placed: placed runs took [0-9.]+ s, Slurm.s default [0-9.]+ s \(spread [0-9.]+ s, 2 and 2 runs\); using Slurm.s default placement$" out/slow.5.err &&
      ! placed out/slow.5.err &&
      slurm_layout out/slow.5.out ||
      job_diag slow.5; }
'

test_expect_success 'after 2 runs under Slurm.s default, run 6 probes the placement' '
    run_job slow same 6 &&
    grep -E "^clustermap: placed 16 tasks of job .slow. .* \(a probe: placed runs took" out/slow.6.err &&
    ! slurm_layout out/slow.6.out &&
    "$CM" profile --store "$STORE" show slow --ntasks 16 >show6 &&
    grep -E "^run.4=.* default how=measure " show6 &&
    grep -E "^run.5=.* default how=slower " show6 &&
    grep -E "^run.6=.* placed how=probe:" show6
'

test_expect_success 'the probe was slow too: run 7 is Slurm.s default again' '
    run_job slow same 7 &&
    { ! placed out/slow.7.err &&
      grep "ran slower when placed" out/slow.7.err ||
      job_diag slow.7; }
'

test_expect_success 'profile reset forgets the evidence: run 8 is placed' '
    "$CM" profile --store "$STORE" reset slow --ntasks 16 >reset.out &&
    grep "forgot the run history of .slow@guard_sleep-[0-9a-f]*. with 16 tasks" reset.out &&
    test "$(history_runs slow)" = 0 &&
    run_job slow same 8 &&
    placed out/slow.8.err
'

test_expect_success 'a program that placement makes faster keeps its placement' '
    run_job fast other 1 &&
    ! placed out/fast.1.err &&
    run_job fast other 2 && placed out/fast.2.err &&
    run_job fast other 3 && placed out/fast.3.err &&
    run_job fast other 4 && grep "timing Slurm.s default to compare" out/fast.4.err &&
    run_job fast other 5 && placed out/fast.5.err &&
    ! grep "ran slower" out/fast.*.err &&
    "$CM" profile --store "$STORE" show fast --ntasks 16 >showf &&
    grep "^guard=place$" showf && grep "^guard.reason=faster$" showf &&
    grep "^history.runs=5$" showf
'

# Profiles are keyed by job name and program: two programs run by scripts
# of the same name (job.sh) never share one.
test_expect_success 'two programs under one job name get two profiles' '
    mkdir -p b && cp guard_sleep b/guard_sleep &&
    printf "#!/bin/sh\n%s\n%s ./guard_sleep other\n" "$YIELD" "$MPI_RUN" >a.sh &&
    printf "#!/bin/sh\n%s\n%s ./b/guard_sleep other\n" "$YIELD" "$MPI_RUN" >b.sh &&
    sbw -J job.sh -N4 -n16 --mapping=profile -o out/a.out a.sh &&
    sbw -J job.sh -N4 -n16 --mapping=profile -o out/b.out b.sh &&
    "$CM" profile --store "$STORE" list >list.twins &&
    grep -E "^job.sh +16 +1 .* guard_sleep-[0-9a-f]{8}$" list.twins >twins &&
    test "$(wc -l <twins)" -eq 2 &&
    test "$(awk "{print \$NF}" twins | sort -u | wc -l)" -eq 2 &&
    test_must_fail "$CM" profile --store "$STORE" show job.sh --ntasks 16 2>twins.err &&
    grep "names 2 profiles, one per program" twins.err &&
    key=$(awk "NR == 1 {print \$NF}" twins) &&
    "$CM" profile --store "$STORE" show "job.sh@$key" --ntasks 16 >twin.show &&
    grep "^runs=1$" twin.show &&
    grep "^job_name=job.sh@$key$" twin.show
'

cluster_finish
test_done
