#!/bin/sh
#
# GPU nodes on the virtual cluster, and Slurm's own GPU layout on them (the
# yardstick placed GPU jobs are compared with): CM_CLUSTER_GPUS and
# CM_CLUSTER_NODE_XML make the nodes claim the GPUs, NICs and cores of a
# node type of test/data/nodes/ (gres.conf with AutoDetect=off, stand-in
# character devices, Cores= and Links= from the type's hwloc XML).  Then,
# per srun option set, what each task gets from Slurm: its GPU(s), Slurm's
# GPU and NIC variables, its CPU affinity.  The nodes claim more cores
# than the machine has: slurmd folds abstract core c onto machine CPU
# c mod R (lib/gpu.sh), in the tasks' masks and in gres.conf's Cores=, so
# --gpu-bind=closest and --cpu-bind only show that folding here; the rows
# predict it from the machine's CPU count rather than assume 2 CPUs.
# Ends with the dgx, frontier and gh200 types, topology/block (Slurm 24.05
# and later) and the way back to CPU nodes.
#
# Own cluster (CM_CLUSTER_NAME=t0525), restarted per node type, taken down
# at the end unless CM_CLUSTER_KEEP=1.

test_description='GPU nodes on the virtual cluster: Slurm'"'"'s own GPU layout'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0525}
unset CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_PLUGSTACK CM_CLUSTER_PLUGSTACK_FILE \
    CM_CLUSTER_NODES CM_CLUSTER_EXTRA_NODES CM_CLUSTER_TOPOLOGY \
    CM_CLUSTER_GPUS CM_CLUSTER_NODE_XML
. "$SHARNESS_TEST_DIRECTORY/lib/cluster.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/gpu.sh"
SRC=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
NODES=$SRC/test/data/nodes

# The Slurm release: what the NIC variables and --tres-bind do differs.
SLURM_V=$(slurmd -V 2>/dev/null | awk '{ print $2 }')
case $SLURM_V in
    22.05.*) test_set_prereq SLURM_2205 ;;
    24.11.*) test_set_prereq SLURM_2411 ;;
esac
case $SLURM_V in
    2[3-9].1[1-2].* | 2[4-9].* | [3-9]*) test_set_prereq TRES_BIND ;;
esac
# Slurm 25.11 and later take a gres.conf Cores= of one socket or all cores.
if printf '25.11\n%s\n' "$SLURM_V" | sort -V -C; then test_set_prereq ONE_SOCKET_CORES; fi
if [ -e "$(. "$CM_CLUSTER_BIN/lib.sh" && echo "$CM_SLURM_PLUGINDIR")/topology_block.so" ]; then
    test_set_prereq TOPOLOGY_BLOCK
fi
if [ "$GPU_MACHINE_CPUS" -lt 4 ]; then test_set_prereq FEW_CPUS; fi
if command -v hwloc-calc >/dev/null 2>&1; then test_set_prereq HWLOC_CALC; fi
say "# Slurm $SLURM_V, $GPU_MACHINE_CPUS machine CPUs"

# gen DIR [VAR=VALUE...]: the configuration up.sh would write, into DIR.
gen() {
    _d=$1; shift
    env "$@" sh -c 'here=$1; . "$here/lib.sh"; cm_write_config "$2"' gen "$CM_CLUSTER_BIN" "$_d"
}

# layout NAME SRUN-ARG...: the step's per-task lines in NAME (one
# "RANK NODE GPU NIC CPUS [VAR=VALUE...]" a task, lib/gpu-task) and the
# job's record in NAME.job; after wait-idle, so that Slurm picks n1, n2...
layout() {
    _n=$1; shift
    cluster_idle &&
    GPU_TASK_JOB=$PWD/$_n.job cm_gpu_layout "$@" >"$_n" 2>"$_n.err" ||
        diag "$_n" "$_n.err" || return 1
    cat "$_n"   # shown with -v: the measured layout
}

# cpus_folded NAME: every task's CPU list is the folding of the cores the
# job holds on its node (tasks not bound by --cpu-bind).
cpus_folded() {
    while read -r rank node gpu nic cpus rest; do
        ids=$(gpu_job_cpus "$1.job" "$node") && [ -n "$ids" ] &&
        want=$(gpu_fold "$ids") &&
        { [ "$cpus" = "$want" ] ||
          { echo "# task $rank on $node: CPUs $cpus, expected $want (cores $ids folded)" >&7; return 1; }; } ||
            return 1
    done <"$1"
}

