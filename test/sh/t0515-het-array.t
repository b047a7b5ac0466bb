#!/bin/sh
#
# Heterogeneous steps and job arrays on the virtual cluster.  A het step
# (srun --het-group=0,1 in a het job) is neither placed nor profiled: one
# line says so, and it runs on both components' nodes.  The elements of a
# job array share their job's name and so one profile: the first element
# (no profile yet) is profiled, the next are placed from it; with
# profile=missing the profile keeps its one run, with profile=always
# every element adds its run to it.  MPI programs start with $MPI_RUN
# (lib/cluster.sh).
#
# Own cluster (CM_CLUSTER_NAME=t0515).

test_description='SPANK plugin: heterogeneous steps and job arrays'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0515}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

FALLBACK="; using Slurm's default placement"

# sbw_all [SBATCH-OPTION...] SCRIPT: submit a job array or a het job and
# wait until every element or component (a record of its own to scontrol,
# which sbatch-wait does not expect) has ended; fails unless all completed.
sbw_all() {
    id=$(run sbatch --parsable "$@") || return 1
    id=${id%%;*}
    n=0
    while [ "$n" -lt 1200 ]; do
        states=$(run scontrol -o show job "$id" | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p')
        case $states in
            *PENDING* | *RUNNING* | *CONFIGURING* | *COMPLETING* | '') ;;
            *)
                echo "$states" | grep -v -x COMPLETED && return 1
                return 0 ;;
        esac
        sleep 0.1; n=$((n + 1))
    done
    run scancel "$id"
    return 1
}

runs_of() {
    "$CM" profile --store "$STORE" show "$1" --ntasks "$2" 2>/dev/null |
        sed -n 's/^runs=//p' | grep . || echo none
}

test_expect_success 'cluster with the plugin comes up; the program' '
    plugin_cluster_up &&
    mpicc -std=c11 -Wall -O2 -o halo_scrambled "$CM_ROOT/test/mpi/halo_scrambled.c" &&
    printf "#!/bin/sh\n%s ./halo_scrambled\n" "$MPI_RUN" >job.sh &&
    printf "#!/bin/sh\nsrun --het-group=0,1 hostname\n" >het.sh &&
    chmod 755 job.sh het.sh halo_scrambled &&
    mkdir -p out
'

test_expect_success 'a heterogeneous step: one line, neither placed nor profiled, it runs' '
    sbw_all -J het -o "$PWD/out/het.out" -e "$PWD/out/het.err" -N1 -n2 --mapping=cluster,verbose : \
        -N1 -n2 het.sh &&
    one_line out/het.err "^clustermap: heterogeneous step \(--het-group or .:.\): neither placed nor profiled$FALLBACK$" &&
    test "$(wc -l <out/het.out)" -eq 4 &&
    test "$(sort -u out/het.out | wc -l)" -eq 2 &&
    test "$(runs_of het 4)" = none
'

test_expect_success 'array elements share one profile: the first profiles, the next are placed' '
    sbw_all -J arr --array=1-3%1 -N2 -n4 --mapping=cluster,verbose \
        -o "$PWD/out/arr.%a.out" -e "$PWD/out/arr.%a.err" job.sh &&
    grep "^clustermap: no profile for job .arr. with 4 tasks$FALLBACK (profiling this run)$" out/arr.1.err &&
    for a in 2 3; do
        grep "^clustermap: placed 4 tasks of job .arr. on 2 of 2 nodes" out/arr.$a.err &&
        test "$(ranks_hosts out/arr.$a.out | wc -l)" -eq 4 || return 1
    done &&
    test "$(runs_of arr 4)" = 1
'

test_expect_success 'with profile=always every element adds its run to the profile' '
    plugstack profile=always &&
    test_when_finished "plugstack" &&
    sbw_all -J arr --array=4-5%1 -N2 -n4 --mapping=cluster,verbose \
        -o "$PWD/out/arr.%a.out" -e "$PWD/out/arr.%a.err" job.sh &&
    for a in 4 5; do
        grep "^clustermap: placed 4 tasks of job .arr. on 2 of 2 nodes .*(profiling this run)" out/arr.$a.err ||
        return 1
    done &&
    test "$(runs_of arr 4)" = 3
'

cluster_finish

test_done
