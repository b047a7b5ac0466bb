#!/bin/sh
#
# Steps with GPUs placed by the plugin on the virtual cluster's GPU nodes
# (CM_CLUSTER_GPUS=4, node type gpu4: GPUs 0-1 and 2-3 NVLink pairs, GPUs
# 0-1 near NIC mlx5_0 and cores 0-7, GPUs 2-3 near mlx5_1 and cores 8-15),
# with plugstack's hwloc_xml= naming that node type.  The profile `pairs`
# (rank i talks to rank i + 4 only) must put every pair on one node and on
# one NVLink pair; every rank's GPU, NIC and cores are checked against the
# node type.  The nodes claim cores this machine lacks: the tasks then say
# their binding is not applied (the description is not this node's), and
# keep Slurm's, which t0525 measures.  A binding the user gives, a step
# that does not fill its nodes' GPUs and a CPU step are left as said.

test_description='SPANK plugin: steps with GPUs placed on GPUs, NICs and cores'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0526}
unset CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_NODE_XML CM_CLUSTER_TOPOLOGY
CM_CLUSTER_GPUS=4
export CM_CLUSTER_GPUS
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

if [ -e "$(. "$CLUSTER/lib.sh" && echo "$CM_SLURM_PLUGINDIR")/topology_block.so" ]; then
    case $SLURM_RELEASE in
        2[6-9].* | [3-9]*) test_set_prereq BLOCK_REFUSED ;;
        *) test_set_prereq BLOCK_PLACED ;;
    esac
fi

# job OUT SRUN-ARGS...: one srun of `true` with the pairs profile, verbose,
# in a job of 2 whole nodes of 4 tasks.
job() {
    _out=$1; shift
    printf '#!/bin/sh\necho "job=$SLURM_JOB_ID"\nsrun %s --mapping=cluster,name=pairs,verbose true\n' \
        "$*" >job.sh &&
    sbw -N2 --ntasks-per-node=4 --gpus-per-node=4 --exclusive -o "out/$_out.out" \
        -e "out/$_out.err" job.sh
}

# plan_gpus ERR: "rank node gpu" of srun's plan lines.
plan_gpus() {
    sed -n 's/^clustermap: rank \([0-9]*\) -> \([^ ]*\) gpu \([0-9]*\)$/\1 \2 \3/p' "$1" |
        sort -n
}

# task_gpus ERR: "rank gpu nic cpus" of the tasks' lines.
task_gpus() {
    sed -n 's/^clustermap: rank \([0-9]*\) gpu \([0-9]*\) nic \([^ ]*\) cpus \([^ ]*\) .*/\1 \2 \3 \4/p' \
        "$1" | sort -n
}

# pairs_on_nvlink PLAN N: in PLAN ("rank node gpu" lines), every rank i
# below N shares its node and its NVLink pair (GPUs 2k, 2k + 1) with rank
# i + N.
pairs_on_nvlink() {
    awk -v n="$2" "{ node[\$1] = \$2; gpu[\$1] = \$3 }
         END { for (i = 0; i < n; i++)
                   if (node[i] != node[i + n] || int(gpu[i] / 2) != int(gpu[i + n] / 2))
                       exit 1 }" "$1"
}

test_expect_success 'GPU cluster with the plugin comes up, the pairs profile is stored' '
    plugin_cluster_up "hwloc_xml=$STATE/etc/node.xml" &&
    test -r "$STATE/etc/node.xml" &&
    import_pairs
'

test_expect_success '--gpus-per-task=1: every pair on one node and one NVLink pair' '
    job gpt --gpus-per-task=1 &&
    grep "^clustermap: placed 8 tasks of job .pairs. on 2 of 2 nodes" out/gpt.err &&
    plan_gpus out/gpt.err >plan &&
    test "$(wc -l <plan)" -eq 8 &&
    pairs_on_nvlink plan 4 &&
    awk "{ print \$2, \$3 }" plan | sort | uniq -d >twice &&
    test ! -s twice || diag out/gpt.err
'

test_expect_success 'each rank: the plan'"'"'s GPU, its NIC and its cores, as gpu4 has them' '
    task_gpus out/gpt.err >tasks &&
    test "$(wc -l <tasks)" -eq 8 &&
    awk "{ print \$1, \$3 }" plan >plan.gpu &&
    awk "{ print \$1, \$2 }" tasks >tasks.gpu &&
    test_cmp plan.gpu tasks.gpu &&
    awk "{ want_nic = \$2 < 2 ? \"mlx5_0\" : \"mlx5_1\";
           want_cpus = \$2 < 2 ? \"0-7\" : \"8-15\";
           if (\$3 != want_nic || \$4 != want_cpus) exit 1 }" tasks || diag out/gpt.err
'