# closest_as_predicted NAME GPUS: every task's GPUs are those of GPUS whose
# folded Cores= meet its CPUs (gpu_closest).
closest_as_predicted() {
    while read -r rank node gpu nic cpus rest; do
        want=$(gpu_closest "$CM_CLUSTER_STATE/etc/gres.conf" "$2" "$cpus") &&
        { [ "$gpu" = "$want" ] ||
          { echo "# task $rank: GPUs $gpu, closest predicts $want" >&7; return 1; }; } || return 1
    done <"$1"
}

test_expect_success 'nodeinfo reads a node type: shape, Slurm sockets (locality domains), GPUs and NICs in PCI order with their locality, GPU links' '
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/gpu4.xml" >gpu4.info &&
    cat >expect <<-\EOF &&
	node 2 8
	slurm 2 8
	gpu 0 cuda0 nvidia 0-7
	gpu 1 cuda1 nvidia 0-7
	gpu 2 cuda2 nvidia 8-15
	gpu 3 cuda3 nvidia 8-15
	nic 0 mlx5_0 ib0 0-7
	nic 1 mlx5_1 ib1 8-15
	link 0 1 100000
	link 1 0 100000
	link 2 3 100000
	link 3 2 100000
	EOF
    test_cmp expect gpu4.info &&
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/frontier.xml" | grep -v "^link" >frontier.info &&
    cat >expect <<-\EOF &&
	node 1 64
	slurm 8 8
	gpu 0 rsmi0 amd 48-55
	gpu 1 rsmi1 amd 56-63
	gpu 2 rsmi2 amd 16-23
	gpu 3 rsmi3 amd 24-31
	gpu 4 rsmi4 amd 0-7
	gpu 5 rsmi5 amd 8-15
	gpu 6 rsmi6 amd 32-39
	gpu 7 rsmi7 amd 40-47
	nic 0 cxi0 hsn0 48-63
	nic 1 cxi1 hsn1 16-31
	nic 2 cxi2 hsn2 0-15
	nic 3 cxi3 hsn3 32-47
	EOF
    test_cmp expect frontier.info &&
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/dgx.xml" >dgx.info &&
    test "$(grep -c "^gpu .* nvidia" dgx.info)" -eq 8 &&
    grep "^node 2 32$" dgx.info && grep "^slurm 4 16$" dgx.info && grep "^gpu 7 cuda7 nvidia 48-63$" dgx.info &&
    test "$(grep -c "^link .* 300000$" dgx.info)" -eq 56 &&
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/gh200.xml" >gh200.info &&
    grep "^node 4 72$" gh200.info && grep "^slurm 4 72$" gh200.info && grep "^gpu 3 cuda3 nvidia 216-287$" gh200.info &&
    grep "^nic 3 mlx5_3 ib3 216-287$" gh200.info
'

# hwloc_cores XML DEVICE: the cores hwloc gives the OS device DEVICE, as
# a range list ("0-7"), to hold nodeinfo's own reading against.
hwloc_cores() {
    hwloc-calc -i "$1" "os=$2" --intersect core | tr , '\n' | awk '
        NR == 1 || $1 != last + 1 { if (NR > 1) out = out sep (lo == last ? lo : lo "-" last); sep = ","; lo = $1 }
        { last = $1 }
        END { print out sep (lo == last ? lo : lo "-" last) }' | sed 's/^,//'
}

test_expect_success HWLOC_CALC 'nodeinfo agrees with hwloc on every GPU'"'"'s and NIC'"'"'s cores, all four types' '
    for t in gpu4 dgx frontier gh200; do
        "$CM_CLUSTER_BIN/nodeinfo" "$NODES/$t.xml" | grep -E "^(gpu|nic) " | cut -d" " -f3,5 >$t.mine &&
        while read -r dev cores; do
            echo "$dev $(hwloc_cores "$NODES/$t.xml" "$dev")" || return 1
        done <$t.mine >$t.hwloc &&
        test_cmp $t.hwloc $t.mine || return 1
    done
'

test_expect_success 'nodeinfo names the file and what it expected when a description does not fit' '
    echo "<topology/>" >empty.xml &&
    test_must_fail "$CM_CLUSTER_BIN/nodeinfo" empty.xml 2>err &&
    grep "nodeinfo: empty.xml: no Core objects (expected an hwloc 2 XML topology)" err
