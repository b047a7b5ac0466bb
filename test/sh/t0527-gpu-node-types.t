#!/bin/sh
#
# One placed GPU step on each shipped GPU node type (test/data/nodes/:
# dgx, frontier, gh200), on a virtual cluster of 2 nodes of that type,
# with plugstack's hwloc_xml= naming it.  The step is --gpus-per-task=1
# filling both nodes' GPUs, placed from the profile `halves` (rank i
# talks to rank i + G only, G the GPUs of a node: Slurm's block layout
# puts every pair on two nodes, a placement puts it on one, on two GPUs
# joined by the node's fastest link).  Per rank:
# the plan's GPU, the NIC and the CPU list the plugin gives it are those
# of that GPU in the type's XML (expected from test/cluster/nodeinfo, the
# harness's own reader, which t0525 holds against hwloc-calc: not from
# clustermap's); what the task got is the plan's when bound, else
# Slurm's, with the module's "not bound (why)" line.  The types claim
# 64-288 cores: on a smaller machine no task is bound, and the rows say
# so rather than skip.  Per-node task counts stay Slurm's, and a CPU step
# on the same nodes gets no GPU or NIC.
#
# Each type's per-rank binding table goes to TYPE.table in the trash
# directory, the three to gpu-types-tables.txt (and, under `prove -v` or
# the test's -v, to the test's stderr): rank, node, GPU, NIC, CPUs of the
# plan, what the task got, bound or why not.  No MPI: the tasks are
# lib/gpu-task, a shell script.
#
# Own cluster (CM_CLUSTER_NAME=t0527), 2 nodes, restarted once per type:
# 21-28 s in all on this 2-CPU machine (Slurm 22.05.8, 24.11.5, 26.05.5).

test_description='SPANK plugin: a placed GPU step on the dgx, frontier and gh200 node types'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0527}
unset CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_NODE_XML CM_CLUSTER_TOPOLOGY CM_CLUSTER_GPUS \
    CM_CLUSTER_EXTRA_NODES
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/gpu.sh"
# plugin.sh unsets it: two nodes are enough for a pair to be split or not
CM_CLUSTER_NODES=2
export CM_CLUSTER_NODES
NODES=$CM_ROOT/test/data/nodes
say "# Slurm $SLURM_RELEASE, $GPU_MACHINE_CPUS machine CPUs"

# expect_gpus TYPE: "GPU NIC CPUS" per GPU of the node type, in Slurm's
# GPU order (PCI bus order): the GPU's locality, and the NIC of the
# smallest locality holding it (the nearest); "ambiguous" when two NICs
# tie, which no shipped type has.
expect_gpus() {
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/$1.xml" | awk '
        function expand(list, set,   n, i, part, ab, c) {
            split("", set)
            n = split(list, part, ",")
            for (i = 1; i <= n; i++) {
                if (split(part[i], ab, "-") == 1) ab[2] = ab[1]
                for (c = ab[1] + 0; c <= ab[2] + 0; c++) set[c] = 1
            }
        }
        $1 == "gpu" { gcpus[$2] = $5; ng = $2 + 1 }
        $1 == "nic" { nname[$2] = $3; ncpus[$2] = $5; nn = $2 + 1 }
        END {
            for (g = 0; g < ng; g++) {
                expand(gcpus[g], gs)
                best = ""; bsize = 0; tie = 0
                for (k = 0; k < nn; k++) {
                    expand(ncpus[k], ns)
                    size = 0; for (c in ns) size++
                    ok = 1; for (c in gs) if (!(c in ns)) ok = 0
                    if (!ok) continue
                    if (best == "" || size < bsize) { best = nname[k]; bsize = size; tie = 0 }
                    else if (size == bsize) tie = 1
                }
                print g, (best == "" ? "-" : tie ? "ambiguous" : best), gcpus[g]
            }
        }'
}

# type_cores TYPE: the cores the node type describes.
type_cores() {
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/$1.xml" | awk '$1 == "node" { print $2 * $3 }'
}

# import_halves N: the profile `halves` of N ranks, rank i <-> i + N/2.
import_halves() {
    _h=$(($1 / 2)) _i=0
    while [ "$_i" -lt "$_h" ]; do
        echo "$_i $((_i + _h)) 1000000 100" && echo "$((_i + _h)) $_i 1000000 100" || return 1
        _i=$((_i + 1))
    done >halves.txt &&
    "$CM" profile --store "$STORE" import halves.txt --job-name halves --format triplets \
        >import.out
}

