#!/bin/sh
test_description='the tnbc overlay of libclustermap-prof.so (docs/overlays.md) outside Slurm

MPI_Alltoall(v), MPI_Allgather and MPI_Bcast return before their data
arrived: the mini-applications (C and Fortran) print the same checksum
with CLUSTERMAP_OVERLAY=tnbc as without the library, on 4 and 8 ranks;
tnbc_edges checks the send buffer overwritten at once, pages touched at
once (faults), a receive buffer sharing its pages with live data, calls
back to back with a message in between, Allgather and Bcast, a call still
pending at MPI_Finalize; the verbose line carries the seed'"'"'s model of the
time hidden beside the measured one; tnbc_fallback mixes ranks that run the calls
blocking (a datatype tnbc cannot take) with ranks that leave them pending; css,tnbc runs both; the profiler records the same
matrix with tnbc as without; the trace mode writes one file per rank with
the order the program reads in (tnbc_order), and runs with those traces as
priorities (or with a missing, mismatching or corrupt one, a FIFO or a
link in its place) give the same checksums; a site whose trace says it hid no more than it cost steps
aside (blocking, on one rank or on all), and says so; the ranks decide
alike, on the times of all of them summed; with CLUSTERMAP_OVERLAY_WAVES=1
the ranks of the node send one after another (the same checksums, ranks
blocking inside the chain, a communicator freed with a call pending), and
only when every rank asked for it.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/overlay.sh"

TNBC="-x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_VERBOSE=1"
# The priorities rows check the order, which a site that steps aside
# does not use; whether a traced site hid more than it cost depends on
# this machine's timing, so those rows say never (the rows after them
# set the trace's times themselves).
KEEP="-x CLUSTERMAP_OVERLAY_ASIDE=0"
unset CLUSTERMAP_OVERLAY_TRACE CLUSTERMAP_OVERLAY_PRIO CLUSTERMAP_OVERLAY_ASIDE

# tnbc_line FILE PREFIX [WAVES]: FILE holds one well-formed tnbc verbose
# line starting with PREFIX after "rank 0: ", ending with WAVES (", N
# calls in waves (K ranks on the node)") when given, else without waves.
tnbc_line() {
    grep -Ex 'clustermap overlay: tnbc: rank 0: [0-9]+ calls? \([0-9]+ MPI_Alltoall, [0-9]+ MPI_Alltoallv, [0-9]+ MPI_Allgather, [0-9]+ MPI_Bcast\), [0-9]+ passed through( \([^)]*\))?, [0-9]+\.[0-9] MiB received, [0-9]+\.[0-9]{4} s inside the calls, [0-9]+ page faults?, [0-9]+\.[0-9]{4} s hidden \(seed'\''s model: [0-9]+\.[0-9]{4} s\)(, [0-9]+ calls? in waves \([0-9]+ ranks? on the node\))?' "$1" >line &&
    test $(wc -l <line) = 1 &&
    grep -F "clustermap overlay: tnbc: rank 0: $2" line &&
    if test -n "$3"; then
        grep -F "s)$3" line
    else
        ! grep -F " in waves " line
    fi ||
    { echo "unexpected: $(cat "$1")"; return 1; }
}

expect_transpose='3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, '
expect_isort='8 calls (4 MPI_Alltoall, 4 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 4 passed through (4 small), '
expect_redist='4 calls (0 MPI_Alltoall, 4 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, '

test_expect_success 'build the mini-applications (C and Fortran) and the tnbc_* programs' '
    for p in mini_transpose mini_isort mini_redist tnbc_edges tnbc_order tnbc_fallback; do
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

test_expect_success 'tnbc_fallback, 5 ranks: ranks with a datatype tnbc cannot take run the same sub-messages blocking beside pending ones' '
    plain 5 fallback ./tnbc_fallback &&
    grep -x "tnbc_fallback: ok" out.fallback.5 &&
    overlay 5 fallback $TNBC ./tnbc_fallback &&
    ! grep ERROR ovl.fallback.5 &&
    grep -x "tnbc_fallback: ok" ovl.fallback.5 &&
    tnbc_line said.fallback.5 "3 calls (1 MPI_Alltoall, 1 MPI_Alltoallv, 1 MPI_Allgather, 0 MPI_Bcast), 3 passed through (3 datatype), "
'

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

