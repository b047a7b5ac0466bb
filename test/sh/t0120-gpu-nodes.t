#!/bin/sh
test_description='GPU machines: clustermap devices on the synthetic GPU nodes
(test/data/nodes) gives the GPU -> cores and GPU -> NIC answers of their
specification, and plan/eval/render --gpus place ranks on GPU slots'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

NODES=$CM_DATA/nodes

# gpus NODE: "K cpus nic" per GPU, from clustermap devices.
gpus() {
    cm_run devices --hwloc-xml "$NODES/$1.xml" >devices.$1 &&
    sed -n 's/^gpu=\([0-9]*\) .* cpus=\([^ ]*\) nic=\([^ ]*\)$/\1 \2 \3/p' devices.$1
}

test_expect_success 'gpu4: GPUs 0,1 in NUMA0 with mlx5_0 (ib0), 2,3 in NUMA1 with ib1' '
    gpus gpu4 >got &&
    cat >expect <<-\EOF &&
	0 0-7 ib0
	1 0-7 ib0
	2 8-15 ib1
	3 8-15 ib1
	EOF
    test_cmp expect got &&
    grep -x "gpus=4 nics=2 interconnect=nvlink" devices.gpu4 &&
    grep -x "nic=0 name=ib0 fabric=mlx5_0 busid=0000:0c:00.0 numa=0 cpus=0-7" devices.gpu4 &&
    grep "^link=" devices.gpu4 >links &&
    printf "link=0-1 bandwidth=100GB/s\nlink=2-3 bandwidth=100GB/s\n" >expect &&
    test_cmp expect links
'

test_expect_success 'dgx: GPUs 2k, 2k+1 on NUMA k with NIC k, NVSwitch 300 GB/s' '
    gpus dgx >got &&
    cat >expect <<-\EOF &&
	0 0-15 ib0
	1 0-15 ib0
	2 16-31 ib1
	3 16-31 ib1
	4 32-47 ib2
	5 32-47 ib2
	6 48-63 ib3
	7 48-63 ib3
	EOF
    test_cmp expect got &&
    test $(grep -c "^link=.* bandwidth=300GB/s$" devices.dgx) = 28
'

test_expect_success 'frontier: GCD -> cores and NIC (GCD 4 -> 0-7, hsn2)' '
    gpus frontier >got &&
    cat >expect <<-\EOF &&
	0 48-55 hsn0
	1 56-63 hsn0
	2 16-23 hsn1
	3 24-31 hsn1
	4 0-7 hsn2
	5 8-15 hsn2
	6 32-39 hsn3
	7 40-47 hsn3
	EOF
    test_cmp expect got &&
    grep -x "gpu=4 name=rsmi4 busid=0000:d1:00.0 numa=0 cpus=0-7 nic=hsn2" devices.frontier &&
    grep -x "nic=2 name=hsn2 fabric=cxi2 busid=0000:d5:00.0 numa=0 cpus=0-15" devices.frontier &&
    grep -x "link=4-5 bandwidth=200GB/s" devices.frontier &&
    grep -x "link=4-6 bandwidth=100GB/s" devices.frontier &&
    grep -x "link=2-4 bandwidth=50GB/s" devices.frontier &&
    ! grep -x "link=0-3 .*" devices.frontier
'

test_expect_success 'gh200: GPU k in package k (cores 72k..72k+71) with NIC k' '
    gpus gh200 >got &&
    cat >expect <<-\EOF &&
	0 0-71 ib0
	1 72-143 ib1
	2 144-215 ib2
	3 216-287 ib3
	EOF
    test_cmp expect got &&
    grep -x "gpu=2 name=nvml2 busid=0029:01:00.0 numa=2 cpus=144-215 nic=ib2" devices.gh200
'

# What the virtual cluster relies on: a live load (the plugin's) reads the
# node's XML when HWLOC_XMLFILE names it.
test_expect_success 'devices --hwloc-live follows HWLOC_XMLFILE' '
    HWLOC_XMLFILE="$NODES/frontier.xml" cm_run devices --hwloc-live >live &&
    test_cmp devices.frontier live
'

test_expect_success 'devices on a CPU-only topology: no GPU is not an error' '
    cm_run devices --hwloc-xml "$CM_DATA/hwloc/2s-8c-smt2.xml" >out &&
    echo "gpus=0 nics=0 interconnect=-" >expect &&
    test_cmp expect out
'

test_expect_success 'devices: a bad XML is an error naming the file' '
    test_expect_code 1 cm_run devices --hwloc-xml "$CM_DATA/hwloc/broken.xml" 2>err &&
    grep "^clustermap devices: .*/broken.xml: hwloc cannot use this XML file" err &&
    test_expect_code 1 cm_run devices --hwloc-xml nowhere.xml 2>err &&
    grep "^clustermap devices: nowhere.xml: cannot open hwloc XML" err
'

test_expect_success 'devices: usage errors' '
    test_expect_code 2 cm_run devices 2>err &&
    grep "give one of --hwloc-xml FILE and --hwloc-live" err &&
    test_expect_code 2 cm_run devices --hwloc-xml a.xml --hwloc-live 2>err &&
    test_expect_code 2 cm_run devices --hwloc-xml a.xml extra 2>err
