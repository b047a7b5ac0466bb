#!/bin/sh
test_description='libclustermap-prof: Fortran through use mpi, mpif.h and use mpi_f08'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"

# -DUSEMPI: `use mpi`; -DMPIFH: include 'mpif.h'; -DF08: `use mpi_f08`
for v in USEMPI MPIFH F08; do
    test_expect_success "build ring.F90 with -D$v" "
        mpif90 -O -D$v -o ring_$v '$MPI_SRC/ring.F90'
    "
    for np in 3 4; do
        test_expect_success "ring_$v: persistent, Isend, Bcast, Barrier, in-place Alltoallv ($np ranks)" "
            rm -rf out.$v.$np && mkdir out.$v.$np &&
            prof_run $np \"\$PWD/out.$v.$np\" ./ring_$v \"\$PWD/exp.$v.$np\" &&
            prof_check out.$v.$np exp.$v.$np
        "
    done
done

test_done
