#!/bin/sh
test_description='the css overlay of libclustermap-prof.so (docs/overlays.md) outside Slurm

The mini-applications (test/mpi/mini_*.c and their Fortran twins) print
the same checksum with and without LD_PRELOAD=libclustermap-prof.so
CLUSTERMAP_OVERLAY=css, on 4 and 8 ranks (oversubscribed); the verbose
line says what was scheduled and what was passed through; bad values of
CLUSTERMAP_OVERLAY are refused in one line and change nothing (tnbc:
t0111);
the profiler records the same matrix with the overlay as without.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/overlay.sh"

CSS="-x CLUSTERMAP_OVERLAY=css -x CLUSTERMAP_OVERLAY_VERBOSE=1"

# css_line FILE PREFIX: FILE holds exactly one "clustermap" line, the css
# verbose line, well formed, starting with PREFIX after "rank 0: ".
css_line() {
    test $(wc -l <"$1") = 1 &&
    grep -Ex 'clustermap overlay: css: rank 0: [0-9]+ MPI_Alltoallv calls?, [0-9]+ scheduled \([0-9]+ schedules? built\), [0-9]+ as redistributions? \([0-9]+ recognised\), [0-9]+ passed through( \([^)]*\))?, [0-9]+\.[0-9] MiB sent, [0-9]+\.[0-9]{4} s inside the calls' "$1" &&
    grep -F "clustermap overlay: css: rank 0: $2" "$1" ||
    { echo "unexpected: $(cat "$1")"; return 1; }
}

# What each program's verbose line starts with: the two uneven exchanges of
# mini_isort and of mini_redist recur twice each, all scheduled; mini_redist's
# (cyclic(3) <-> cyclic(5)) are recognised as redistributions, but on one
# node, at 4 and 8 ranks, the seed's schedule is no cheaper than the
# colouring in the node model, which stays; the transpose is
# MPI_Alltoall's, which the overlay does not take.
expect_isort='4 MPI_Alltoallv calls, 4 scheduled (2 schedules built), 0 as redistributions (0 recognised), 0 passed through, '
expect_redist='4 MPI_Alltoallv calls, 4 scheduled (2 schedules built), 0 as redistributions (2 recognised), 0 passed through, '
expect_transpose='0 MPI_Alltoallv calls, 0 scheduled (0 schedules built), 0 as redistributions (0 recognised), 0 passed through, 0.0 MiB sent, 0.0000 s'

test_expect_success 'build the mini-applications, C and Fortran' '
    for p in mini_transpose mini_isort mini_redist alltoallv_aside alltoallv; do
        prof_cc $p || return 1
    done &&
    for p in mini_transpose mini_isort mini_redist; do
        mpif90 -O -o ${p}_f "$MPI_SRC/$p.F90" || return 1
    done &&
    mpif90 -O -DUSEMPI -o ring_f "$MPI_SRC/ring.F90"
'

for np in 4 8; do
    for app in transpose isort redist; do
        test_expect_success "mini_$app, $np ranks: the same checksum under css, the verbose line" "
            plain $np mini_$app ./mini_$app &&
            overlay $np $app $CSS ./mini_$app &&
            same_sum out.mini_$app.$np ovl.$app.$np &&
            css_line said.$app.$np \"\$expect_$app\"
        "
        # the twins' own plain runs on 4 ranks only: time
        test_expect_success "mini_$app Fortran twin, $np ranks: the C program's checksum, with and without css" "
            if test $np = 4; then
                plain $np mini_${app}_f ./mini_${app}_f &&
                same_sum out.mini_$app.$np out.mini_${app}_f.$np
            fi &&
            overlay $np ${app}_f $CSS ./mini_${app}_f &&
            same_sum out.mini_$app.$np ovl.${app}_f.$np &&
            css_line said.${app}_f.$np \"\$expect_$app\"
        "
    done
done

# 4 entries a communicator: 5 recurring exchanges taken in turn evict
# each other (least recently used first), every call builds anew.
test_expect_success 'mini_isort with 5 key sets in turn: schedules evicted, same checksum' '
    plain 4 sets5 ./mini_isort 2000 5 &&
    overlay 4 sets5 $CSS ./mini_isort 2000 5 &&
    same_sum out.sets5.4 ovl.sets5.4 &&
    css_line said.sets5.4 "10 MPI_Alltoallv calls, 10 scheduled (10 schedules built), 0 as redistributions (0 recognised), 0 passed through, "