'

test_expect_success 'CM_CLUSTER_GPUS unset or 0: the CPU cluster, no GRES and no gres.conf' '
    gen cpu0 &&
    gen cpu1 CM_CLUSTER_GPUS=0 &&
    gen cpu2 CM_CLUSTER_GPUS=0 CM_CLUSTER_NODE_XML=dgx &&
    test_cmp cpu0/slurm.conf cpu1/slurm.conf &&
    test_cmp cpu0/slurm.conf cpu2/slurm.conf &&
    ! grep -i gres cpu0/slurm.conf &&
    grep "^NodeName=DEFAULT Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN$" cpu0/slurm.conf &&
    ! test -e cpu0/gres.conf && ! test -e cpu0/node.xml
'

test_expect_success 'CM_CLUSTER_GPUS=4: gres.conf from gpu4.xml, the node shape and Gres in slurm.conf' '
    gen gpu4 CM_CLUSTER_GPUS=4 &&
    dev=$CM_CLUSTER_STATE/dev &&
    cat >expect <<-EOF &&
	AutoDetect=off
	Name=gpu File=$dev/nvidia0 Cores=0-7 Links=-1,1,0,0 Flags=nvidia_gpu_env
	Name=gpu File=$dev/nvidia1 Cores=0-7 Links=1,-1,0,0 Flags=nvidia_gpu_env
	Name=gpu File=$dev/nvidia2 Cores=8-15 Links=0,0,-1,1 Flags=nvidia_gpu_env
	Name=gpu File=$dev/nvidia3 Cores=8-15 Links=0,0,1,-1 Flags=nvidia_gpu_env
	Name=nic File=$dev/mlx5_0 Cores=0-7
	Name=nic File=$dev/mlx5_1 Cores=8-15
	EOF
    grep -v "^#" gpu4/gres.conf >actual &&
    test_cmp expect actual &&
    test_cmp "$NODES/gpu4.xml" gpu4/node.xml &&
    grep "^NodeName=DEFAULT Sockets=2 CoresPerSocket=8 ThreadsPerCore=1" gpu4/slurm.conf &&
    grep "^GresTypes=gpu,nic$" gpu4/slurm.conf &&
    grep "^NodeName=DEFAULT Gres=gpu:4,nic:2$" gpu4/slurm.conf &&
    gen gpu2 CM_CLUSTER_GPUS=2 &&
    grep "^NodeName=DEFAULT Gres=gpu:2,nic:2$" gpu2/slurm.conf &&
    grep "^Name=gpu File=$dev/nvidia1 Cores=0-7 Links=1,-1 Flags=nvidia_gpu_env$" gpu2/gres.conf &&
    test "$(grep -c "^Name=gpu" gpu2/gres.conf)" -eq 2 &&
    gen byfile CM_CLUSTER_GPUS=8 CM_CLUSTER_NODE_XML="$NODES/frontier.xml" &&
    grep "^Name=gpu File=$dev/dri/renderD128 Cores=48-55 Links=-1,4,2,0,0,0,1,0 Flags=amd_gpu_env$" byfile/gres.conf &&
    if test_have_prereq ONE_SOCKET_CORES; then
        grep "^Name=nic File=$dev/cxi3$" byfile/gres.conf &&
        grep "^# NIC cxi3: no Cores=32-47 (spans 2 of the sockets; Slurm 25.11 and later take one socket or all)$" byfile/gres.conf
    else
        grep "^Name=nic File=$dev/cxi3 Cores=32-47$" byfile/gres.conf &&
        ! grep "^# NIC" byfile/gres.conf
    fi &&
    grep "^NodeName=DEFAULT Sockets=8 CoresPerSocket=8 ThreadsPerCore=1" byfile/slurm.conf
'

test_expect_success 'bad GPU settings are refused, naming the variable' '
    test_must_fail gen bad1 CM_CLUSTER_GPUS=5 2>err1 &&
    grep "CM_CLUSTER_GPUS=5: node type .*/gpu4.xml has 4 GPUs" err1 &&
    test_must_fail gen bad2 CM_CLUSTER_GPUS=x 2>err2 &&
    grep "CM_CLUSTER_GPUS must be 0..99 (GPUs per node), got .x." err2 &&
    test_must_fail gen bad3 CM_CLUSTER_GPUS=4 CM_CLUSTER_NODE_XML=nosuch 2>err3 &&
    grep "CM_CLUSTER_NODE_XML=nosuch: no readable node description .*/test/data/nodes/nosuch.xml (expected an hwloc 2 XML file)" err3
