#!/bin/sh
test_description='libclustermap-prof: Fortran through use mpi, mpif.h and use mpi_f08'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"

# check_time DIR [LINE]: line LINE (default 6, right after "program") of
# every part in DIR is "time ELAPSED MPI" with six decimals and
# 0 < MPI <= ELAPSED (+ rounding): the Fortran bindings call PMPI directly,
# so MPI time comes from the Fortran wrappers (Waitall, Bcast, Barrier,
# Alltoallv here) or not at all.
check_time() {
    for f in "$1"/part.*.txt; do
        sed -n "${2:-6}p" "$f" >time.line &&
        grep -Ex "time [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6}" time.line >/dev/null &&
        awk '$2 > 0 && $3 > 0 && $3 <= $2 + 0.000002 { ok = 1 }
            END { exit !ok }' time.line ||
        { echo "$f: bad time line: $(cat time.line)"; return 1; }
    done
}

# Open MPI 6's `use mpi_f08` bindings (libmpi_usempif08: mpi_send_f08ts_
# and 545 more, generated for TS 29113) call PMPI_* directly, so neither the
# C wrappers nor the ompi_*_f ones see that traffic: the profiler does not
# record such programs there (docs/profiling.md).  Open MPI 4.1 and 5.0
# route mpi_f08 through ompi_*_f.
ompi_major=$(. "$CM_ROOT/test/cluster/lib.sh" && cm_ompi_major)
if [ "${ompi_major:-0}" -lt 6 ]; then test_set_prereq F08_ROUTED; fi

# -DUSEMPI: `use mpi`; -DMPIFH: include 'mpif.h'; -DF08: `use mpi_f08`
for v in USEMPI MPIFH F08; do
    pre=
    [ "$v" = F08 ] && pre=F08_ROUTED
    test_expect_success "build ring.F90 with -D$v" "
        mpif90 -O -D$v -o ring_$v '$MPI_SRC/ring.F90'
    "
    for np in 3 4; do
        test_expect_success $pre "ring_$v: persistent, Isend, Bcast, Barrier, in-place Alltoallv ($np ranks)" "
            rm -rf out.$v.$np && mkdir out.$v.$np &&
            prof_run $np \"\$PWD/out.$v.$np\" ./ring_$v \"\$PWD/exp.$v.$np\" &&
            prof_check out.$v.$np exp.$v.$np &&
            check_time out.$v.$np
        "
    done
    test_expect_success "ring_$v, time only: traffic off, timed (3 ranks)" "
        rm -rf out.$v.off && mkdir out.$v.off &&
        prof_run 3 \"\$PWD/out.$v.off\" -x CLUSTERMAP_PROFILE_TRAFFIC=0 ./ring_$v \"\$PWD/exp.$v.off\" &&
        for f in out.$v.off/part.*.txt; do
            sed -n 6p \"\$f\" | grep -x 'traffic off' &&
            sed -n '8,\$p' \"\$f\" >tail && echo 'end 0' | test_cmp - tail || return 1
        done &&
        check_time out.$v.off 7
    "
done

test_done
