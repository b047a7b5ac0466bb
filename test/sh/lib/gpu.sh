# gpu.sh -- sourced by the tests of GPU jobs on the virtual cluster, after
# lib/cluster.sh (which defines run).
# shellcheck shell=sh
#
# Defines
#   GPU_TASK                 the per-task script (lib/gpu-task): one line
#                            "RANK NODE GPU NIC CPUS [VAR=VALUE...]" a task
#   cm_gpu_layout ARG...     run `srun ARG... GPU_TASK` on the login host and
#                            print its tasks' lines sorted by rank; fails
#                            when srun does
#   gpu_cols FILE            the five fixed columns of a layout, without
#                            the VAR=VALUE tail
#   gpu_var FILE VAR         "RANK VALUE" of VAR per task ("-" when unset)
#   gpu_fold, gpu_closest, gpu_job_cpus, GPU_NODE_XML: see below

GPU_TASK=$SHARNESS_TEST_DIRECTORY/lib/gpu-task

cm_gpu_layout() {
    _gl_out=$(run srun "$@" /bin/sh "$GPU_TASK") || return 1
    printf '%s\n' "$_gl_out" | sort -n -k1,1
}

gpu_cols() { awk '{ print $1, $2, $3, $4, $5 }' "$1"; }

gpu_var() {
    awk -v var="$2" '{
        v = "-"
        for (i = 6; i <= NF; i++) if (index($i, var "=") == 1) v = substr($i, length(var) + 2)
        print $1, v
    }' "$1"
}

# What Slurm does with the cores of a virtual node that claims more cores
# than the machine has (measured on 22.05 and 24.11; slurmd's
# xcpuinfo_abs_to_mac): abstract core c becomes machine CPU c mod R, R the
# machine's CPUs, in the job's CPU mask and in the Cores= of gres.conf
# alike.  The folding below assumes what slurmd's block map then is, the
# identity: CPUs 0..R-1 online, one hardware thread per core (prerequisite
# FOLDED_CPUS; elsewhere the rows that predict CPU lists skip).
GPU_MACHINE_CPUS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 0)
if [ "$GPU_MACHINE_CPUS" -gt 0 ] &&
   lscpu -p=CPU,CORE 2>/dev/null | grep -v '^#' |
       awk -F, '$1 != NR - 1 || seen[$2]++ { bad = 1 } END { exit bad || NR == 0 }'; then
    test_set_prereq FOLDED_CPUS
fi

# gpu_fold LIST: the machine CPUs ("0-1") Slurm makes of abstract cores LIST.
gpu_fold() {
    awk -v list="$1" -v r="$GPU_MACHINE_CPUS" '
        BEGIN {
            n = split(list, part, ",")
            for (i = 1; i <= n; i++) {
                if (split(part[i], ab, "-") == 1) ab[2] = ab[1]
                for (c = ab[1] + 0; c <= ab[2] + 0; c++) cpu[c % r] = 1
            }
            out = ""
            for (c = 0; c < r; c++) {
                if (!(c in cpu)) continue
                lo = c
                while ((c + 1) in cpu) c++
                out = out (out == "" ? "" : ",") (lo == c ? lo : lo "-" c)
            }
            print out == "" ? "-" : out
        }'
}

# gpu_closest GRES-CONF GPUS CPUS: the GPUs among GPUS ("0-3") that Slurm's
# --gpu-bind=closest gives a task whose CPU affinity is CPUS: those whose
# Cores= (folded) meet CPUS (gres.c, _get_usable_gres_cpu_affinity).
gpu_closest() {
    awk -v gpus="$2" -v cpus="$3" -v r="$GPU_MACHINE_CPUS" '
        function expand(list, set, fold,   n, i, part, ab, c) {
            n = split(list, part, ",")
            for (i = 1; i <= n; i++) {
                if (split(part[i], ab, "-") == 1) ab[2] = ab[1]
                for (c = ab[1] + 0; c <= ab[2] + 0; c++) set[fold ? c % r : c] = 1
            }
        }
        BEGIN { expand(gpus, want, 0); expand(cpus, mine, 0) }
        /^Name=gpu / {
            g = k++
            if (!(g in want)) next
            split("", cores)
            for (i = 2; i <= NF; i++) if ($i ~ /^Cores=/) expand(substr($i, 7), cores, 1)
            for (c in cores) if (c in mine) { out = out (out == "" ? "" : ",") g; break }
        }
        END { print out == "" ? "-" : out }' "$1"
}

# gpu_job_cpus JOB-RECORD NODE: the abstract cores ("0-1,8-9") the job holds
# on NODE, from `scontrol -d show job` (GPU_TASK_JOB); nodes sharing a
# line as "n[1-2]" are expanded.
gpu_job_cpus() {
    awk -v node="$2" '
        match($0, /Nodes=[^ ]+ CPU_IDs=[^ ]+/) {
            split(substr($0, RSTART, RLENGTH), kv, /[= ]/)
            names = kv[2]; ids = kv[4]
            if (names == node) { print ids; exit }
            if (match(names, /^[a-z]+\[/)) {
                prefix = substr(names, 1, RLENGTH - 1)
                inner = substr(names, RLENGTH + 1); sub(/\]$/, "", inner)
                n = split(inner, part, ",")
                for (i = 1; i <= n; i++) {
                    if (split(part[i], ab, "-") == 1) ab[2] = ab[1]
                    for (c = ab[1] + 0; c <= ab[2] + 0; c++)
                        if (prefix c == node) { print ids; exit }
                }
            }
        }' "$1"
}

# GPU_NODE_XML: the node type's hwloc XML as every host of a GPU cluster
# sees it (up.sh copies it there), for the plugin's hwloc_xml= argument.
GPU_NODE_XML=$CM_CLUSTER_STATE/etc/node.xml