'

test_expect_success 'gpu4 cluster comes up: 4 GPUs and 2 NICs per node, 16 cores, stand-in devices' '
    CM_CLUSTER_GPUS=4 "$CM_CLUSTER_BIN/up.sh" &&
    run scontrol show node n1 >node &&
    grep "Gres=gpu:4(S:0-1),nic:2(S:0-1)" node &&
    grep "CPUTot=16 " node &&
    for f in nvidia0 nvidia1 nvidia2 nvidia3 mlx5_0 mlx5_1; do
        test -c "$CM_CLUSTER_STATE/dev/$f" &&
        test "$(stat -c %t "$CM_CLUSTER_STATE/dev/$f")" = 2a || return 1
    done &&
    test_must_fail sh -c ": <\"$CM_CLUSTER_STATE/dev/nvidia0\"" 2>/dev/null
'

test_expect_success 'up.sh keeps the running GPU cluster when nothing changed' '
    CM_CLUSTER_GPUS=4 "$CM_CLUSTER_BIN/up.sh" >again &&
    grep "already up" again
'

test_expect_success '--gpus-per-task=1 -N1 -n4: task k gets GPU k, CUDA_VISIBLE_DEVICES and SLURM_STEP_GPUS say k' '
    layout g1 -N1 -n4 --gpus-per-task=1 &&
    cat >expect <<-\EOF &&
	0 n1 0 -
	1 n1 1 -
	2 n1 2 -
	3 n1 3 -
	EOF
    awk "{ print \$1, \$2, \$3, \$4 }" g1 >actual && test_cmp expect actual &&
    gpu_var g1 SLURM_STEP_GPUS >actual &&
    printf "0 0\n1 1\n2 2\n3 3\n" >expect && test_cmp expect actual &&
    { gpu_var g1 SLURM_GPUS_ON_NODE | grep -vx "[0-3] 4" >other || :; } &&
    test_must_be_empty other &&
    ! grep -e ROCR_VISIBLE_DEVICES -e GPU_DEVICE_ORDINAL -e ZE_AFFINITY_MASK g1
'

test_expect_success FOLDED_CPUS 'unbound tasks run on the cores the job holds, folded onto the machine CPUs' '
    cpus_folded g1
'

test_expect_success '--gpus-per-task=1 -N2 -n8: tasks 0-3 on n1, 4-7 on n2, GPU = task mod 4' '
    layout g2 -N2 -n8 --gpus-per-task=1 &&
    awk "{ print \$1, \$2, \$3 }" g2 >actual &&
    printf "%s\n" "0 n1 0" "1 n1 1" "2 n1 2" "3 n1 3" "4 n2 0" "5 n2 1" "6 n2 2" "7 n2 3" >expect &&
    test_cmp expect actual
'

test_expect_success FOLDED_CPUS '-N2 -n8: CPU lists folded from each node'"'"'s cores' '
    cpus_folded g2
'

test_expect_success FOLDED_CPUS '--gpu-bind=closest -N1 -n4: each task gets the GPUs whose folded Cores= meet its CPUs' '
    layout c1 -N1 -n4 --gpus-per-task=1 --gpu-bind=closest &&
    closest_as_predicted c1 0-3 &&
    gpu_var c1 SLURM_STEP_GPUS >steps && gpu_var c1 CUDA_VISIBLE_DEVICES >cuda &&
    test_cmp steps cuda
'

test_expect_success FOLDED_CPUS '--gpu-bind=closest -N2 -n8: the same on both nodes' '
    layout c2 -N2 -n8 --gpus-per-task=1 --gpu-bind=closest &&
    closest_as_predicted c2 0-3 &&
    test "$(awk "\$2 == \"n2\"" c2 | wc -l)" -eq 4
'

test_expect_success '--ntasks-per-gpu=2 -N1 -n8: tasks 2g and 2g+1 share GPU g' '
    layout t1 -N1 -n8 --ntasks-per-gpu=2 &&
    awk "{ print \$1, \$3 }" t1 >actual &&
    printf "%s\n" "0 0" "1 0" "2 1" "3 1" "4 2" "5 2" "6 3" "7 3" >expect &&
    test_cmp expect actual
'

