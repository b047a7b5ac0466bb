# overlay.sh -- what the overlay tests (t0110 css, t0111 tnbc) share:
# running a program with and without libclustermap-prof.so and comparing
# the mini-applications' checksums (docs/overlays.md).  Source after
# lib/prof.sh (mpi_run, prof_run).

# pml ob1: shared memory only, without probing the network libraries
# (0.3 s less a run on 8 ranks).
FAST="--mca pml ob1"

# plain NP TAG PROG [ARGS]: PROG without the library, stdout into
# out.TAG.NP
plain() {
    np=$1 tag=$2
    shift 2
    mpi_run "$np" $FAST "$@" >out.$tag.$np 2>err.$tag.$np ||
    { cat err.$tag.$np; return 1; }
}

# overlay NP TAG [MPIRUN ARGS] PROG [ARGS]: with the library and the
# mpirun arguments given (-x ...), stdout into ovl.TAG.NP, stderr into
# err.TAG.NP, the "clustermap" lines of stderr into said.TAG.NP.
overlay() {
    np=$1 tag=$2
    shift 2
    prof_run "$np" "" $FAST "$@" >ovl.$tag.$np 2>err.$tag.$np ||
    { cat ovl.$tag.$np err.$tag.$np; return 1; }
    grep '^clustermap' err.$tag.$np >said.$tag.$np || :
}

# same_sum A B: both outputs end with one identical "checksum <16 hex>".
same_sum() {
    grep -Ex 'checksum [0-9a-f]{16}' "$1" >sum.a &&
    grep -Ex 'checksum [0-9a-f]{16}' "$2" >sum.b &&
    test $(wc -l <sum.a) = 1 &&
    test_cmp sum.a sum.b
}

# same_rows A B: the profiler's parts in directories A and B hold the same
# p2p and coll rows (the overlay's own messages are PMPI calls the
# profiler never sees), and A has some.
same_rows() {
    cat "$1"/part.*.txt | grep -E "^(p2p|coll) " | sort >rows.a &&
    cat "$2"/part.*.txt | grep -E "^(p2p|coll) " | sort >rows.b &&
    test -s rows.a &&
    test_cmp rows.a rows.b
}