test_expect_success 'the verbose line: the seed'"'"'s model beside the hidden time, 0 when no call was left pending' '
    for f in said.transpose.4 said.isort.8 said.redist.4 said.edges.8 said.both.4 said.both2.4; do
        grep -Eq ", [0-9]+\.[0-9]{4} s hidden \(seed'"'"'s model: [0-9]+\.[0-9]{4} s\)\$" $f ||
        { echo "no model in $f: $(cat $f)"; return 1; }
    done &&
    for f in said.both.4 said.both2.4; do
        grep -F "0.0000 s hidden (seed'"'"'s model: 0.0000 s)" $f || return 1
    done
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
    same_rows prof.alone prof.both
'

# trace_ok PREFIX NP KEYRE: PREFIX.0 .. PREFIX.<NP-1> are traces, each
# with at least one site line whose key matches KEYRE, at least one time
# line (a site whose calls all completed before returning has none), and
# nothing else.
trace_ok() {
    r=0
    while test $r -lt $2; do
        test -f "$1.$r" &&
        head -n 1 "$1.$r" | grep -qx "clustermap-tnbc-trace 1" &&
        grep -Eq "^site $3\+0x[0-9a-f]+ (alltoall|alltoallv|allgather) $2 $r [1-9][0-9]*( [0-9]+)+\$" "$1.$r" &&
        grep -Eq "^time $3\+0x[0-9a-f]+ (alltoall|alltoallv|allgather) $2 $r [0-9]+ [0-9]+\$" "$1.$r" &&
        ! grep -Ev "^(#|site |time |clustermap-tnbc-trace 1\$)" "$1.$r" ||
        { echo "bad trace $1.$r:"; cat "$1.$r"; return 1; }
        r=$((r + 1))
    done
    ! test -e "$1.$2"
}

for np in 4 8; do
    test_expect_success "trace: tnbc_order, $np ranks: one file per rank, the order the program reads in, the same checksum" "
        plain $np order ./tnbc_order &&
        overlay $np trorder $TNBC -x CLUSTERMAP_OVERLAY_TRACE=ord$np ./tnbc_order &&
        same_sum out.order.$np ovl.trorder.$np &&
        trace_ok ord$np $np tnbc_order &&
        last=\$(($np - 1)) &&
        grep -Ex \"site tnbc_order\\+0x[0-9a-f]+ alltoall $np 0 3 \$(seq -s ' ' \$last -1 1)\" ord$np.0 &&
        grep -Ex \"site tnbc_order\\+0x[0-9a-f]+ alltoall $np \$last 3 \$(seq -s ' ' \$((\$last - 1)) -1 0)\" ord$np.\$last
    "
    test_expect_success "priorities: tnbc_order, $np ranks, with its trace: the same checksum, every call in the trace's order" "
        overlay $np prorder $TNBC $KEEP -x CLUSTERMAP_OVERLAY_PRIO=ord$np ./tnbc_order &&
        same_sum out.order.$np ovl.prorder.$np &&
        grep -Fx \"clustermap overlay: tnbc: priorities from ord$np.0: 3 of 3 calls in the trace's order\" said.prorder.$np &&
        test \$(wc -l <said.prorder.$np) = 2
    "
done

expect_calls_transpose=3 expect_calls_isort=8 expect_calls_redist=4
for app in transpose isort redist; do
    test_expect_success "mini_$app, 4 ranks: traced, then run with its trace: the checksum of the plain run both times" "
        overlay 4 tr.$app -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_TRACE=tr.$app ./mini_$app &&
        same_sum out.mini_$app.4 ovl.tr.$app.4 &&
        test_must_be_empty said.tr.$app.4 &&
        trace_ok tr.$app 4 mini_$app &&
        overlay 4 pr.$app $TNBC $KEEP -x CLUSTERMAP_OVERLAY_PRIO=tr.$app ./mini_$app &&
        same_sum out.mini_$app.4 ovl.pr.$app.4 &&
        tnbc_line said.pr.$app.4 \"\$expect_$app\" &&
        grep -Fx \"clustermap overlay: tnbc: priorities from tr.$app.0: \$expect_calls_$app of \$expect_calls_$app calls in the trace's order\" said.pr.$app.4
    "
done

test_expect_success 'mini_isort_f (Fortran), 4 ranks: traced at the program'"'"'s own call sites, then with its trace' '
    overlay 4 tr.isort_f -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_TRACE=tr.isort_f ./mini_isort_f &&
    same_sum out.mini_isort.4 ovl.tr.isort_f.4 &&
    trace_ok tr.isort_f 4 mini_isort_f &&
    test $(grep -c "^site " tr.isort_f.0) = 2 &&
    overlay 4 pr.isort_f $TNBC $KEEP -x CLUSTERMAP_OVERLAY_PRIO=tr.isort_f ./mini_isort_f &&
    same_sum out.mini_isort.4 ovl.pr.isort_f.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from tr.isort_f.0: 8 of 8 calls in the trace'"'"'s order" said.pr.isort_f.4
