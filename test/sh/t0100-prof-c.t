#!/bin/sh
test_description='libclustermap-prof: C programs under Open MPI, exact matrices'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"

test_expect_success 'build the test programs' '
    for p in ring halo2d alltoallv subcomm colls hotpath; do prof_cc $p || return 1; done
'

# check_time DIR [LINE [MIN]]: line LINE (default 6, right after "program")
# of every part in DIR is "time ELAPSED MPI", both with six decimals,
# ELAPSED > 0, MIN <= MPI <= ELAPSED (+ rounding).
check_time() {
    for f in "$1"/part.*.txt; do
        sed -n "${2:-6}p" "$f" >time.line &&
        grep -Ex "time [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6}" time.line >/dev/null &&
        awk -v min="${3:-0}" '$2 > 0 && $3 >= min && $3 <= $2 + 0.000002 { ok = 1 }
            END { exit !ok }' time.line ||
        { echo "$f: bad time line: $(cat time.line)"; return 1; }
    done
}

# run_case NAME NP [ENV...]: run test/mpi/NAME on NP ranks, compare.
run_case() {
    name=$1 np=$2
    shift 2
    rm -rf "out.$name.$np" && mkdir "out.$name.$np" &&
    prof_run "$np" "$PWD/out.$name.$np" "$@" ./$name "$PWD/exp.$name.$np" &&
    prof_check "out.$name.$np" "exp.$name.$np" &&
    check_time "out.$name.$np"
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
    prof_check out.hotpath.3 exp.hotpath.3 &&
    check_time out.hotpath.3
'
test_expect_success 'CLUSTERMAP_PROFILE_TRAFFIC other than 0: traffic recorded' '
    run_case ring 3 -x CLUSTERMAP_PROFILE_TRAFFIC=1 &&
    ! grep -x "traffic off" out.ring.3/part.*.txt
'

# waiter: rank 0 sleeps 0.5 s and sends to 1 and 2; rank 1 waits in
# MPI_Probe and MPI_Recv, rank 2 in MPI_Wait.
test_expect_success 'build waiter' '
    cat >waiter.c <<-\EOF &&
	#include <mpi.h>
	#include <unistd.h>
	int main(int argc, char **argv)
	{
	    int r, x = 0;
	    MPI_Request q;
	    MPI_Init(&argc, &argv);
	    MPI_Comm_rank(MPI_COMM_WORLD, &r);
	    if (r == 0) {
	        usleep(500000);
	        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	        MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
	    } else if (r == 1) {
	        MPI_Probe(0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	    } else {
	        MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &q);
	        MPI_Wait(&q, MPI_STATUS_IGNORE);
	    }
	    MPI_Finalize();
	    return 0;
	}
	EOF
    mpicc -O -Wall -o waiter waiter.c
'
# waiter_times DIR LINE: rank 0 spent no time in MPI (sends are not timed)
# but 0.5 s between Init and Finalize; ranks 1 and 2 waited for it.
waiter_times() {
    check_time "$1" "$2" &&
    sed -n "$2p" "$1/part.0.txt" | awk '$2 >= 0.4 && $3 == 0 { ok = 1 } END { exit !ok }' &&
    sed -n "$2p" "$1/part.1.txt" | awk '$3 >= 0.25 { ok = 1 } END { exit !ok }' &&
    sed -n "$2p" "$1/part.2.txt" | awk '$3 >= 0.25 { ok = 1 } END { exit !ok }'
}
# check_off DIR NP PROGRAM: DIR holds the NP parts of a time-only run of
# PROGRAM, and each is its header, "traffic off", the time line, "end 0".
check_off() {
    i=0 && : >"$1.want" &&
    while test "$i" -lt "$2"; do echo "part.$i.txt" >>"$1.want"; i=$((i + 1)); done &&
    ls -A "$1" | sort >"$1.list" &&
    sort "$1.want" | test_cmp - "$1.list" &&
    for f in "$1"/part.*.txt; do
        r=${f##*/part.} && r=${r%.txt} &&
        sed 6q "$f" >head &&
        printf "clustermap-raw 2\nranks %d\nrank %d\njob nojob nostep\n" "$2" "$r" >want.head &&
        printf "program %s\ntraffic off\n" "$3" >>want.head &&
        test_cmp want.head head &&
        sed -n "8,\$p" "$f" >tail &&
        echo "end 0" | test_cmp - tail || return 1
    done &&
    check_time "$1" 7
}

test_expect_success 'time: Probe, Recv and Wait are timed, Send and the rest are not' '
    mkdir out.waiter &&
    prof_run 3 "$PWD/out.waiter" ./waiter &&
    printf "p2p 0 1 4 1\np2p 0 2 4 1\n" >expect &&
    cat out.waiter/part.*.txt | grep -E "^(p2p|coll) " >actual &&
    test_cmp expect actual &&
    waiter_times out.waiter 6
'
test_expect_success 'time only (CLUSTERMAP_PROFILE_TRAFFIC=0): "traffic off", no rows, timed' '
    mkdir out.waiter0 &&
    prof_run 3 "$PWD/out.waiter0" -x CLUSTERMAP_PROFILE_TRAFFIC=0 ./waiter &&
    check_off out.waiter0 3 waiter &&
    waiter_times out.waiter0 7
'
test_expect_success 'time only: every send flavour and collective records nothing' '
    for p in ring colls; do
        rm -rf out.$p.off && mkdir out.$p.off &&
        prof_run 4 "$PWD/out.$p.off" -x CLUSTERMAP_PROFILE_TRAFFIC=0 ./$p "$PWD/exp.$p.off" &&
        check_off out.$p.off 4 $p || return 1
    done
'
# A rank's sends to itself cost the same wherever it runs: the part has no
# diagonal line (docs/profile-format.md, "What is counted"), whichever way
# they are sent, dense rows or hashed.
test_expect_success 'sends to oneself are not recorded (3 ranks, dense and hashed rows)' '
    cat >selfsend.c <<-\EOF &&
	#include <mpi.h>
	int main(int argc, char **argv)
	{
	    int r, n;
	    char in[64], out[64] = "";
	    MPI_Request q[2];
	    MPI_Init(&argc, &argv);
	    MPI_Comm_rank(MPI_COMM_WORLD, &r);
	    MPI_Comm_size(MPI_COMM_WORLD, &n);
	    MPI_Sendrecv(out, 64, MPI_CHAR, r, 1, in, 64, MPI_CHAR, r, 1, MPI_COMM_WORLD,
	                 MPI_STATUS_IGNORE);
	    MPI_Isend(out, 32, MPI_CHAR, r, 2, MPI_COMM_WORLD, &q[0]);
	    MPI_Recv(in, 32, MPI_CHAR, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	    MPI_Send_init(out, 16, MPI_CHAR, r, 3, MPI_COMM_WORLD, &q[0]);
	    MPI_Start(&q[0]);
	    MPI_Recv(in, 16, MPI_CHAR, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	    MPI_Request_free(&q[0]);
	    MPI_Irecv(in, 8, MPI_CHAR, (r + n - 1) % n, 4, MPI_COMM_WORLD, &q[1]);
	    MPI_Send(out, 8, MPI_CHAR, (r + 1) % n, 4, MPI_COMM_WORLD);
	    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
	    MPI_Finalize();
	    return 0;
	}
	EOF
    mpicc -O -o selfsend selfsend.c &&
    printf "p2p 0 1 8 1\np2p 1 2 8 1\np2p 2 0 8 1\n" >exp.selfsend &&
    mkdir out.self out.self.hash &&
    prof_run 3 "$PWD/out.self" ./selfsend &&
    prof_check out.self exp.selfsend &&
    prof_run 3 "$PWD/out.self.hash" -x CLUSTERMAP_PROF_DENSE_MAX=0 ./selfsend &&
    prof_check out.self.hash exp.selfsend
'

test_expect_success 'a comparison that must fail does fail' '
    sed "1s/ [0-9]* \([0-9]*\)$/ 1 \1/" exp.ring.3 >exp.wrong &&
    ! test_cmp exp.ring.3 exp.wrong &&
    test_must_fail prof_check out.ring.3 exp.wrong
'

test_done
