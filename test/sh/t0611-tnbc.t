#!/bin/sh
test_description='the tnbc overlay of libclustermap-prof.so (docs/overlays.md) outside Slurm

MPI_Alltoall(v), MPI_Allgather and MPI_Bcast return before their data
arrived: the mini-applications (C and Fortran) print the same checksum
with CLUSTERMAP_OVERLAY=tnbc as without the library, on 4 and 8 ranks;
tnbc_edges checks the send buffer overwritten at once, pages touched at
once (faults), a receive buffer sharing its pages with live data, calls
back to back with a message in between, Allgather and Bcast, a call still
pending at MPI_Finalize; css,tnbc runs both; the profiler records the same
matrix with tnbc as without.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/overlay.sh"

TNBC="-x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_VERBOSE=1"

# tnbc_line FILE PREFIX: FILE holds one well-formed tnbc verbose line
# starting with PREFIX after "rank 0: ".
tnbc_line() {
    grep -Ex 'clustermap overlay: tnbc: rank 0: [0-9]+ calls? \([0-9]+ MPI_Alltoall, [0-9]+ MPI_Alltoallv, [0-9]+ MPI_Allgather, [0-9]+ MPI_Bcast\), [0-9]+ passed through( \([^)]*\))?, [0-9]+\.[0-9] MiB received, [0-9]+\.[0-9]{4} s inside the calls, [0-9]+ page faults?, [0-9]+\.[0-9]{4} s hidden' "$1" >line &&
    test $(wc -l <line) = 1 &&
    grep -F "clustermap overlay: tnbc: rank 0: $2" line ||
    { echo "unexpected: $(cat "$1")"; return 1; }
}

expect_transpose='3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, '
expect_isort='8 calls (4 MPI_Alltoall, 4 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 4 passed through (4 small), '
expect_redist='4 calls (0 MPI_Alltoall, 4 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, '

test_expect_success 'build the mini-applications (C and Fortran) and tnbc_edges' '
    for p in mini_transpose mini_isort mini_redist tnbc_edges; do
        prof_cc $p || return 1
    done &&
    for p in mini_transpose mini_isort mini_redist; do
        mpif90 -O -o ${p}_f "$MPI_SRC/$p.F90" || return 1
    done
'

for np in 4 8; do
    for app in transpose isort redist; do
        test_expect_success "mini_$app, $np ranks: the same checksum under tnbc (C and Fortran), the verbose line" "
            plain $np mini_$app ./mini_$app &&
            overlay $np $app $TNBC ./mini_$app &&
            same_sum out.mini_$app.$np ovl.$app.$np &&
            tnbc_line said.$app.$np \"\$expect_$app\" &&
            overlay $np ${app}_f $TNBC ./mini_${app}_f &&
            same_sum out.mini_$app.$np ovl.${app}_f.$np &&
            tnbc_line said.${app}_f.$np \"\$expect_$app\"
        "
    done
    test_expect_success "tnbc_edges, $np ranks: every case right, with page faults" "
        plain $np edges ./tnbc_edges &&
        grep -x 'tnbc_edges: ok' out.edges.$np &&
        overlay $np edges $TNBC ./tnbc_edges &&
        ! grep ERROR ovl.edges.$np &&
        grep -x 'tnbc_edges: ok' ovl.edges.$np &&
        tnbc_line said.edges.$np '10 calls (7 MPI_Alltoall, 0 MPI_Alltoallv, 1 MPI_Allgather, 2 MPI_Bcast), 0 passed through, ' &&
        ! grep -E ', 0 page faults, ' said.edges.$np
    "
done

test_expect_success 'css,tnbc: mini_isort, the same checksum, both lines (Alltoallv by css)' '
    overlay 4 both -x CLUSTERMAP_OVERLAY=css,tnbc -x CLUSTERMAP_OVERLAY_VERBOSE=1 ./mini_isort &&
    same_sum out.mini_isort.4 ovl.both.4 &&
    test $(wc -l <said.both.4) = 2 &&
    grep "^clustermap overlay: css: rank 0: 4 MPI_Alltoallv calls, 4 scheduled " said.both.4 &&
    tnbc_line said.both.4 "4 calls (4 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 4 passed through (4 small), "
'

test_expect_success 'css,tnbc: mini_redist (no tnbc call at all), the same checksum, both lines' '
    overlay 4 both2 -x CLUSTERMAP_OVERLAY=css,tnbc -x CLUSTERMAP_OVERLAY_VERBOSE=1 ./mini_redist &&
    same_sum out.mini_redist.4 ovl.both2.4 &&
    test $(wc -l <said.both2.4) = 2 &&
    tnbc_line said.both2.4 "0 calls (0 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, "
'

test_expect_success 'tnbc without CLUSTERMAP_OVERLAY_VERBOSE: nothing printed' '
    overlay 4 quiet -x CLUSTERMAP_OVERLAY=tnbc ./mini_redist &&
    same_sum out.mini_redist.4 ovl.quiet.4 &&
    test_must_be_empty said.quiet.4
'

test_expect_success 'profiler + tnbc: mini_isort, the same matrix as the profiler alone' '
    mkdir prof.alone prof.both &&
    overlay 4 alone -x CLUSTERMAP_PROFILE_DIR="$PWD/prof.alone" ./mini_isort &&
    overlay 4 with -x CLUSTERMAP_PROFILE_DIR="$PWD/prof.both" $TNBC ./mini_isort &&
    same_sum out.mini_isort.4 ovl.with.4 &&
    tnbc_line said.with.4 "$expect_isort" &&
    cat prof.alone/part.*.txt | grep -E "^(p2p|coll) " | sort >rows.alone &&
    cat prof.both/part.*.txt | grep -E "^(p2p|coll) " | sort >rows.both &&
    test -s rows.alone &&
    test_cmp rows.alone rows.both
'

test_done
