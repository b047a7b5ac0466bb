#!/bin/sh
#
# clustermap calibrate on the virtual cluster: inside a batch job of 4
# nodes with 2 tasks each it starts clustermap-pingpong on every task,
# classes the 28 pairs by where they meet in the machine the job's slurm.conf and topology.conf
# describe (the same node, a leaf switch, the root switch), and prints per
# level latency and bandwidth as plugstack.conf's level_latencies= and
# level_bandwidths=, which eval then takes.  Outside an allocation it says
# so; a saved output with a bad line is named by file and line.  (The
# figures themselves are the virtual cluster's: 8 busy-polling ranks on
# this machine's 2 CPUs, milliseconds, not a network's.)  Where Slurm has
# topology/block (23.11 on; trixie's 24.11), the cluster is brought up
# again with blocks of two nodes: the pairs of one block are a "block"
# row, which eval then takes.
#
# Own cluster (CM_CLUSTER_NAME=t0516).

test_description='clustermap calibrate: level costs measured on the cluster'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0516}
unset CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_TOPOLOGY
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

if [ -e "$(. "$CLUSTER/lib.sh" && echo "$CM_SLURM_PLUGINDIR")/topology_block.so" ]; then
    test_set_prereq TOPOLOGY_BLOCK
fi

PINGPONG=$PBUILD/clustermap-pingpong
# the launcher, split at blanks by calibrate: srun with PMIx, else mpirun
# (not placed: no --mapping; Open MPI 6 binds no more ranks than CPUs)
if test_have_prereq SRUN_PMIX; then
    LAUNCHER="srun --mpi=pmix"
else
    LAUNCHER="mpirun --allow-run-as-root --bind-to none"
fi

test_expect_success 'outside an allocation: a usage error that says so' '
    (unset SLURM_JOB_ID; test_expect_code 2 "$CM" calibrate --slurm-conf /dev/null \
        --nodelist n1 2>out.err) &&
    grep "not inside an allocation" out.err
'

test_expect_success 'a saved output with a bad line: file and line named' '
    printf "ClusterName=x\nNodeName=n1 CPUs=2\n" >one.conf &&
    printf "host 0 n1 -1\nhost 1 n1 -1\npair 0 1 1e-6\n" >bad.out &&
    test_expect_code 1 "$CM" calibrate --input bad.out --slurm-conf one.conf \
        --nodelist n1 2>bad.err &&
    grep "^clustermap calibrate: bad.out: line 3: expected" bad.err &&
    printf "host 0 n9 -1\n" >alien.out &&
    test_expect_code 1 "$CM" calibrate --input alien.out --slurm-conf one.conf \
        --nodelist n1 2>alien.err &&
    grep "host .n9. of rank 0 is not a node of the machine" alien.err
'

test_expect_success 'cluster comes up; the job' '
    plugin_cluster_up &&
    cat >cal.sh <<-EOF &&
	#!/bin/sh
	"$CM" calibrate --launcher "$LAUNCHER" --program "$PINGPONG" --reps 20
	EOF
    chmod 755 cal.sh
'

test_expect_success 'calibrate in a 4-node job: one line per level met, then the settings' '
    sbw -N4 --ntasks-per-node=2 -o "$PWD/cal.out" -e "$PWD/cal.err" cal.sh &&
    cat cal.out &&
    grep "^level  *pairs  *latency  *bandwidth$" cal.out &&
    awk "\$4 == \"us\" && \$6 == \"GB/s\" { n += \$2; if (!(\$3 > 0 && \$5 > 0)) bad = 1 }
         END { exit bad || n != 28 }" cal.out &&
    awk "\$4 == \"us\" && \$6 == \"GB/s\"" cal.out >levels &&
    test "$(wc -l <levels)" -ge 3 &&
    grep -E "^level_latencies=[a-z0-9]+=[0-9.e+-]+us(,[a-z0-9]+=[0-9.e+-]+us)+$" cal.out &&
    grep -E "^level_bandwidths=[a-z0-9]+=[0-9.e+-]+GB/s(,[a-z0-9]+=[0-9.e+-]+GB/s)+$" cal.out
'

test_expect_success 'the pairs of two switches meet at the root, of one leaf at the leaf' '
    # n1,n2 | n3,n4: 16 pairs across the leaves, 8 within one, 4 in a node
    awk "\$4 == \"us\" {print \$2}" cal.out | sort -n | tr "\n" " " >counts &&
    test "$(cat counts)" = "4 8 16 "
'

# eval_figures CAL OUT: eval of a small matrix on the cluster's slurm.conf
# and topology.conf, priced by the level_latencies= and level_bandwidths=
# lines calibrate wrote to CAL.
eval_figures() {
    lat=$(sed -n "s/^level_latencies=//p" "$1") &&
    bw=$(sed -n "s/^level_bandwidths=//p" "$1") &&
    printf "0 1 1000\n1 2 1000\n" >m.trip &&
    "$CM" eval --matrix m.trip --format triplets --slurm-conf "$STATE/etc/slurm.conf" \
        --topology-conf "$STATE/etc/topology.conf" --nodelist "n[1-4]" \
        --level-latency "$lat" --level-bandwidth "$bw" --mapping block >"$2"
}

test_expect_success 'eval takes the figures' '
    eval_figures cal.out eval.out &&
    grep "^J=" eval.out
'

# n1,n2 | n3,n4 again, as two blocks: 8 pairs in one block, 16 across.
test_expect_success TOPOLOGY_BLOCK 'topology/block: the pairs of one block are a "block" row' '
    CM_CLUSTER_TOPOLOGY=block plugin_cluster_up &&
    grep -q "^BlockName=" "$STATE/etc/topology.conf" &&
    sbw -N4 --ntasks-per-node=2 -o "$PWD/blk.out" -e "$PWD/blk.err" cal.sh &&
    cat blk.out &&
    awk "\$4 == \"us\" && \$6 == \"GB/s\" { n += \$2; if (!(\$3 > 0 && \$5 > 0)) bad = 1 }
         END { exit bad || n != 28 }" blk.out &&
    awk "\$4 == \"us\" && (\$1 == \"block\" || \$1 == \"cluster\") {print \$1, \$2}" \
        blk.out >rows &&
    printf "block 8\ncluster 16\n" >want &&
    test_cmp want rows &&
    grep -E "^level_latencies=(.*,)?block=[0-9.e+-]+us(,|$)" blk.out &&
    grep -E "^level_bandwidths=(.*,)?block=[0-9.e+-]+GB/s(,|$)" blk.out
'

test_expect_success TOPOLOGY_BLOCK 'eval takes the block figures' '
    eval_figures blk.out beval.out &&
    grep "^J=" beval.out &&
    grep "^level.block=" beval.out
'

cluster_finish

test_done
