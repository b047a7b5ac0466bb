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
    ! ls clustermap-raw.* .clustermap-raw.* 2>/dev/null
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

test_expect_success 'unwritable directory: one clustermap-prof line, program succeeds' '
    prof_run 2 "$PWD/does-not-exist" ./ring "$PWD/exp3" 2>err &&
    test -s exp3 &&
    grep "^clustermap-prof: cannot create a file in $PWD/does-not-exist: " err &&
    test "$(grep -c clustermap-prof err)" -eq 1
'

test_expect_success 'SLURM_JOB_ID and SLURM_STEP_ID name the file, sanitised' '
    mkdir out.slurm &&
    prof_run 2 "$PWD/out.slurm" -x SLURM_JOB_ID=4711 -x "SLURM_STEP_ID=2/x" ./ring "$PWD/exp4" &&
    ls out.slurm >list &&
    grep -E "^clustermap-raw\.4711\.2_x\.[0-9]+\.txt$" list &&
    grep -x "job 4711 2_x" out.slurm/clustermap-raw.*
'

test_done