test_expect_success 'clustermap explain lists every rank'"'"'s node, GPU, NIC and cores' '
    j=$(sed -n "s/^job=//p" out/gpt.out) && test -n "$j" &&
    "$CM" explain --store "$STORE" "$j" >explain.out &&
    sed -n "s/^rank=\([0-9]*\) node=\([^ ]*\) gpu=\([0-9]*\) nic=\([^ ]*\) cpus=\([^ ]*\)$/\1 \2 \3 \4 \5/p" \
        explain.out >explained &&
    awk "{ print \$1, \$2, \$3 }" explained >explained.plan &&
    test_cmp plan explained.plan &&
    awk "{ print \$1, \$3, \$4, \$5 }" explained >explained.tasks &&
    test_cmp tasks explained.tasks || diag explain.out
'

# The nodes claim 16 cores on a machine of fewer: the tasks say so and keep
# Slurm's binding (a machine of 16 or more CPUs binds them).
test_expect_success 'a node description this machine does not match keeps Slurm'"'"'s binding' '
    if [ "$(getconf _NPROCESSORS_ONLN)" -lt 16 ]; then
        test "$(grep -c "not bound (hwloc_xml= describes CPUs this node does not allow)$" \
            out/gpt.err)" -eq 8
    else
        test "$(grep -c "^clustermap: rank [0-9]* gpu .* bound$" out/gpt.err)" -eq 8
    fi || diag out/gpt.err
'

test_expect_success '--ntasks-per-gpu=2: two tasks share a GPU of each NVLink pair' '
    printf "#!/bin/sh\nsrun --ntasks-per-gpu=2 --mapping=cluster,name=pairs,verbose true\n" \
        >job.sh &&
    sbw -N1 -n8 --gpus-per-node=4 --exclusive -o out/tpg.out -e out/tpg.err job.sh &&
    plan_gpus out/tpg.err >plan2 &&
    test "$(wc -l <plan2)" -eq 8 &&
    awk "{ print \$3 }" plan2 | sort | uniq -c | awk "{ print \$1 }" | sort -u >per_gpu &&
    echo 2 >expect &&
    test_cmp expect per_gpu &&
    awk "{ gpu[\$1] = \$3 } END { for (i = 0; i < 4; i++)
         if (int(gpu[i] / 2) != int(gpu[i + 4] / 2)) exit 1 }" plan2 || diag out/tpg.err
'

test_expect_success 'an explicit --gpu-bind wins, with one line, and no GPU line' '
    job gb --gpus-per-task=1 --gpu-bind=closest &&
    grep -x "clustermap: --gpu-bind=closest given: your GPU and CPU binding are kept; ranks are placed on nodes only" \
        out/gb.err &&
    test -z "$(task_gpus out/gb.err)" &&
    test -z "$(plan_gpus out/gb.err)" || diag out/gb.err
'

test_expect_success 'a step that does not fill its nodes'"'"' GPUs is placed on nodes only' '
    printf "#!/bin/sh\nsrun -n6 --gpus-per-task=1 --mapping=block,verbose true\n" >job.sh &&
    sbw -N2 --ntasks-per-node=4 --gpus-per-node=4 --exclusive -o out/part.out \
        -e out/part.err job.sh &&
    grep "^clustermap: the step asks for GPUs: Slurm.s GPU and CPU binding are kept; ranks are placed on nodes only (node n[0-9]* holds [0-9] of the step.s tasks, not the 4 GPU slots of a node of hwloc_xml=)$" \
        out/part.err &&
    test -z "$(task_gpus out/part.err)" || diag out/part.err
'

test_expect_success 'a CPU step on the GPU nodes is bound to cores as before' '
    printf "#!/bin/sh\nsrun -n8 --mapping=cluster,name=pairs,verbose true\n" >job.sh &&
    sbw -N2 --ntasks-per-node=4 --exclusive -o out/cpu.out -e out/cpu.err job.sh &&
    test "$(grep -c "^clustermap: rank [0-9]* -> n[0-9]* core [0-9]*$" out/cpu.err)" -eq 8 &&
    test -z "$(plan_gpus out/cpu.err)" &&
    ! grep "asks for GPUs" out/cpu.err || diag out/cpu.err
'