# type_up TYPE GPUS: the 2-node cluster of that type with the plugin, and
# the profile of its job.
type_up() {
    CM_CLUSTER_GPUS=$2 CM_CLUSTER_NODE_XML=$1 plugin_cluster_up "hwloc_xml=$STATE/etc/node.xml" &&
    cmp "$NODES/$1.xml" "$STATE/etc/node.xml" &&
    import_halves $(($2 * 2))
}

# gpu_job TYPE GPUS: the placed step, each task printing its lib/gpu-task
# line (out/TYPE.out), srun's and the tasks' clustermap lines in
# out/TYPE.err, the job's record (per-node cores) in out/TYPE.job.
gpu_job() {
    cat >job.sh <<-EOF &&
	#!/bin/sh
	echo "job=\$SLURM_JOB_ID"
	GPU_TASK_JOB="$PWD/out/$1.job" srun --gpus-per-task=1 --mapping=cluster,name=halves,verbose /bin/sh $GPU_TASK
	EOF
    cluster_idle &&
    sbw -N2 --ntasks-per-node="$2" --gpus-per-node="$2" --exclusive -o "$PWD/out/$1.out" \
        -e "$PWD/out/$1.err" job.sh || diag "out/$1.err" "out/$1.out"
}

# check_plan TYPE GPUS: srun placed all tasks, GPUS per node (Slurm's
# counts), each GPU of a node once, every pair of the profile on one
# node and on two GPUs joined by the node's fastest GPU link (frontier:
# the two GCDs of one MI250X); leaves TYPE.plan ("rank node gpu").
check_plan() {
    _n=$(($2 * 2))
    grep "^clustermap: placed $_n tasks of job .halves. on 2 of 2 nodes" "out/$1.err" &&
    sed -n 's/^clustermap: rank \([0-9]*\) -> \([^ ]*\) gpu \([0-9]*\)$/\1 \2 \3/p' \
        "out/$1.err" | sort -n >"$1.plan" &&
    test "$(wc -l <"$1.plan")" -eq "$_n" &&
    awk '{ print $2 }' "$1.plan" | sort | uniq -c | awk '{ print $1 }' >counts &&
    printf '%s\n' "$2" "$2" >expect && test_cmp expect counts &&
    awk '{ print $2, $3 }' "$1.plan" | sort | uniq -d >twice && test ! -s twice &&
    awk -v h="$2" '{ node[$1] = $2 }
        END { for (i = 0; i < h; i++) if (node[i] != node[i + h]) exit 1 }' "$1.plan" &&
    "$CM_CLUSTER_BIN/nodeinfo" "$NODES/$1.xml" >"$1.info" &&
    awk -v h="$2" 'NR == FNR { if ($1 == "link") { bw[$2 " " $3] = $4; if ($4 > top) top = $4 }
                              next }
        { gpu[$1] = $3 }
        END { for (i = 0; i < h; i++) if (bw[gpu[i] " " gpu[i + h]] != top) exit 1 }' \
        "$1.info" "$1.plan" ||
        diag "out/$1.err"
}

# check_explain TYPE: `clustermap explain JOBID` lists every rank with
# the plan's node and GPU, and the NIC and CPUs the type's XML gives that
# GPU; leaves TYPE.explained ("rank node gpu nic cpus").
check_explain() {
    _j=$(sed -n 's/^job=//p' "out/$1.out") && test -n "$_j" &&
    "$CM" explain --store "$STORE" "$_j" >"$1.explain" &&
    sed -n 's/^rank=\([0-9]*\) node=\([^ ]*\) gpu=\([0-9]*\) nic=\([^ ]*\) cpus=\([^ ]*\)$/\1 \2 \3 \4 \5/p' \
        "$1.explain" | sort -n >"$1.explained" &&
    awk '{ print $1, $2, $3 }' "$1.explained" >explained.plan &&
    test_cmp "$1.plan" explained.plan &&
    expect_gpus "$1" >"$1.xmlgpus" &&
    ! grep -q ambiguous "$1.xmlgpus" &&
    awk 'NR == FNR { want[$1] = $2 " " $3; next }
         { print $1, $2, $3, want[$3] }' "$1.xmlgpus" "$1.explained" >expect &&
    test_cmp expect "$1.explained" || diag "$1.explain" "$1.xmlgpus"
}