test_expect_success FOLDED_CPUS '--ntasks-per-gpu=2 --gpu-bind=closest: closest as predicted' '
    layout t2 -N1 -n8 --ntasks-per-gpu=2 --gpu-bind=closest &&
    closest_as_predicted t2 0-3
'

test_expect_success 'a CPU-only job on the GPU nodes: no GPU and no NIC variables' '
    layout cpu -N1 -n4 &&
    awk "{ print \$1, \$2, \$3, \$4, NF }" cpu >actual &&
    printf "%s\n" "0 n1 - - 5" "1 n1 - - 5" "2 n1 - - 5" "3 n1 - - 5" >expect &&
    test_cmp expect actual
'

test_expect_success FOLDED_CPUS 'a CPU-only job: CPU lists folded' '
    cpus_folded cpu
'

test_expect_success '--cpu-bind=cores -N1 -n2 --gpus-per-task=1: one CPU each, GPU k' '
    layout b1 -N1 -n2 --gpus-per-task=1 --cpu-bind=cores &&
    awk "{ print \$1, \$3 }" b1 >actual &&
    printf "%s\n" "0 0" "1 1" >expect && test_cmp expect actual &&
    awk "\$5 !~ /^[0-9]+\$/" b1 >multi && test_must_be_empty multi &&
    test "$(awk "{ print \$5 }" b1 | sort -u | wc -l)" -eq 2
'

test_expect_success FOLDED_CPUS '--cpu-bind=cores --gpu-bind=closest -n2: closest from the bound CPU' '
    layout b2 -N1 -n2 --gpus-per-task=1 --cpu-bind=cores --gpu-bind=closest &&
    closest_as_predicted b2 0-1
'

test_expect_success FEW_CPUS '--cpu-bind=cores with more tasks than machine CPUs: Slurm cannot lay them out' '
    cluster_idle &&
    test_must_fail run srun -N1 -n4 --gpus-per-task=1 --cpu-bind=cores true 2>bind.err &&
    grep "Unable to layout tasks on given cpus" bind.err
'

test_expect_success '--gpus=4 --gpu-bind=map_gpu:3,2,1,0: the map' '
    layout m1 -N1 -n4 --gpus=4 --gpu-bind=map_gpu:3,2,1,0 &&
    awk "{ print \$1, \$3 }" m1 >actual &&
    printf "%s\n" "0 3" "1 2" "2 1" "3 0" >expect && test_cmp expect actual
'

test_expect_success SLURM_2205 '--gres=nic:2 (22.05): SLURM_STEP_NICS and openib_if_include as mlx4_<file number>' '
    layout n1 -N1 -n4 --gpus-per-task=1 --gres=nic:2 &&
    gpu_var n1 SLURM_STEP_NICS | awk "{ print \$2 }" | sort -u >actual &&
    echo mlx4_0,mlx4_1 >expect && test_cmp expect actual &&
    gpu_var n1 OMPI_MCA_btl_openib_if_include | awk "{ print \$2 }" | sort -u >actual &&
    test_cmp expect actual &&
    awk "{ print \$4 }" n1 | sort -u >actual && echo - >expect && test_cmp expect actual
'

test_expect_success SLURM_2411 '--gres=nic:2 (24.11): no NIC variable without --tres-bind' '
    layout n1 -N1 -n4 --gpus-per-task=1 --gres=nic:2 &&
    ! grep -e SLURM_STEP_NICS -e OMPI_MCA_btl_openib_if_include -e UCX_NET_DEVICES n1
'

test_expect_success TRES_BIND,FOLDED_CPUS '--tres-bind=gres/gpu:closest+gres/nic:closest: GPUs as closest, every task both NICs' '
    layout tb -N1 -n4 --gpus-per-task=1 --gres=nic:2 --tres-bind=gres/gpu:closest+gres/nic:closest &&
    closest_as_predicted tb 0-3 &&
    gpu_var tb SLURM_STEP_NICS | awk "{ print \$2 }" | sort -u >actual &&
    echo mlx4_0,mlx4_1 >expect && test_cmp expect actual &&
    ! grep UCX_NET_DEVICES tb
'

