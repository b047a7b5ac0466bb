#!/bin/sh
#
# The tnbc overlay's traces through Slurm (docs/overlays.md, "In the
# profile store"): a profiled step run with --mapping=...,overlap has its
# ranks record the order in which they first touch what they received
# into the nodes' private directories; the store keeps the traces beside
# the profile ("<profile>.tnbc/tnbc.<rank>", every rank's file with the
# times of all ranks summed); a later step of the same
# profile and task count reads them (CLUSTERMAP_OVERLAY_PRIO) and posts
# its sub-messages in that order, with the results of a plain run.  An
# incomplete trace gives rank order and one line; reset forgets it.
#
# test/mpi/tnbc_order.c reads its blocks from the last rank's to the first.
# Its job script sets CLUSTERMAP_OVERLAY_ASIDE=0: whether its call site hid
# more than it cost (else later runs step aside and use no order) depends
# on this machine's timing; t0111 tests stepping aside with set times.
# The jobs run as the unprivileged user cmtu1: the ranks read the traces
# from the user's store directory themselves.  The same through mpirun in
# a batch job (clustermap's mpirun: each rank writes its trace into the
# run's staging directory, the run's recording keeps them, and the next
# run's ranks find the trace in their control file), on every stack; the
# srun rows where this Slurm has PMIx.  Own cluster (CM_CLUSTER_NAME=t0519).

test_description='SPANK plugin: tnbc traces kept in the profile store'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0519}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

test_have_prereq MPIRUN_ONLY || test_set_prereq SRUN
test_users

# job TAG MAPPING: tnbc_order on 4 ranks of 4 nodes as cmtu1, output in
# out/TAG.*
# (under race_retry: Open MPI's start-up race, test/sh/lib/cluster.sh)
job() {
    race_retry sbw_as cmtu1 -t 3 -J order -N4 -n4 --mapping="$2" \
        -o out/$1.out -e out/$1.err order.sh || diag out/$1.out out/$1.err
}
# same_sum A B: both outputs end with one identical checksum line
same_sum() {
    grep -Ex 'checksum [0-9a-f]{16}' out/$1.out >sum.a &&
    grep -Ex 'checksum [0-9a-f]{16}' out/$2.out >sum.b &&
    test $(wc -l <sum.a) = 1 && test_cmp sum.a sum.b
}
# mjob TAG MAPPING: the same started by mpirun (job name morder; whole
# nodes: clustermap's mpirun places and profiles only jobs that have
# every CPU of their nodes, src/mpirun/mpirun.c)
mjob() {
    race_retry sbw_as cmtu1 -t 3 -J morder -N4 -n4 --exclusive --mapping="$2" \
        -o out/$1.out -e out/$1.err morder.sh || diag out/$1.out out/$1.err
}
# show [NAME]: the profile of 'order' (or NAME) with 4 tasks, as cmtu1
# sees it
show() {
    as cmtu1 "$CM" profile --store "$STORE" show ${1:-order} --ntasks 4 >show.out
}
# wait_trace STATE [NAME]: the store's verdict comes a moment after the job
wait_trace() {
    for i in $(seq 100); do
        show $2 2>/dev/null && grep -qx "tnbc.trace=$1" show.out && return 0
        sleep 0.1
    done
    diag show.out
}
TNBC_LINE='^clustermap overlay: tnbc: rank 0: 3 calls \(3 MPI_Alltoall'

test_expect_success 'cluster with the plugin comes up; tnbc_order; a plain profiled run' '
    plugin_cluster_up &&
    mpicc -O -Wall -I"$CM_ROOT/test/mpi" -o tnbc_order "$CM_ROOT/test/mpi/tnbc_order.c" &&
    printf "#!/bin/sh\nexport OMPI_MCA_mpi_yield_when_idle=1 CLUSTERMAP_OVERLAY_ASIDE=0\n%s ./tnbc_order\n" "$MPI_RUN" >order.sh &&
    printf "#!/bin/sh\nexport OMPI_MCA_mpi_yield_when_idle=1 CLUSTERMAP_OVERLAY_ASIDE=0\n%s ./tnbc_order\n" \
        '"'"'mpirun --allow-run-as-root $(test -n "$CLUSTERMAP_MPIRUN_DIR" || echo --bind-to none)'"'"' >morder.sh &&
    chmod 755 order.sh morder.sh tnbc_order && mkdir -p out && chmod 777 out &&
    job plain profile,nooverlay &&
    ! grep "^clustermap overlay" out/plain.err &&
    { ! test_have_prereq SRUN || wait_trace none; }
'

test_expect_success SRUN 'overlap, first run: the same checksum, no priorities yet, the trace kept' '
    job first profile,overlap,verbose &&
    same_sum plain first &&
    grep -E "$TNBC_LINE" out/first.err &&
    ! grep "priorities from" out/first.err &&
    wait_trace kept &&
    grep -x "tnbc.trace.ranks=4" show.out &&
    grep -x "tnbc.trace.sites=1" show.out &&
    dir=$(ls -d "$STORE/$U1"/order*.4.json.tnbc) &&
    test "$(stat -c "%U %a" "$dir")" = "cmtu1 700" &&
    for r in 0 1 2 3; do
        test "$(stat -c "%U %a" "$dir/tnbc.$r")" = "cmtu1 600" || return 1
    done &&
    grep -Ex "site tnbc_order\+0x[0-9a-f]+ alltoall 4 0 3 3 2 1" "$dir/tnbc.0" &&
    grep -Ex "site tnbc_order\+0x[0-9a-f]+ alltoall 4 3 3 2 1 0" "$dir/tnbc.3" &&
    for r in 0 1 2 3; do
        grep -E "^time tnbc_order\+0x[0-9a-f]+ alltoall 4 $r [0-9]+ [0-9]+\$" "$dir/tnbc.$r" | cut -d" " -f7,8 || return 1
    done >times && test $(sort -u times | wc -l) = 1 && test $(wc -l <times) = 4 &&
    ! ls -d "$STORE/$U1"/.step.* "$STORE/$U1"/.order* 2>/dev/null