'

# A ring of 8 ranks with heavy pairs (0,1), (2,3), ...
test_expect_success 'a matrix of 8 ranks' '
    cat >pairs.txt <<-\EOF
	# ranks 8
	0 1 1000000 10
	1 0 1000000 10
	2 3 1000000 10
	3 2 1000000 10
	4 5 1000000 10
	5 4 1000000 10
	6 7 1000000 10
	7 6 1000000 10
	1 2 1000 1
	3 4 1000 1
	5 6 1000 1
	7 0 1000 1
	EOF
'

test_expect_success 'plan --gpus on frontier: ranks on GCDs, cores in each GCD locality' '
    cm_run plan --matrix pairs.txt --hwloc-xml "$NODES/frontier.xml" --gpus \
        --algorithm block --output block.map -v 2>verbose &&
    seq 0 7 >expect &&
    test_cmp expect block.map &&
    grep "^machine=switch 1 > node 1 > xgmi 4 > gpu 8$" verbose &&
    sed -n "s/^rank=//p" verbose >ranks &&
    cat >expect <<-\EOF &&
	0 node=node0 gpu=4 nic=hsn2 cpus=0-7
	1 node=node0 gpu=5 nic=hsn2 cpus=8-15
	2 node=node0 gpu=2 nic=hsn1 cpus=16-23
	3 node=node0 gpu=3 nic=hsn1 cpus=24-31
	4 node=node0 gpu=6 nic=hsn3 cpus=32-39
	5 node=node0 gpu=7 nic=hsn3 cpus=40-47
	6 node=node0 gpu=0 nic=hsn0 cpus=48-55
	7 node=node0 gpu=1 nic=hsn0 cpus=56-63
	EOF
    test_cmp expect ranks
'

test_expect_success 'plan --gpus on 2 gpu4 nodes: auto keeps the NVLink pairs' '
    cm_run plan --matrix pairs.txt --hwloc-xml "$NODES/gpu4.xml" --nodes 2 --gpus \
        --output auto.map -v 2>verbose &&
    sed -n "s/^rank=\([0-9]*\) node=\([a-z0-9]*\) gpu=\([0-9]\).*/\1 \2 \3/p" verbose >ranks &&
    test $(wc -l <ranks) = 8 &&
    for p in "0 1" "2 3" "4 5" "6 7"; do
        set -- $p &&
        a=$(awk -v r=$1 "\$1 == r { print \$2, int(\$3 / 2) }" ranks) &&
        b=$(awk -v r=$2 "\$1 == r { print \$2, int(\$3 / 2) }" ranks) &&
        test "$a" = "$b" || return 1
    done &&
    cm_run eval --matrix pairs.txt --hwloc-xml "$NODES/gpu4.xml" --nodes 2 --gpus \
        --mapping auto.map >eval.out &&
    grep -x "level.nvlink=8000000" eval.out
'

test_expect_success 'plan --gpus=2 on dgx: two slots per GPU' '
    cm_run plan --matrix pairs.txt --hwloc-xml "$NODES/dgx.xml" --gpus=2 \
        --algorithm block --output - -v 2>verbose >map &&
    grep "^machine=switch 1 > node 1 > socket 2 > numa 4 > gpu 8 > task 16$" verbose &&
    grep -x "rank=1 node=node0 gpu=0 nic=ib0 cpus=0-15" verbose &&
    grep -x "rank=2 node=node0 gpu=1 nic=ib0 cpus=0-15" verbose
'

test_expect_success 'render --gpus labels each slot with its GPU' '
    cm_run render --matrix pairs.txt --hwloc-xml "$NODES/frontier.xml" --gpus \
        --mapping block --view placement --output frontier.svg &&
    test -s frontier.svg
'

test_expect_success '--gpus: usage errors and a topology without GPU' '
    test_expect_code 2 cm_run plan --matrix pairs.txt --gpus --output - 2>err &&
    grep "gpus needs --hwloc-xml or --hwloc-live" err &&
    test_expect_code 2 cm_run plan --matrix pairs.txt --hwloc-xml "$NODES/gpu4.xml" \
        --gpus=0 --output - 2>err &&
    grep "gpus=K expects K tasks per GPU, from 1 to 1024, got .0." err &&
    test_expect_code 2 cm_run plan --matrix pairs.txt --hierarchy 4:2 --distances 1:2 \
        --gpus --output - 2>err &&
    test_expect_code 1 cm_run plan --matrix pairs.txt --hwloc-xml "$CM_DATA/hwloc/1s-4c.xml" \
        --gpus --output - 2>err &&
    grep "1s-4c.xml: hwloc finds no GPU in this topology" err &&
    test_expect_code 1 cm_run plan --matrix pairs.txt --hwloc-xml "$NODES/gh200.xml" \
        --gpus --output - 2>err &&
    grep "has 8 ranks but the machine has only 4 slots" err
'

test_done