test_expect_success 'frontier: 8 GCDs, one Slurm socket per L3, ROCR_VISIBLE_DEVICES (amd_gpu_env), no CUDA variable' '
    CM_CLUSTER_GPUS=8 CM_CLUSTER_NODE_XML=frontier "$CM_CLUSTER_BIN/up.sh" &&
    run scontrol show node n1 >node &&
    if test_have_prereq ONE_SOCKET_CORES; then
        grep "Gres=gpu:8(S:0-7),nic:4\$" node
    else
        grep "Gres=gpu:8(S:0-7),nic:4(S:0-7)" node
    fi &&
    grep "CPUTot=64 " node &&
    test -c "$CM_CLUSTER_STATE/dev/dri/renderD135" &&
    layout f1 -N1 -n8 --gpus-per-task=1 &&
    awk "{ print \$1, \$3 }" f1 >actual &&
    printf "%s\n" "0 0" "1 1" "2 2" "3 3" "4 4" "5 5" "6 6" "7 7" >expect &&
    test_cmp expect actual &&
    gpu_var f1 ROCR_VISIBLE_DEVICES >rocr && test_cmp expect rocr &&
    ! grep -e CUDA_VISIBLE_DEVICES -e GPU_DEVICE_ORDINAL f1
'

test_expect_success FOLDED_CPUS 'frontier --gpu-bind=closest: closest as predicted' '
    layout f2 -N1 -n8 --gpus-per-task=1 --gpu-bind=closest &&
    closest_as_predicted f2 0-7
'

test_expect_success 'dgx: 8 GPUs, 4 NICs, 64 cores in 4 Slurm sockets (NUMA nodes); -N2 -n16 --gpus-per-task=1' '
    CM_CLUSTER_GPUS=8 CM_CLUSTER_NODE_XML=dgx "$CM_CLUSTER_BIN/up.sh" &&
    run scontrol show node n1 >node &&
    grep "Gres=gpu:8(S:0-3),nic:4(S:0-3)" node && grep "CPUTot=64 " node &&
    layout d1 -N2 -n16 --gpus-per-task=1 &&
    awk "{ print \$1, \$2, \$3 }" d1 >actual &&
    awk "BEGIN { for (k = 0; k < 16; k++) print k, \"n\" (1 + int(k / 8)), k % 8 }" >expect &&
    test_cmp expect actual
'

test_expect_success 'gh200: 4 GPUs, 4 NICs, 288 cores; -N2 -n8 --gpus-per-task=1' '
    CM_CLUSTER_GPUS=4 CM_CLUSTER_NODE_XML=gh200 "$CM_CLUSTER_BIN/up.sh" &&
    run scontrol show node n1 >node &&
    grep "Gres=gpu:4(S:0-3),nic:4(S:0-3)" node && grep "CPUTot=288 " node &&
    layout h1 -N2 -n8 --gpus-per-task=1 &&
    awk "{ print \$1, \$2, \$3 }" h1 >actual &&
    awk "BEGIN { for (k = 0; k < 8; k++) print k, \"n\" (1 + int(k / 4)), k % 4 }" >expect &&
    test_cmp expect actual
'

test_expect_success FOLDED_CPUS 'gh200: CPU lists folded' '
    cpus_folded h1
'

test_expect_success TOPOLOGY_BLOCK 'topology/block with gpu4 nodes comes up; -N2 -n8 --gpus-per-task=1 as on the tree' '
    CM_CLUSTER_TOPOLOGY=block CM_CLUSTER_GPUS=4 "$CM_CLUSTER_BIN/up.sh" &&
    grep "^TopologyPlugin=topology/block$" "$CM_CLUSTER_STATE/etc/slurm.conf" &&
    run scontrol show node n1 >node && grep "Gres=gpu:4(S:0-1),nic:2(S:0-1)" node &&
    layout k1 -N2 -n8 --gpus-per-task=1 &&
    awk "{ print \$1, \$3 }" k1 >actual &&
    printf "%s\n" "0 0" "1 1" "2 2" "3 3" "4 0" "5 1" "6 2" "7 3" >expect &&
    test_cmp expect actual &&
    test "$(awk "{ print \$2 }" k1 | sort -u | wc -l)" -eq 2
'

test_expect_success 'back to CPU nodes: no GRES, no gres.conf, a job runs' '
    "$CM_CLUSTER_BIN/up.sh" &&
    ! test -e "$CM_CLUSTER_STATE/etc/gres.conf" &&
    run scontrol show node n1 >node &&
    grep "Gres=(null)" node && grep "CPUTot=8 " node &&
    layout back -N1 -n2 &&
    test "$(wc -l <back)" -eq 2
'

cluster_finish
test_done
