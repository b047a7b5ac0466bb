#!/bin/sh
test_description='libclustermap-prof: when nothing may be written'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"

test_expect_success 'build the test programs' '
    prof_cc ring && prof_cc abort
'

test_expect_success 'without CLUSTERMAP_PROFILE_DIR nothing is written' '
    mkdir cwd && (cd cwd && prof_run 3 "" ../ring "$PWD/../exp.ring") &&
    test -s exp.ring &&
    ls -A cwd >list && test_must_be_empty list &&
    ! ls part.* .part.* 2>/dev/null
'

test_expect_success 'an empty CLUSTERMAP_PROFILE_DIR counts as unset' '
    mkdir cwd2 && (cd cwd2 && prof_run 2 "" -x CLUSTERMAP_PROFILE_DIR= ../ring "$PWD/../exp2") &&
    ls -A cwd2 >list && test_must_be_empty list
'

test_expect_success 'MPI_Abort: no profile, no temporary file' '
    mkdir out.abort &&
    test_must_fail prof_run 3 "$PWD/out.abort" ./abort 2>err &&
    ls -A out.abort >list && test_must_be_empty list
'

test_expect_success 'unwritable directory: one clustermap-prof line per rank, program succeeds' '
    prof_run 2 "$PWD/does-not-exist" ./ring "$PWD/exp3" 2>err &&
    test -s exp3 &&
    grep "^clustermap-prof: cannot create a file in $PWD/does-not-exist: " err &&
    test "$(grep -c clustermap-prof err)" -eq 2
'

test_expect_success 'a line longer than 1023 bytes is written whole' '
    long="$PWD/$(printf "%01500d" 0 | tr 0 d)" &&
    prof_run 2 "$long" ./ring "$PWD/exp6" 2>err.long &&
    test -s exp6 &&
    test "$(grep -c "^clustermap-prof: cannot create a file in $long: " err.long)" -eq 2
'

test_expect_success 'no rank waits for another: ranks without the library finish too' '
    mkdir out.mixed &&
    cat >mixed.sh <<-\EOF &&
	#!/bin/sh
	# rank 1 runs without the profiler, as on a node that could not set it up
	if test "$OMPI_COMM_WORLD_RANK" = 1; then unset LD_PRELOAD CLUSTERMAP_PROFILE_DIR; fi
	exec "$@"
	EOF
    chmod +x mixed.sh &&
    timeout 60 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader \
        --mca btl_vader_single_copy_mechanism none -x LD_PRELOAD="$PROF_SO" \
        -x CLUSTERMAP_PROFILE_DIR="$PWD/out.mixed" -np 3 ./mixed.sh ./ring "$PWD/exp5" &&
    ls out.mixed >list &&
    printf "part.0.txt\npart.2.txt\n" >want && test_cmp want list &&
    test_must_fail env CLUSTERMAP_STORE="$PWD/store" \
        "${CLUSTERMAP:-$CM_ROOT/build/clustermap}" profile import out.mixed \
        --job-name mixed 2>err.mixed &&
    grep "out.mixed: 1 of 3 ranks have no part; refusing an incomplete profile" err.mixed
'

# Ranks as srun starts them: without the variable Open MPI's own launcher
# sets (ranks mpirun starts inherit their daemon's step, and say none).
test_expect_success 'SLURM_JOB_ID and SLURM_STEP_ID name the file, sanitised' '
    mkdir out.slurm &&
    prof_run 2 "$PWD/out.slurm" -x SLURM_JOB_ID=4711 -x "SLURM_STEP_ID=2/x" \
        env -u OMPI_COMM_WORLD_RANK ./ring "$PWD/exp4" &&
    ls out.slurm >list &&
    printf "part.0.txt\npart.1.txt\n" >want && test_cmp want list &&
    grep -x "job 4711 2_x" out.slurm/part.1.txt
'

test_done