'

# cyclic(4) <-> cyclic(10): recognised both ways; on 8 ranks of one node
# the seed's schedule is the cheaper in the node model both ways and runs
# (the same checksum as the library's exchange), on 4 the colouring stays.
for np in 4 8; do
    if test $np = 4; then ran=0; else ran=4; fi
    test_expect_success "mini_redist 4 10, $np ranks: recognised ($ran calls as redistributions), same checksum" "
        plain $np redist410 ./mini_redist 4 10 100003 &&
        overlay $np redist410 $CSS ./mini_redist 4 10 100003 &&
        same_sum out.redist410.$np ovl.redist410.$np &&
        css_line said.redist410.$np \"4 MPI_Alltoallv calls, 4 scheduled (2 schedules built), $ran as redistributions (2 recognised), 0 passed through, \"
    "
done

test_expect_success 'uniform, in place, one rank, intercommunicator: passed through, same result' '
    plain 4 aside ./alltoallv_aside &&
    overlay 4 aside $CSS ./alltoallv_aside &&
    same_sum out.aside.4 ovl.aside.4 &&
    css_line said.aside.4 "5 MPI_Alltoallv calls, 0 scheduled (0 schedules built), 0 as redistributions (0 recognised), 5 passed through (1 intercommunicator, 1 in place, 1 communicator size, 2 uniform), 0.0 MiB sent, "
'

test_expect_success 'css without CLUSTERMAP_OVERLAY_VERBOSE: scheduled, nothing printed' '
    overlay 4 quiet -x CLUSTERMAP_OVERLAY=css ./mini_redist &&
    same_sum out.mini_redist.4 ovl.quiet.4 &&
    test_must_be_empty said.quiet.4
'

test_expect_success 'CLUSTERMAP_OVERLAY=bogus: one line naming it, the overlay off, same checksum' '
    overlay 4 bogus -x CLUSTERMAP_OVERLAY=bogus -x CLUSTERMAP_OVERLAY_VERBOSE=1 ./mini_isort &&
    same_sum out.mini_isort.4 ovl.bogus.4 &&
    echo "clustermap overlay: CLUSTERMAP_OVERLAY: unknown overlay '\''bogus'\'' (accepted: css, tnbc); running without overlays" >want &&
    test_cmp want said.bogus.4
'

# The profiler and the overlay at once: the profiler records the
# MPI_Alltoallv calls as always (the overlay's own messages are PMPI calls
# it never sees), the overlay runs them.
test_expect_success 'profiler + css: the exact matrix of alltoallv (5 ranks)' '
    mkdir prof.a2av &&
    overlay 5 a2av -x CLUSTERMAP_PROFILE_DIR="$PWD/prof.a2av" $CSS ./alltoallv "$PWD/exp.a2av" &&
    prof_check prof.a2av exp.a2av &&
    grep "clustermap overlay: css: rank 0: 1 MPI_Alltoallv call, " said.a2av.5
'
test_expect_success 'profiler + css: mini_isort, the same matrix as the profiler alone, scheduled' '
    mkdir prof.alone prof.both &&
    overlay 4 alone -x CLUSTERMAP_PROFILE_DIR="$PWD/prof.alone" ./mini_isort &&
    overlay 4 with -x CLUSTERMAP_PROFILE_DIR="$PWD/prof.both" $CSS ./mini_isort &&
    same_sum out.mini_isort.4 ovl.with.4 &&
    css_line said.with.4 "$expect_isort" &&
    same_rows prof.alone prof.both
'
test_expect_success 'profiler + css, Fortran in-place MPI_ALLTOALLV: passed through, exact matrix' '
    mkdir prof.ring &&
    overlay 3 ring -x CLUSTERMAP_PROFILE_DIR="$PWD/prof.ring" $CSS ./ring_f "$PWD/exp.ring" &&
    prof_check prof.ring exp.ring &&
    css_line said.ring.3 "1 MPI_Alltoallv call, 0 scheduled (0 schedules built), 0 as redistributions (0 recognised), 1 passed through (1 in place), 0.0 MiB sent, "
'

test_done
