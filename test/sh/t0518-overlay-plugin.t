#!/bin/sh
#
# The communication overlays switched on by the SPANK plugin
# (docs/overlays.md, "Switching it on in Slurm"): --mapping's css and
# overlap modifiers and plugstack's overlay= preload libclustermap-prof.so
# on every node and set CLUSTERMAP_OVERLAY for the tasks; the program's
# output is the same as without; a node without the library makes every
# rank run without the overlay (the library's agreement at MPI_Init, no
# collective of its own), within the run's normal time, with one line.
#
# MPI programs start with $MPI_RUN (lib/cluster.sh): srun --mpi=pmix, or
# clustermap's mpirun where this Slurm has no PMIx (forky), which gets the
# overlay from the batch step.  Own cluster (CM_CLUSTER_NAME=t0518).

test_description='SPANK plugin: the communication overlays'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0518}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"
LOGS=$STATE/log

# job TAG MAPPING [NODES]: mini_redist on 4 ranks of 4 nodes (or NODES),
# output in out/TAG.*, seconds in TAG.sec.  (The 4 virtual nodes share
# this machine's cores: with 8 ranks Open MPI 5's css steps took 8 to 10 s,
# and sometimes more than sbatch-wait's 120 s, on trixie; one rank a node,
# told to yield.)
job() {
    _t0=$(date +%s)
    sbw -t 3 -J redist -N${3:-4} -n4 --mapping="$2" -o out/$1.out -e out/$1.err \
        redist.sh >/dev/null || { diag out/$1.out out/$1.err; return 1; }
    echo $(( $(date +%s) - _t0 )) >$1.sec
}
# same_sum A B: both outputs end with one identical checksum line
same_sum() {
    grep -Ex 'checksum [0-9a-f]{16}' out/$1.out >sum.a &&
    grep -Ex 'checksum [0-9a-f]{16}' out/$2.out >sum.b &&
    test $(wc -l <sum.a) = 1 && test_cmp sum.a sum.b
}
# said TAG ERE: exactly one "clustermap overlay:" line of TAG's stderr,
# matching ERE
said() {
    grep '^clustermap overlay:' out/$1.err >said.$1
    test "$(wc -l <said.$1)" = 1 && grep -Eq "$2" said.$1 || diag said.$1 out/$1.err
}
CSS_LINE='^clustermap overlay: css: rank 0: 4 MPI_Alltoallv calls, 4 scheduled'
TNBC_LINE='^clustermap overlay: tnbc: (rank 0: [0-9]+ calls|the MPI library did not grant MPI_THREAD_MULTIPLE)'

test_expect_success 'cluster with the plugin comes up; mini_redist; a run without overlay' '
    plugin_cluster_up &&
    mpicc -O -Wall -I"$CM_ROOT/test/mpi" -o mini_redist "$CM_ROOT/test/mpi/mini_redist.c" &&
    printf "#!/bin/sh\nexport OMPI_MCA_mpi_yield_when_idle=1\n%s ./mini_redist\n" "$MPI_RUN" >redist.sh &&
    chmod 755 redist.sh && mkdir -p out &&
    job base cluster,nooverlay &&
    ! grep "^clustermap overlay" out/base.err
'

test_expect_success '--mapping=cluster,css,verbose: the same output, the css line' '
    job css cluster,css,verbose &&
    same_sum base css && said css "$CSS_LINE"
'

# Two ranks on each of two nodes: the css steps are ordered by node (the
# node names come from MPI_Get_processor_name, each virtual node has its
# own), so the node-aware path runs on real processes of two hosts.
test_expect_success '--mapping=cluster,css on 2 nodes x 2 ranks: the same output' '
    job css2 cluster,css,verbose 2 &&
    same_sum base css2 && said css2 "$CSS_LINE"
'

test_expect_success '--mapping=cluster,overlap,verbose: the same output, the tnbc line' '
    job tnbc cluster,overlap,verbose &&
    same_sum base tnbc && said tnbc "$TNBC_LINE"
'

# The per-node rule (docs/overlays.md, "Waves"): each virtual node has its
# own processes, so a chain holds the ranks of one node (Slurm puts 3 and
# 1, or 2 and 2, of the 4 on the two), never all 4.  srun passes the
# job's environment on; mpirun needs -x.
test_expect_success 'overlap on 2 nodes, 4 ranks, CLUSTERMAP_OVERLAY_WAVES=1: the same output, in waves of the ranks of a node' '
    case $MPI_RUN in mpirun*) x="-x CLUSTERMAP_OVERLAY_WAVES" ;; *) x= ;; esac &&
    printf "#!/bin/sh\nexport OMPI_MCA_mpi_yield_when_idle=1 CLUSTERMAP_OVERLAY_WAVES=1\n%s %s ./mini_redist\n" "$MPI_RUN" "$x" >redistw.sh &&
    chmod 755 redistw.sh &&
    sbw -t 3 -J redist -N2 -n4 --mapping=cluster,overlap,verbose -o out/tnbcw.out \
        -e out/tnbcw.err redistw.sh >/dev/null || { diag out/tnbcw.out out/tnbcw.err; return 1; } &&
    same_sum base tnbcw && said tnbcw "$TNBC_LINE" &&
    { grep "did not grant" said.tnbcw ||
      grep -E "s\), 4 calls in waves \([123] ranks? on the node\)\$" said.tnbcw || diag said.tnbcw; }
'

test_expect_success 'plugstack overlay=css applies without the modifier; nooverlay drops it' '
    plugstack overlay=css &&
    test_when_finished "plugstack" &&
    job dflt cluster,verbose &&
    same_sum base dflt && said dflt "$CSS_LINE" &&
    job none cluster,verbose,nooverlay &&
    same_sum base none && ! grep "^clustermap overlay" out/none.err
'

test_expect_success 'prof_lib missing on n2: same output, in time, one line, no overlay' '
    prof_lib_only_on n1 n3 n4 &&
    test_when_finished "plugstack" &&
    job nolib block,css,verbose &&
    same_sum base nolib &&
    test "$(cat nolib.sec)" -le $(( $(cat base.sec) + 20 )) &&
    said nolib "^clustermap overlay: css not on every rank \(rank [0-9]+ has no overlay library\); running without it$"
'

test_expect_success 'a step that is not MPI runs with the overlay asked for' '
    sbw -t 1 -N2 -n2 --mapping=cluster,css,overlap -o out/plain.out \
        --wrap "srun -n2 /bin/echo plain" >/dev/null &&
    test "$(grep -c "^plain$" out/plain.out)" = 2
'

test_expect_success '--mapping refuses nooverlay with css' '
    test_must_fail run srun --mapping=cluster,css,nooverlay /bin/true 2>err &&
    grep "nooverlay contradicts css/overlap" err
'

cluster_finish
test_done