# Slurm's view comes first: nodes that gres.conf gives 2 GPUs are not the
# 4-GPU nodes hwloc_xml= describes (the harness declares the first 2 GPUs
# of gpu4 and keeps the whole description in node.xml).
test_expect_success 'gres.conf giving the nodes other GPUs than hwloc_xml=: nodes only, with the reason' '
    CM_CLUSTER_GPUS=2 plugin_cluster_up "hwloc_xml=$STATE/etc/node.xml" &&
    test "$(grep -c "^NodeName=.*Name=gpu\|^Name=gpu" "$STATE/etc/gres.conf")" -ge 1 &&
    printf "#!/bin/sh\nsrun --gpus-per-task=1 --mapping=block,verbose true\n" >job.sh &&
    sbw -N2 --ntasks-per-node=2 --gpus-per-node=2 --exclusive -o out/gres.out \
        -e out/gres.err job.sh &&
    grep "^clustermap: the step asks for GPUs: Slurm.s GPU and CPU binding are kept; ranks are placed on nodes only ($STATE/etc/gres.conf gives node n[0-9]* 2 GPUs, hwloc_xml= 4)$" \
        out/gres.err &&
    test -z "$(task_gpus out/gres.err)" || diag out/gres.err "$STATE/etc/gres.conf"
'

# Slurm's view comes first for the GPUs' cores too: the harness writes
# gres.conf from a copy of gpu4 whose GPUs' bus ids are swapped between
# the packages (GPUs 0-1 Cores=8-15, 2-3 Cores=0-7), while hwloc_xml= is
# gpu4 itself (GPUs 0-1 on cores 0-7).  The plan, each task's cores and
# NIC and `clustermap explain` follow gres.conf, and each GPU whose cores
# were corrected has its line, on the job's stderr and, once for the step,
# in the admin's slurmd log.
test_expect_success 'gres.conf Cores= unlike hwloc_xml=: Slurm'"'"'s cores and NICs, with a line per GPU' '
    sed -e "s/pci_busid=\"0000:07:/pci_busid=\"0000:TMP7:/; s/pci_busid=\"0000:0b:00.0\"/pci_busid=\"0000:TMPb:00.0\"/" \
        -e "s/pci_busid=\"0000:87:/pci_busid=\"0000:07:/; s/pci_busid=\"0000:8b:/pci_busid=\"0000:0b:/" \
        -e "s/pci_busid=\"0000:TMP7:/pci_busid=\"0000:87:/; s/pci_busid=\"0000:TMPb:/pci_busid=\"0000:8b:/" \
        "$CM_ROOT/test/data/nodes/gpu4.xml" >gpu4-swapped.xml &&
    CM_CLUSTER_NODE_XML="$PWD/gpu4-swapped.xml" \
        plugin_cluster_up "hwloc_xml=$CM_ROOT/test/data/nodes/gpu4.xml" &&
    grep "^Name=gpu File=[^ ]*/nvidia0 Cores=8-15 " "$STATE/etc/gres.conf" &&
    grep "^Name=gpu File=[^ ]*/nvidia3 Cores=0-7 " "$STATE/etc/gres.conf" &&
    import_pairs &&
    job swap --gpus-per-task=1 &&
    grep "^clustermap: placed 8 tasks of job .pairs. on 2 of 2 nodes" out/swap.err &&
    for k in 0 1 2 3; do
        if [ $k -lt 2 ]; then mine=8-15 hw=0-7; else mine=0-7 hw=8-15; fi
        echo "clustermap: NODE (and 1 other node alike): gres.conf Cores= of GPU $k ($mine) differs from hwloc'"'"'s ($hw): Slurm'"'"'s used"
    done >expect.notes &&
    sed -n "s/^clustermap: n[0-9]* \((and 1 other node alike): gres.conf \)/clustermap: NODE \1/p" \
        out/swap.err >notes &&
    test_cmp expect.notes notes &&
    plan_gpus out/swap.err >splan &&
    test "$(wc -l <splan)" -eq 8 &&
    pairs_on_nvlink splan 4 &&
    task_gpus out/swap.err >stasks &&
    test "$(wc -l <stasks)" -eq 8 &&
    awk "{ want_nic = \$2 < 2 ? \"mlx5_1\" : \"mlx5_0\";
           want_cpus = \$2 < 2 ? \"8-15\" : \"0-7\";
           if (\$3 != want_nic || \$4 != want_cpus) exit 1 }" stasks &&
    j=$(sed -n "s/^job=//p" out/swap.out) && test -n "$j" &&
    grep -h "\] clustermap: job $j\.0 uid [0-9]*: n[0-9]* (and 1 other node alike): gres.conf " \
        "$STATE"/log/slurmd-n*.log |
        sed "s/.*\] clustermap: job $j\.0 uid [0-9]*: n[0-9]* /clustermap: NODE /" >admin.notes &&
    test_cmp expect.notes admin.notes &&
    "$CM" explain --store "$STORE" "$j" >sexplain.out &&
    sed -n "s/^rank=\([0-9]*\) node=[^ ]* gpu=\([0-9]*\) nic=\([^ ]*\) cpus=\([^ ]*\)$/\1 \2 \3 \4/p" \
        sexplain.out >sexplained &&
    test_cmp stasks sexplained || diag out/swap.err "$STATE/etc/gres.conf"
'

