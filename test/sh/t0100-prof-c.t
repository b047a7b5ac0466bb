#!/bin/sh
test_description='libclustermap-prof: C programs under Open MPI, exact matrices'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"

test_expect_success 'build the test programs' '
    for p in ring halo2d alltoallv subcomm colls hotpath; do prof_cc $p || return 1; done
'

# run_case NAME NP [ENV...]: run test/mpi/NAME on NP ranks, compare.
run_case() {
    name=$1 np=$2
    shift 2
    rm -rf "out.$name.$np" && mkdir "out.$name.$np" &&
    prof_run "$np" "$PWD/out.$name.$np" "$@" ./$name "$PWD/exp.$name.$np" &&
    prof_check "out.$name.$np" "exp.$name.$np"
}

test_expect_success 'ring: every send flavour, PROC_NULL dropped (3 ranks)' '
    run_case ring 3 &&
    grep -x "program ring" out.ring.3/part.2.txt &&
    grep -x "ranks 3" out.ring.3/part.0.txt
'
test_expect_success 'ring on 2 ranks (left = right)' 'run_case ring 2'
test_expect_success 'halo2d: persistent requests on a Cartesian comm (6 ranks)' '
    run_case halo2d 6
'
test_expect_success 'halo2d on 4 ranks' 'run_case halo2d 4'
test_expect_success 'alltoallv: uneven and zero counts, in place (5 ranks)' '
    run_case alltoallv 5
'
test_expect_success 'subcomm: split, reversed keys, intercommunicator (5 ranks)' '
    run_case subcomm 5
'
test_expect_success 'subcomm with hashed rows (CLUSTERMAP_PROF_DENSE_MAX=0)' '
    run_case subcomm 4 -x CLUSTERMAP_PROF_DENSE_MAX=0
'
for np in 2 3 4 5 7 8; do
    test_expect_success "colls: every collective, reference algorithms ($np ranks)" "
        run_case colls $np
    "
done
test_expect_success 'colls with hashed rows (6 ranks)' '
    run_case colls 6 -x CLUSTERMAP_PROF_DENSE_MAX=0
'
test_expect_success 'hotpath: type/communicator switches, freed and re-created handles (3 ranks)' '
    run_case hotpath 3
'
test_expect_success 'hotpath with hashed rows and under MPI_THREAD_MULTIPLE' '
    run_case hotpath 4 -x CLUSTERMAP_PROF_DENSE_MAX=0 &&
    rm -rf out.hotpath.3 && mkdir out.hotpath.3 &&
    prof_run 3 "$PWD/out.hotpath.3" ./hotpath "$PWD/exp.hotpath.3" multi &&
    prof_check out.hotpath.3 exp.hotpath.3
'
test_expect_success 'a comparison that must fail does fail' '
    sed "1s/ [0-9]* \([0-9]*\)$/ 1 \1/" exp.ring.3 >exp.wrong &&
    ! test_cmp exp.ring.3 exp.wrong &&
    test_must_fail prof_check out.ring.3 exp.wrong
'

test_done