'

# with_time IN OUT HIDDEN INIT: OUT.0 .. OUT.3, copies of the traces
# IN.0 .. IN.3 whose time lines say HIDDEN and INIT nanoseconds.
with_time() {
    for r in 0 1 2 3; do
        sed -E "s/^(time [^ ]+ [a-z]+ [0-9]+ [0-9]+) [0-9]+ [0-9]+\$/\1 $3 $4/" \
            "$1.$r" >"$2.$r" &&
        grep -Eq "^time .* $3 $4\$" "$2.$r" || return 1
    done
}

test_expect_success 'a site that hid no more than it cost steps aside: blocking, the same checksum, said' '
    with_time ord4 aside4 0 1 &&
    overlay 4 aside $TNBC -x CLUSTERMAP_OVERLAY_PRIO=aside4 ./tnbc_order &&
    same_sum out.order.4 ovl.aside.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from aside4.0: 0 of 3 calls in the trace'"'"'s order, 3 stepped aside (their site hid no more than it cost)" said.aside.4 &&
    tnbc_line said.aside.4 "3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 3 passed through (3 stepped aside), " &&
    grep -F ", 0 page faults, " said.aside.4 &&
    test $(wc -l <said.aside.4) = 2
'

test_expect_success 'a site that hid more than it cost keeps the overlay in the trace'"'"'s order' '
    with_time ord4 keep4 2 1 &&
    overlay 4 keep $TNBC -x CLUSTERMAP_OVERLAY_PRIO=keep4 ./tnbc_order &&
    same_sum out.order.4 ovl.keep.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from keep4.0: 3 of 3 calls in the trace'"'"'s order" said.keep.4 &&
    tnbc_line said.keep.4 "3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, "
'

# The ranks agree at MPI_Init on the times summed over all of them: a
# rank steps aside alone only where CLUSTERMAP_OVERLAY_ASIDE=0 keeps the
# others (rank2aside.sh: every rank but 2).
test_expect_success 'one rank steps aside, the others keep the overlay: the same checksum' '
    printf "#!/bin/sh\n[ \"\$OMPI_COMM_WORLD_RANK\" = 2 ] || export CLUSTERMAP_OVERLAY_ASIDE=0\nexec ./tnbc_order\n" >rank2aside.sh &&
    chmod +x rank2aside.sh &&
    overlay 4 mixed $TNBC -x CLUSTERMAP_OVERLAY_PRIO=aside4 ./rank2aside.sh &&
    same_sum out.order.4 ovl.mixed.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from aside4.0: 3 of 3 calls in the trace'"'"'s order" said.mixed.4
'

test_expect_success 'the ranks decide on their times summed: rank 0, whose own file says keep, steps aside with the others' '
    with_time ord4 agree4 0 5 &&
    with_time ord4 own4 2 1 && cp own4.0 agree4.0 &&
    overlay 4 agree $TNBC -x CLUSTERMAP_OVERLAY_PRIO=agree4 ./tnbc_order &&
    same_sum out.order.4 ovl.agree.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from agree4.0: 0 of 3 calls in the trace'"'"'s order, 3 stepped aside (their site hid no more than it cost)" said.agree.4 &&
    tnbc_line said.agree.4 "3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 3 passed through (3 stepped aside), "
'

test_expect_success 'and the other way: the others keep, so rank 0 keeps, in its trace'"'"'s order' '
    with_time ord4 agree4 2 1 && with_time ord4 own4 0 2 && cp own4.0 agree4.0 &&
    overlay 4 agree2 $TNBC -x CLUSTERMAP_OVERLAY_PRIO=agree4 ./tnbc_order &&
    same_sum out.order.4 ovl.agree2.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from agree4.0: 3 of 3 calls in the trace'"'"'s order" said.agree2.4 &&
    tnbc_line said.agree2.4 "3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, "
'

test_expect_success 'a rank without a trace follows the ranks that have one' '
    with_time ord4 agree4 0 5 && rm agree4.0 &&
    overlay 4 agree3 $TNBC -x CLUSTERMAP_OVERLAY_PRIO=agree4 ./tnbc_order &&
    same_sum out.order.4 ovl.agree3.4 &&
    grep "^clustermap overlay: tnbc: cannot read the trace agree4.0: " said.agree3.4 &&
    tnbc_line said.agree3.4 "3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 3 passed through (3 stepped aside), "