# Nodes whose description this machine matches (test/data/gpu/gpu2.xml:
# two packages of one core, each with a GPU and a NIC, the GPUs an NVLink
# pair), so that the tasks are bound for real: each task's visible GPU,
# NIC and CPUs must be the plan's.  The profile tpairs has rank i talk to
# rank i + 2 only.
tiny_job() {
    cat >job.sh <<\END
#!/bin/sh
srun --gpus-per-task=1 --mapping=cluster,name=tpairs,verbose sh -c 'echo "task $SLURM_PROCID gpu=$CUDA_VISIBLE_DEVICES ucx=$UCX_NET_DEVICES fi=$FI_VERBS_DEVICE_NAME cpus=$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
END
    sbw -N2 --ntasks-per-node=2 --gpus-per-node=2 --exclusive -o out/tiny.out \
        -e out/tiny.err job.sh
}
import_tpairs() {
    for i in 0 1; do
        echo "$i $((i + 2)) 1000000 100" && echo "$((i + 2)) $i 1000000 100" || return 1
    done >tpairs.txt &&
    "$CM" profile --store "$STORE" import tpairs.txt --job-name tpairs --format triplets \
        >import.out
}
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then test_set_prereq TWO_CPUS; fi

test_expect_success TWO_CPUS 'nodes this machine matches: each task gets the plan'"'"'s GPU, NIC and core' '
    CM_CLUSTER_GPUS=2 CM_CLUSTER_NODE_XML="$CM_ROOT/test/data/gpu/gpu2.xml" \
        plugin_cluster_up "hwloc_xml=$STATE/etc/node.xml" &&
    import_tpairs &&
    tiny_job &&
    plan_gpus out/tiny.err >tplan &&
    test "$(wc -l <tplan)" -eq 4 &&
    awk "{ node[\$1] = \$2 } END { if (node[0] != node[2] || node[1] != node[3]) exit 1 }" \
        tplan &&
    awk "{ printf \"task %s gpu=%s ucx=mlx5_%s:1 fi=mlx5_%s cpus=%s\\n\", \$1, \$3, \$3, \$3, \$3 }" tplan \
        >expect.tasks &&
    grep "^task " out/tiny.out | sort -n -k2 >actual.tasks &&
    test_cmp expect.tasks actual.tasks &&
    test "$(grep -c "^clustermap: rank [0-9] gpu [01] nic mlx5_[01] cpus [01] bound$" out/tiny.err)" \
        -eq 4 || diag out/tiny.err out/tiny.out
'

# NVLink racks as topology/block blocks (two nodes each: n1-n2, n3-n4).
# The profile bpairs has rank i talk to rank i + 8 only: Slurm's layout
# puts every pair in two blocks, the plan must keep each in one block, on
# one node and one NVLink pair.  Slurm 26.05 refuses the arbitrary layout
# under topology/block: there the step keeps Slurm's, with its line.
import_bpairs() {
    for i in 0 1 2 3 4 5 6 7; do
        echo "$i $((i + 8)) 1000000 100" && echo "$((i + 8)) $i 1000000 100" || return 1
    done >bpairs.txt &&
    "$CM" profile --store "$STORE" import bpairs.txt --job-name bpairs --format triplets \
        >import.out
}
block_job() {
    printf "#!/bin/sh\nsrun --gpus-per-task=1 --mapping=cluster,name=bpairs,verbose true\n" \
        >job.sh &&
    sbw -N4 --ntasks-per-node=4 --gpus-per-node=4 --exclusive -o out/blk.out \
        -e out/blk.err job.sh
}

test_expect_success BLOCK_PLACED 'topology/block: each pair in one block, one node, one NVLink pair' '
    CM_CLUSTER_TOPOLOGY=block plugin_cluster_up "hwloc_xml=$STATE/etc/node.xml" &&
    grep -q "^BlockName=" "$STATE/etc/topology.conf" &&
    import_bpairs &&
    block_job &&
    grep "^clustermap: placed 16 tasks of job .bpairs. on 4 of 4 nodes" out/blk.err &&
    plan_gpus out/blk.err >bplan &&
    test "$(wc -l <bplan)" -eq 16 &&
    pairs_on_nvlink bplan 8 || diag out/blk.err
'

test_expect_success BLOCK_REFUSED 'topology/block on Slurm 26.05: Slurm'"'"'s layout, with its line' '
    CM_CLUSTER_TOPOLOGY=block plugin_cluster_up "hwloc_xml=$STATE/etc/node.xml" &&
    import_bpairs &&
    block_job &&
    grep "topology/block: this Slurm refuses the arbitrary layout a placement needs with it" \
        out/blk.err &&
    test -z "$(plan_gpus out/blk.err)" || diag out/blk.err
'

cluster_finish
test_done