'

test_expect_success SRUN 'overlap, second run: every call in the trace order, the same checksum' '
    cp "$dir/tnbc.0" trace0.before &&
    job second profile,overlap,verbose &&
    same_sum plain second &&
    grep -E "^clustermap: tnbc: priorities from the trace of job .order. with 4 tasks$" out/second.err &&
    grep -E "^clustermap overlay: tnbc: priorities from $dir/tnbc.0: 3 of 3 calls in the trace.s order$" out/second.err &&
    wait_trace kept &&
    grep "^site " trace0.before >site.before &&
    grep "^site " "$dir/tnbc.0" >site.after &&
    test_cmp site.before site.after
'

test_expect_success SRUN 'a placed run (not profiled, guard=no) uses the trace too' '
    job placed cluster,overlap,verbose &&
    same_sum plain placed &&
    grep -E "priorities from $dir/tnbc.0: 3 of 3 calls" out/placed.err
'

test_expect_success SRUN 'an incomplete trace: rank order, one line, the same checksum; the run records a new one' '
    rm "$dir/tnbc.2" &&
    job broken profile,overlap &&
    same_sum plain broken &&
    grep -E "^clustermap: tnbc: not using the trace of job .order. with 4 tasks: $dir: the files of 3 of its 4 ranks; running in rank order$" out/broken.err &&
    ! grep "priorities from" out/broken.err &&
    wait_trace kept && grep -x "tnbc.trace.ranks=4" show.out
'

test_expect_success SRUN 'another task count: no priorities, nothing said' '
    race_retry sbw_as cmtu1 -t 3 -J order -N2 -n2 --mapping=cluster,overlap,noprofile \
        -o out/two.out -e out/two.err order.sh &&
    grep -Ex "checksum [0-9a-f]{16}" out/two.out &&
    ! grep "priorities\|trace" out/two.err
'

test_expect_success SRUN 'profile reset forgets the trace; delete removes the profile with it' '
    as cmtu1 "$CM" profile --store "$STORE" reset order --ntasks 4 >reset.out &&
    grep "^forgot the tnbc trace of .order.* with 4 tasks$" reset.out &&
    show && grep -x "tnbc.trace=none" show.out &&
    job again profile,overlap &&
    wait_trace kept &&
    as cmtu1 "$CM" profile --store "$STORE" delete order --ntasks 4 &&
    ! ls -d "$STORE/$U1"/order* 2>/dev/null
'

test_expect_success 'mpirun, first run: the same checksum, the trace kept from the staging directory' '
    mjob mfirst profile,overlap,verbose &&
    same_sum plain mfirst &&
    grep -E "$TNBC_LINE" out/mfirst.err &&
    ! grep "priorities from" out/mfirst.err &&
    wait_trace kept morder &&
    grep -x "tnbc.trace.ranks=4" show.out &&
    grep -x "tnbc.trace.sites=1" show.out &&
    mdir=$(ls -d "$STORE/$U1"/morder*.4.json.tnbc) &&
    grep -Ex "site tnbc_order\+0x[0-9a-f]+ alltoall 4 0 3 3 2 1" "$mdir/tnbc.0" &&
    for r in 0 1 2 3; do
        grep -E "^time tnbc_order\+0x[0-9a-f]+ alltoall 4 $r [0-9]+ [0-9]+\$" "$mdir/tnbc.$r" | cut -d" " -f7,8 || return 1
    done >times && test $(sort -u times | wc -l) = 1 && test $(wc -l <times) = 4 &&
    ! ls -d "$STORE/$U1"/.mpirun* "$STORE/$U1"/.step.* 2>/dev/null
'

test_expect_success 'mpirun, second run: the ranks read the trace named in their control file' '
    mjob msecond profile,overlap,verbose &&
    same_sum plain msecond &&
    grep -E "^clustermap overlay: tnbc: priorities from $mdir/tnbc.0: 3 of 3 calls in the trace.s order$" out/msecond.err &&
    wait_trace kept morder
'

test_expect_success 'mpirun, a placed run neither profiled nor timed reads the trace too' '
    mjob mplaced cluster,overlap,noprofile,verbose &&
    same_sum plain mplaced &&
    grep -E "^clustermap overlay: tnbc: priorities from $mdir/tnbc.0: 3 of 3 calls in the trace.s order$" out/mplaced.err
'

test_expect_success 'mpirun without overlap: no trace read, none written' '
    mjob mplain profile,nooverlay &&
    same_sum plain mplain &&
    ! grep "^clustermap overlay" out/mplain.err &&
    wait_trace kept morder
'

cluster_finish
remove_users
test_done
