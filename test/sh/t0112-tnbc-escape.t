#!/bin/sh
test_description='the tnbc overlay (docs/overlays.md) and what it does not run

A collective'"'"'s result, still pending under tnbc with its pages
protected, handed untouched to MPI calls the overlay does not run (MPI
I/O, one-sided, a neighbourhood collective) and to the kernel (write,
fwrite, pread; libgfortran'"'"'s write): tnbc_escape (C) and tnbc_escape_f
(Fortran) give bit for bit the files and checksums of plain runs, end in
time, and nothing fails with EFAULT inside the MPI library.  An
MPI_Alltoallv whose blocks leave whole pages between them, where a
receive posted before it lands, too; and a receive buffer freed while
its call is pending, its pages mapped again by calloc; and a helper
thread whose MPI calls complete the main thread'"'"'s pending calls while
it reads their results.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/overlay.sh"

# Not mpi_run: the library's shared-memory single copy (CMA, another
# process reading or writing these pages with process_vm_readv/writev) is
# left on, as a program gets it by default; the one-sided calls need it
# here.  A run that hangs (the fault an MPI library retries forever) is
# ended after 120 s and fails its row.
esc_run() {
    np=$1
    shift
    timeout 120 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader \
        $FAST -np "$np" "$@"
}

# esc TAG LIB PROG ARGS...: PROG on 4 ranks, with libclustermap-prof.so
# and tnbc when LIB is "tnbc", plain otherwise; stdout into out.TAG.LIB,
# stderr into err.TAG.LIB; fails on an error line of the program or of
# the MPI library (EFAULT, errno 14, a signal).
esc() {
    tag=$1 lib=$2
    shift 2
    if test "$lib" = tnbc; then
        set -- -x LD_PRELOAD="$PROF_SO" -x CLUSTERMAP_OVERLAY=tnbc \
            -x CLUSTERMAP_OVERLAY_VERBOSE=1 "$@"
    fi
    esc_run 4 "$@" >out.$tag.$lib 2>err.$tag.$lib ||
    { head -c 4000 out.$tag.$lib err.$tag.$lib; return 1; }
    if grep -E 'ERROR|errno = 14|Bad address|signal' out.$tag.$lib err.$tag.$lib |
        head -5 | grep .; then
        return 1
    fi
}

# tnbc_ran TAG KIND: the verbose line says the calls of KIND ran, and none
# was passed through: they were left pending, as the rows mean.
tnbc_ran() {
    grep -E "^clustermap overlay: tnbc: rank 0: [0-9]+ calls? .* [1-9][0-9]* $2, .*, 0 passed through, " err.$1.tnbc ||
    { cat err.$1.tnbc; return 1; }
}

test_expect_success 'build tnbc_escape (C and Fortran)' '
    prof_cc tnbc_escape &&
    mpif90 -O -o tnbc_escape_f "$MPI_SRC/tnbc_escape.F90"
'

for p in tnbc_escape tnbc_escape_f; do
    test_expect_success "$p io: MPI_File_write_at of a pending MPI_Allgather, then write(2)/fwrite/pread (or Fortran WRITE): the same files, whole" "
        esc io.$p plain ./$p io plain.$p &&
        esc io.$p tnbc ./$p io tnbc.$p &&
        tnbc_ran io.$p MPI_Allgather &&
        test \$(wc -c <plain.$p) = 2097152 &&
        cmp plain.$p tnbc.$p &&
        for r in 0 1 2 3; do
            test -s plain.$p.\$r && cmp plain.$p.\$r tnbc.$p.\$r || return 1
        done &&
        same_sum out.io.$p.plain out.io.$p.tnbc
    "

    test_expect_success "$p put: MPI_Put of a pending MPI_Allgather between fences (C: and under MPI_Win_lock, MPI_Get into one): the same window, no endless retry" "
        esc put.$p plain ./$p put &&
        esc put.$p tnbc ./$p put &&
        tnbc_ran put.$p MPI_Allgather &&
        same_sum out.put.$p.plain out.put.$p.tnbc
    "

    test_expect_success "$p neigh: a pending MPI_Alltoallv as the send buffer of MPI_Neighbor_alltoallv, 10 times: the same results, no crash" "
        esc neigh.$p plain ./$p neigh &&
        esc neigh.$p tnbc ./$p neigh &&
        tnbc_ran neigh.$p MPI_Alltoallv &&
        same_sum out.neigh.$p.plain out.neigh.$p.tnbc
    "
done

test_expect_success 'gap: a receive posted before a pending MPI_Alltoallv lands in the pages between its blocks: the same results, no crash' '
    esc gap plain ./tnbc_escape gap &&
    esc gap tnbc ./tnbc_escape gap &&
    tnbc_ran gap MPI_Alltoallv &&
    same_sum out.gap.plain out.gap.tnbc
'

test_expect_success 'free: a large receive buffer of a pending MPI_Allgather freed after one byte read, then calloc: all zero, no crash' '
    esc free plain ./tnbc_escape free &&
    esc free tnbc ./tnbc_escape free &&
    tnbc_ran free MPI_Allgather &&
    same_sum out.free.plain out.free.tnbc
'

test_expect_success 'threads: 200 pending MPI_Allgather read by the main thread while a helper thread calls MPI_Comm_rank, MPI_Wtime and read(2) (each a completion point): the same results, no crash' '
    esc threads plain ./tnbc_escape threads &&
    esc threads tnbc ./tnbc_escape threads &&
    tnbc_ran threads MPI_Allgather &&
    same_sum out.threads.plain out.threads.tnbc
'

test_done