# check_tasks TYPE: each task's "clustermap: rank R gpu G nic N cpus C
# bound|not bound (why)" line names the plan's GPU, NIC and CPUs, and
# what the task got (its lib/gpu-task line) matches: the plan's GPU in
# the visible-devices variable, UCX_NET_DEVICES=NIC:1 (an InfiniBand
# NIC, mlx5_K in the shipped types; none for Slingshot's cxiK) and the
# CPUs when bound; else Slurm's GPU (SLURM_STEP_GPUS, each GPU of a node once), no
# UCX_NET_DEVICES and Slurm's CPUs (the job's cores on the node, folded:
# FOLDED_CPUS).  A node that describes more cores than this machine has
# is never bound, and says why.  Leaves TYPE.tasks ("rank gpu nic cpus
# outcome") and TYPE.got (the gpu-task lines by rank).
check_tasks() {
    sed -n 's/^clustermap: rank \([0-9]*\) gpu \([0-9]*\) nic \([^ ]*\) cpus \([^ ]*\) \(.*\)$/\1 \2 \3 \4 \5/p' \
        "out/$1.err" | sort -n >"$1.tasks" &&
    awk '{ print $1, $3, $4, $5 }' "$1.explained" >expect &&
    awk '{ print $1, $2, $3, $4 }' "$1.tasks" >actual &&
    test_cmp expect actual &&
    grep -E '^[0-9]+ n[0-9]+ ' "out/$1.out" | sort -n -k1,1 >"$1.got" &&
    test "$(wc -l <"$1.got")" -eq "$(wc -l <"$1.plan")" &&
    awk '{ print $1, $2 }' "$1.got" >actual &&
    awk '{ print $1, $2 }' "$1.plan" >expect &&
    test_cmp expect actual &&
    if [ "$(type_cores "$1")" -gt "$GPU_MACHINE_CPUS" ]; then
        _why="not bound (hwloc_xml= describes CPUs this node does not allow)"
    else
        _why=bound
    fi &&
    awk -v why="$_why" '{ $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); if ($0 != why) exit 1 }' \
        "$1.tasks" &&
    if [ "$_why" = bound ]; then
        awk '{ print $1, $2, ($3 ~ /^mlx5_/ ? $3 ":1" : "-"), $4 }' "$1.tasks" >expect &&
        awk '{ print $1, $3, $4, $5 }' "$1.got" >actual &&
        test_cmp expect actual
    else
        gpu_var "$1.got" SLURM_STEP_GPUS >expect &&
        awk '{ print $1, $3 }' "$1.got" >actual &&
        test_cmp expect actual &&
        awk '{ print $2, $3 }' "$1.got" | sort | uniq -d >twice && test ! -s twice &&
        test -z "$(awk '$4 != "-"' "$1.got")" &&
        if test_have_prereq FOLDED_CPUS; then
            # (_ct_ names: test bodies run in the shell of type_rows)
            while read -r _ct_r _ct_node _ct_gpu _ct_nic _ct_cpus _ct_rest; do
                _ct_ids=$(gpu_job_cpus "out/$1.job" "$_ct_node") && test -n "$_ct_ids" &&
                test "$_ct_cpus" = "$(gpu_fold "$_ct_ids")" || {
                    echo "# rank $_ct_r on $_ct_node: CPUs $_ct_cpus, Slurm's would be $_ct_ids folded" >&7
                    return 1
                }
            done <"$1.got"
        fi
    fi || diag "out/$1.err" "out/$1.out"
}