'

test_expect_success 'CLUSTERMAP_OVERLAY_ASIDE=0: the site that would step aside keeps the overlay' '
    overlay 4 noaside $TNBC $KEEP -x CLUSTERMAP_OVERLAY_PRIO=aside4 ./tnbc_order &&
    same_sum out.order.4 ovl.noaside.4 &&
    grep -Fx "clustermap overlay: tnbc: priorities from aside4.0: 3 of 3 calls in the trace'"'"'s order" said.noaside.4
'

test_expect_success 'traced while stepping aside: the new trace keeps the order and the times read' '
    overlay 4 carry -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=aside4 -x CLUSTERMAP_OVERLAY_TRACE=carry4 ./tnbc_order &&
    same_sum out.order.4 ovl.carry.4 &&
    trace_ok carry4 4 tnbc_order &&
    for r in 0 1 2 3; do
        sed -E "s/^(site [^ ]+ [a-z]+ [0-9]+ [0-9]+) [0-9]+ /\1 N /" aside4.$r | grep -v "^#" >a &&
        sed -E "s/^(site [^ ]+ [a-z]+ [0-9]+ [0-9]+) [0-9]+ /\1 N /" carry4.$r | grep -v "^#" >b &&
        test_cmp a b || return 1
    done
'

test_expect_success 'priorities: another program'"'"'s trace is ignored (one line from rank 0), the same checksum' '
    overlay 4 mism -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=tr.transpose ./mini_isort &&
    same_sum out.mini_isort.4 ovl.mism.4 &&
    echo "clustermap overlay: tnbc: priorities from tr.transpose.0: 0 of 8 calls in the trace'"'"'s order" >expect &&
    test_cmp expect said.mism.4
'

test_expect_success 'priorities: the same program on another number of ranks: ignored, the same checksum' '
    overlay 8 size -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=ord4 ./tnbc_order &&
    same_sum out.order.8 ovl.size.8 &&
    echo "clustermap overlay: tnbc: priorities from ord4.0: 0 of 3 calls in the trace'"'"'s order" >expect &&
    test_cmp expect said.size.8
'

test_expect_success 'priorities: no trace file: one line from rank 0, the same checksum' '
    overlay 4 missing -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=none ./mini_transpose &&
    same_sum out.mini_transpose.4 ovl.missing.4 &&
    echo "clustermap overlay: tnbc: cannot read the trace none.0: No such file or directory; running without priorities" >expect &&
    test_cmp expect said.missing.4
'

test_expect_success 'priorities: a FIFO (or any file that is not regular) as the trace: refused at once, one line from rank 0, the same checksum' '
    for r in 0 1 2 3; do mkfifo fifo.$r || return 1; done &&
    overlay 4 fifo --timeout 60 -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=fifo ./mini_transpose &&
    same_sum out.mini_transpose.4 ovl.fifo.4 &&
    echo "clustermap overlay: tnbc: cannot read the trace fifo.0: not a regular file; running without priorities" >expect &&
    test_cmp expect said.fifo.4 &&
    ln -s ord4.0 link.0 && ln -s ord4.1 link.1 && ln -s ord4.2 link.2 && ln -s ord4.3 link.3 &&
    overlay 4 link -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=link ./mini_transpose &&
    same_sum out.mini_transpose.4 ovl.link.4 &&
    echo "clustermap overlay: tnbc: cannot read the trace link.0: is a symbolic link; refusing to follow it; running without priorities" >expect &&
    test_cmp expect said.link.4
'

test_expect_success 'priorities: a corrupt trace: its file and line named, run without, the same checksum' '
    for r in 0 1 2 3; do cp ord4.$r bad.$r || return 1; done &&
    sed -i "4s/ alltoall 4 2 3 / alltoall 4 2 3 9 /" bad.2 &&
    printf "clustermap-tnbc-trace 1\nsite tnbc_order+0x1 alltoall 4 1\n" >bad.1 &&
    overlay 4 corrupt -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_PRIO=bad ./tnbc_order &&
    same_sum out.order.4 ovl.corrupt.4 &&
    grep -Fx "clustermap overlay: tnbc: bad trace bad.2:4: fewer peers than the size minus one, or one that is not a rank; running without priorities" said.corrupt.4 &&
    grep -Fx "clustermap overlay: tnbc: bad trace bad.1:2: a call count that is not a positive number; running without priorities" said.corrupt.4 &&
    test $(wc -l <said.corrupt.4) = 2
'

