#!/bin/sh
test_description='clustermap plan and eval on a topology/block cluster: the
blocks are a machine level named "block" that level specs price'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

# Two NVLink racks of two 2-core nodes; ranks 0-1 and 2-3 talk, 1 and 2
# a little.
test_expect_success 'setup: slurm.conf, a topology/block topology.conf, a matrix' '
    printf "NodeName=n[1-4] Sockets=1 CoresPerSocket=2\n" >slurm.conf &&
    printf "BlockName=r1 Nodes=n[1-2]\nBlockName=r2 Nodes=n[3-4]\nBlockSizes=2\n" \
        >topology.conf &&
    printf "0 1 1000000\n2 3 1000000\n1 2 10\n" >m.trip &&
    SC="--slurm-conf slurm.conf --topology-conf topology.conf --nodelist n[1-4]" &&
    echo "$SC" >sc
'

test_expect_success 'plan: --level-latency/--level-bandwidth block=... are taken' '
    cm_run plan --matrix m.trip --format triplets $(cat sc) \
        --level-latency block=0.5us,cluster=5us --level-bandwidth block=900GB/s \
        --output p.map &&
    test $(wc -l <p.map) = 4
'

test_expect_success 'eval: the levels are cluster, block, node, socket, core' '
    cm_run eval --matrix m.trip --format triplets $(cat sc) --mapping block >e.out &&
    sed -n "s/^level\.\([a-z]*\)=.*/\1/p" e.out | tr "\n" " " >levels &&
    test "$(cat levels)" = "cluster block node socket core " &&
    # block fills n1, n2, n3, n4 two ranks each: 1-2 meet in one block
    test "$(cm_value level.block e.out)" = 10 &&
    test "$(cm_value level.cluster e.out)" = 0
'

# (triplets carry bytes, no message counts: bandwidth, not latency, moves J)
test_expect_success 'eval: a slower block level costs more' '
    cm_run eval --matrix m.trip --format triplets $(cat sc) --mapping block \
        --level-bandwidth block=900GB/s >cheap &&
    cm_run eval --matrix m.trip --format triplets $(cat sc) --mapping block \
        --level-bandwidth block=1MB/s >dear &&
    awk -v a="$(cm_value J cheap)" -v b="$(cm_value J dear)" "BEGIN { exit !(b > a) }"
'

test_expect_success 'a switch level is not this machine'"'"'s: the known levels are named' '
    test_expect_code 1 "$CLUSTERMAP" plan --matrix m.trip --format triplets $(cat sc) \
        --level-latency switch=1us --output x.map 2>err &&
    grep "unknown level .switch. (known: cluster, block, node, socket, core)" err
'

test_expect_success 'a topology.conf mixing SwitchName and BlockName: file and line' '
    printf "BlockName=r1 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\n" >mixed.conf &&
    test_expect_code 1 "$CLUSTERMAP" plan --matrix m.trip --format triplets \
        --slurm-conf slurm.conf --topology-conf mixed.conf --nodelist "n[1-4]" \
        --output x.map 2>err &&
    grep "mixed.conf:2: SwitchName= in a file of BlockName/BlockSizes lines (line 1)" err
'

test_expect_success 'a bad BlockSizes: file, line and what was expected' '
    printf "BlockName=r1 Nodes=n[1-4]\nBlockSizes=3,4\n" >sizes.conf &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix m.trip --format triplets \
        --slurm-conf slurm.conf --topology-conf sizes.conf --nodelist "n[1-4]" \
        --mapping block 2>err &&
    grep "sizes.conf:2: BlockSizes: expected 4 to be 3 times a power of two" err
'

test_done