# table TYPE GPUS: the per-rank binding table, into TYPE.table; shown
# ("# "-prefixed, on the test's stderr) under `prove -v` or the test's -v.
table() {
    _j=$(sed -n 's/^job=//p' "out/$1.out")
    {
        echo "$1: 2 nodes x $2 GPUs, job $_j: srun --gpus-per-task=1 --mapping=cluster,name=halves (rank i <-> i + $2)"
        echo "Slurm $SLURM_RELEASE, $GPU_MACHINE_CPUS machine CPUs; plan (explain), then what the task had: visible GPU, UCX_NET_DEVICES, Cpus_allowed_list"
        awk 'BEGIN { f = "%-4s %-4s %-3s %-6s %-9s | %-3s %-8s %-5s | %s\n"
                     printf f, "rank", "node", "gpu", "nic", "cpus", "gpu", "nic", "cpus", "binding" }
             FILENAME == ARGV[1] { n++; rank[n] = $1; plan[$1] = $2 " " $3 " " $4 " " $5; next }
             FILENAME == ARGV[2] { o = $5; for (i = 6; i <= NF; i++) o = o " " $i
                                   how[$1] = o; next }
             { got[$1] = $3 " " $4 " " $5 }
             END { for (i = 1; i <= n; i++) {
                       r = rank[i]; split(plan[r], p, " "); split(got[r], g, " ")
                       printf f, r, p[1], p[2], p[3], p[4], g[1], g[2], g[3], how[r]
                   } }' "$1.explained" "$1.tasks" "$1.got"
    } >"$1.table" &&
    if [ "${TEST_VERBOSE:-}" = 1 ] || [ "${verbose:-}" = t ]; then
        sed 's/^/# /' "$1.table" >&7
    fi
}

# The rows of one type: cluster, placed step, plan, explain, tasks, table,
# a CPU step.
type_rows() {
    _tr_t=$1 _tr_g=$2
    test_expect_success "$_tr_t: 2 nodes of $_tr_g GPUs with the plugin come up, the profile is stored" "
        type_up $_tr_t $_tr_g
    "
    test_expect_success "$_tr_t: --gpus-per-task=1 filling the nodes' GPUs succeeds, placed from the profile" "
        gpu_job $_tr_t $_tr_g && check_plan $_tr_t $_tr_g
    "
    test_expect_success "$_tr_t: explain lists every rank's node, GPU, and that GPU's NIC and CPUs in the XML" "
        check_explain $_tr_t
    "
    test_expect_success "$_tr_t: each task got the plan's GPU, NIC and CPUs, or Slurm's with the reason" "
        check_tasks $_tr_t
    "
    test_expect_success "$_tr_t: the per-rank binding table" "
        table $_tr_t $_tr_g && test -s $_tr_t.table
    "
    test_expect_success "$_tr_t: a CPU step on the GPU nodes gets no GPU and no NIC, Slurm's counts" "
        cpu_job $_tr_t $_tr_g
    "
}

# cpu_job TYPE GPUS: a CPU-only job of the same shape (not --exclusive,
# as t0525's CPU job, which gets no GPU or NIC variable from Slurm),
# placed from the same profile: core plan lines only, Slurm's per-node
# counts, no GPU line, and no GPU or NIC variable in any task.
cpu_job() {
    printf '#!/bin/sh\nsrun --mapping=cluster,name=halves,verbose /bin/sh %s\n' "$GPU_TASK" \
        >job.sh &&
    cluster_idle &&
    sbw -N2 --ntasks-per-node="$2" -o "$PWD/out/$1-cpu.out" \
        -e "$PWD/out/$1-cpu.err" job.sh &&
    plan_of "out/$1-cpu.err" >cpu.plan &&
    test "$(wc -l <cpu.plan)" -eq $(($2 * 2)) &&
    awk '{ print $2 }' cpu.plan | sort | uniq -c | awk '{ print $1 }' >counts &&
    printf '%s\n' "$2" "$2" >expect && test_cmp expect counts &&
    ! grep -e "gpu" -e "asks for GPUs" "out/$1-cpu.err" &&
    grep -E '^[0-9]+ n[0-9]+ ' "out/$1-cpu.out" >cpu.got &&
    test "$(wc -l <cpu.got)" -eq $(($2 * 2)) &&
    test -z "$(awk '$3 != "-" || $4 != "-" || NF > 5' cpu.got)" ||
        diag "out/$1-cpu.err" "out/$1-cpu.out"
}

type_rows dgx 8
type_rows frontier 8
type_rows gh200 4

test_expect_success 'the three tables, one file' '
    cat dgx.table frontier.table gh200.table >gpu-types-tables.txt
'

cluster_finish
test_done