test_expect_success 'trace: a prefix that cannot be written: said, the same checksum, the program ends well' '
    overlay 4 nowrite -x CLUSTERMAP_OVERLAY=tnbc -x CLUSTERMAP_OVERLAY_TRACE=no/such/dir/tr ./tnbc_order &&
    same_sum out.order.4 ovl.nowrite.4 &&
    test $(grep -c "^clustermap overlay: tnbc: cannot write the trace no/such/dir/tr\.[0-3]: No such file or directory\$" said.nowrite.4) = 4
'

# The per-node rule (CLUSTERMAP_OVERLAY_WAVES=1, ovl_waves.c): on each node
# the ranks send one after the other, passing a token.  On this machine
# every rank shares one node, so the chain is all of them.
WAVES="$TNBC -x CLUSTERMAP_OVERLAY_WAVES=1"
for np in 4 8; do
    test_expect_success "waves, $np ranks: the mini-applications (C and Fortran) give the same checksums, every Alltoall(v) in waves" "
        for app in transpose isort redist; do
            overlay $np w.\$app $WAVES ./mini_\$app &&
            same_sum out.mini_\$app.$np ovl.w.\$app.$np &&
            overlay $np w.\${app}_f $WAVES ./mini_\${app}_f &&
            same_sum out.mini_\$app.$np ovl.w.\${app}_f.$np || return 1
        done &&
        tnbc_line said.w.transpose.$np \"\$expect_transpose\" \", 3 calls in waves ($np ranks on the node)\" &&
        tnbc_line said.w.isort_f.$np \"\$expect_isort\" \", 8 calls in waves ($np ranks on the node)\" &&
        tnbc_line said.w.redist.$np \"\$expect_redist\" \", 4 calls in waves ($np ranks on the node)\"
    "
done

test_expect_success 'waves, 5 ranks: tnbc_edges (a communicator freed with a call pending on it, Allgather and Bcast beside) and tnbc_fallback (ranks blocking in the chain)' '
    plain 5 edges ./tnbc_edges &&
    overlay 5 w.edges $WAVES ./tnbc_edges &&
    ! grep ERROR ovl.w.edges.5 &&
    grep -x "tnbc_edges: ok" ovl.w.edges.5 &&
    tnbc_line said.w.edges.5 "10 calls (7 MPI_Alltoall, 0 MPI_Alltoallv, 1 MPI_Allgather, 2 MPI_Bcast), 0 passed through, " ", 7 calls in waves (5 ranks on the node)" &&
    overlay 5 w.fallback $WAVES ./tnbc_fallback &&
    ! grep ERROR ovl.w.fallback.5 &&
    grep -x "tnbc_fallback: ok" ovl.w.fallback.5
'

test_expect_success 'waves with priorities, and with one rank stepped aside in the chain: the same checksum' '
    overlay 4 w.prorder $WAVES $KEEP -x CLUSTERMAP_OVERLAY_PRIO=ord4 ./tnbc_order &&
    same_sum out.order.4 ovl.w.prorder.4 &&
    tnbc_line said.w.prorder.4 "3 calls (3 MPI_Alltoall, " ", 3 calls in waves (4 ranks on the node)" &&
    overlay 4 w.mixed $WAVES -x CLUSTERMAP_OVERLAY_PRIO=aside4 ./rank2aside.sh &&
    same_sum out.order.4 ovl.w.mixed.4 &&
    tnbc_line said.w.mixed.4 "3 calls (3 MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 0 passed through, " ", 3 calls in waves (4 ranks on the node)"
'

test_expect_success 'waves asked for by some ranks only: none runs them, one line says so' '
    printf "#!/bin/sh\n[ \"\$OMPI_COMM_WORLD_RANK\" = 1 ] && export CLUSTERMAP_OVERLAY_WAVES=1\nexec ./mini_isort\n" >rank1waves.sh &&
    chmod +x rank1waves.sh &&
    overlay 4 w.some $TNBC ./rank1waves.sh &&
    same_sum out.mini_isort.4 ovl.w.some.4 &&
    grep -Fx "clustermap overlay: tnbc: CLUSTERMAP_OVERLAY_WAVES not set alike on every rank (or not set up); running without waves" said.w.some.4 &&
    tnbc_line said.w.some.4 "$expect_isort" &&
    overlay 4 w.zero $TNBC -x CLUSTERMAP_OVERLAY_WAVES=0 ./mini_isort &&
    tnbc_line said.w.zero.4 "$expect_isort" &&
    test $(wc -l <said.w.zero.4) = 1
'

test_done
