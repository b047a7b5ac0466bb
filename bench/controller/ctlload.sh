#!/bin/sh
# bench/controller/ctlload.sh [-r R] [-n N] [-N NODES] [-m MODES] [-a ARGS] [-o DIR] [BUILD]
# bench/controller/ctlload.sh -t DIR
# -- `make bench-controller`: what placed sruns cost slurmctld (issue 14);
# -t prints the table of an earlier run's DIR again.  README.md here.
#
# Target: with clustermap, a placed srun adds no more than 2 RPCs and
# <= 5 ms of controller time over an unplaced one at 10,000 nodes, and 100
# concurrent placed sruns all start.
#
# How: brings up its own virtual cluster (test/cluster, CM_CLUSTER_NAME
# ctlload) whose slurm.conf describes NODES nodes (10,000): the 4 real
# nodes n1..n4 and NODES-4 that never register
# (CM_CLUSTER_EXTRA_NODES: in the controller's node table and topology,
# powered-down cloud nodes, in a partition of their own), with the
# clustermap plugin of BUILD in plugstack.conf as the tests configure it
# (guard=no) plus ARGS (-a, default "deadline=300": at 10,000 nodes and
# 100 sruns at once, reading the allocation alone outlasted the default
# 2 s, and a step past its deadline is left to Slurm; -a '' keeps the
# default), and a stored 4-task profile of the job name "ctlload"
# (`clustermap profile import`).
# Then, R times (-r, default 1) and for each mode of MODES (default "plain
# placed"), one batch job on the 4 real nodes (-N4 -n4 --exclusive) starts
# N sruns at once (-n, default 100): `srun --overlap --mpi=none -n4
# task.sh &`, each task printing its rank and host, then waits for them.
#   plain     no --mapping (the plugin is loaded and does nothing)
#   placed    --mapping=cluster,name=ctlload,verbose: placed from the profile
#   noplugin  plugstack.conf emptied for that job (not run by default)
#   arbitrary Slurm's arbitrary layout from a SLURM_HOSTFILE of our own,
#             what a placement asks Slurm for, without clustermap's work
#             (the plugin leaves a step with -m alone; not run by default)
# Around each job the controller's statistics are reset (`sdiag -r`, as
# root) and read (`sdiag`, once before the job and again, every second,
# until its counts stop changing after the job has completed; the
# difference is the job's): count and total_time (microseconds, the
# handler's wall time) of every RPC type of "Remote Procedure Call
# statistics by message type".  The job's end is taken from slurmctld's
# log, never by asking the controller (that would add RPCs of the types
# measured).  REQUEST_STATS_INFO (sdiag itself) is kept in the CSV but left
# out of every total.  Each srun is checked: started (4 task lines),
# succeeded (exit 0), placed ("clustermap: placed 4 tasks" line) and ran
# where its plan says.
#
# Output (DIR, default a new /var/tmp/cm-ctlload.XXXXXX, kept):
#   rpc.csv    mode,rep,rpc_type,count,total_time_us   (one job each)
#   runs.csv   mode,rep,job,sruns,started,succeeded,placed,plan_ok,
#              other_stderr,wall_ms,ctld_cpu_ms
#   table.txt  per srun and RPC type: count and controller time of each
#              mode, and what placement adds (placed minus plain, / N),
#              means over the R repetitions, then each repetition's totals
#   log/ (the daemons' logs), slurmctld.log, runs/<mode>.<rep>/ (each
#              srun's output, error, status)
# The table is also printed.  ctld_cpu_ms is slurmctld's CPU time during
# the job (all threads, background agents included).  Needs root (network
# namespaces); the cluster is taken down at the end, also on failure,
# unless CM_CLUSTER_KEEP=1.  A run of the defaults takes about 40 s to set
# up and 2.5-3 minutes per repetition (2-core machine).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${CTL_REPEAT:-1}
nsrun=${CTL_SRUNS:-100}
nodes=${CTL_NODES:-10000}
modes=${CTL_MODES:-plain placed}
out=${CTL_OUT:-}
pargs=${CTL_PLUGIN_ARGS-deadline=300}
table_only=
usage() {
    echo "usage: $0 [-r REPEATS] [-n SRUNS] [-N NODES] [-m 'plain placed noplugin arbitrary'] [-a PLUGIN-ARGS] [-o DIR] [BUILD]" >&2
    echo "       $0 -t DIR    (the table of an earlier run's results again)" >&2
    exit 2
}
while getopts r:n:N:m:a:o:t:h opt; do
    case $opt in
        r) reps=$OPTARG ;;
        n) nsrun=$OPTARG ;;
        N) nodes=$OPTARG ;;
        m) modes=$OPTARG ;;
        o) out=$OPTARG ;;
        a) pargs=$OPTARG ;;
        t) table_only=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
die() { echo "ctlload: $*" >&2; exit 1; }
for v in "$reps" "$nsrun" "$nodes"; do
    case $v in '' | *[!0-9]*) usage ;; esac
done
if [ "$reps" -lt 1 ] || [ "$nsrun" -lt 1 ]; then usage; fi
[ "$nodes" -ge 4 ] || die "-N: at least the 4 real nodes"
for m in $modes; do
    case $m in plain | placed | noplugin | arbitrary) ;; *) die "unknown mode '$m' (plain, placed, noplugin, arbitrary)" ;; esac
done
# table DIR: the table of DIR's runs.csv and rpc.csv (setup.txt: nodes,
# sruns a job, modes): per srun, means over the repetitions.
table() {
    awk -F, -v n="$(sed -n 's/^sruns=//p' "$1/setup.txt")" -v modes="$(sed -n 's/^modes=//p' "$1/setup.txt")" \
        -v nodes="$(sed -n 's/^nodes=//p' "$1/setup.txt")" '
FNR == 1 { next }
FILENAME ~ /runs.csv$/ {
    nrep[$1]++; st[$1] += $5; ok[$1] += $6; pl[$1] += $7; po[$1] += $8; ot[$1] += $9
    w[$1] = w[$1] sprintf("%s%.2f", w[$1] == "" ? "" : " ", $10 / 1000); cpu[$1] += $11; cpur[$1, $2] = $11
    next
}
$3 == "REQUEST_STATS_INFO" { next }
{
    c[$1, $3] += $4; t[$1, $3] += $5; seen[$3] = 1
    rc[$1, $2] += $4; rt[$1, $2] += $5; maxrep = ($2 > maxrep) ? $2 : maxrep
}
END {
    nm = split(modes, m, " ")
    printf "RPCs per srun received by slurmctld (%d nodes, %d sruns a job, mean of %d job(s) a mode; sdiag total_time)\n\n", nodes, n, nrep[m[1]]
    printf "%-34s", "RPC type"
    for (i = 1; i <= nm; i++) printf " %8s %11s", m[i], m[i] " us"
    if (nrep["plain"] && nrep["placed"]) printf " %8s %11s", "added", "added us"
    printf "\n"
    for (ty in seen) order[++k] = ty
    # most RPCs of the placed (else first) mode first
    key = nrep["placed"] ? "placed" : m[1]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
        if (c[key, order[j]] > c[key, order[i]] || (c[key, order[j]] == c[key, order[i]] && order[j] < order[i])) {
            x = order[i]; order[i] = order[j]; order[j] = x
        }
    for (i = 1; i <= k; i++) {
        ty = order[i]
        printf "%-34s", ty
        for (j = 1; j <= nm; j++) {
            mm = m[j]; r = nrep[mm] ? nrep[mm] : 1
            printf " %8.2f %11.1f", c[mm, ty] / r / n, t[mm, ty] / r / n
            C[mm] += c[mm, ty] / r / n; T[mm] += t[mm, ty] / r / n
        }
        if (nrep["plain"] && nrep["placed"])
            printf " %+8.2f %+11.1f", c["placed", ty] / nrep["placed"] / n - c["plain", ty] / nrep["plain"] / n,
                t["placed", ty] / nrep["placed"] / n - t["plain", ty] / nrep["plain"] / n
        printf "\n"
    }
    printf "%-34s", "total"
    for (j = 1; j <= nm; j++) printf " %8.2f %11.1f", C[m[j]], T[m[j]]
    if (nrep["plain"] && nrep["placed"]) printf " %+8.2f %+11.1f", C["placed"] - C["plain"], T["placed"] - T["plain"]
    printf "\n\nper job (sruns %d):\n", n
    printf "%-9s %5s %8s %10s %7s %8s %8s %12s  %s\n", "mode", "jobs", "started", "succeeded", "placed", "planned", "stderr", "ctld cpu ms", "wall s (each job)"
    for (j = 1; j <= nm; j++) {
        mm = m[j]; r = nrep[mm] ? nrep[mm] : 1
        printf "%-9s %5d %8.1f %10.1f %7.1f %8.1f %8.1f %12.0f  %s\n", mm, r, st[mm] / r, ok[mm] / r, pl[mm] / r, po[mm] / r, ot[mm] / r, cpu[mm] / r, w[mm]
    }
    if (nrep["plain"] && nrep["placed"]) {
        printf "\nadded by placement per srun, each repetition (placed minus plain of the same repetition):\n"
        for (r = 1; r <= maxrep; r++)
            if ((("placed", r) in rc) && (("plain", r) in rc))
                printf "  rep %d: %+.2f RPCs, %+.3f ms, CPU %+.1f ms  (plain %d RPCs %.1f ms, placed %d RPCs %.1f ms a job)\n", r,
                    (rc["placed", r] - rc["plain", r]) / n, (rt["placed", r] - rt["plain", r]) / n / 1000,
                    (cpur["placed", r] - cpur["plain", r]) / n,
                    rc["plain", r], rt["plain", r] / 1000, rc["placed", r], rt["placed", r] / 1000
        printf "  slurmctld CPU time (all threads): %+.3f ms per srun (%.0f ms a plain job, %.0f ms a placed one)\n",
            (cpu["placed"] / nrep["placed"] - cpu["plain"] / nrep["plain"]) / n, cpu["plain"] / nrep["plain"], cpu["placed"] / nrep["placed"]
        dc = C["placed"] - C["plain"]; dt = (T["placed"] - T["plain"]) / 1000
        allst = (st["placed"] == n * nrep["placed"] && ok["placed"] == n * nrep["placed"] && pl["placed"] == n * nrep["placed"])
        printf "\ntarget (issue 14): a placed srun adds <= 2 RPCs and <= 5 ms of controller time; all %d placed sruns start\n", n
        printf "  measured: %+.2f RPCs (%s), %+.3f ms of sdiag total_time (%s), %s\n", dc, dc <= 2 ? "met" : "MISSED", dt, dt <= 5 ? "met" : "MISSED",
            allst ? "all started, succeeded and were placed" : "NOT all started, succeeded and were placed"
    }
}' "$1/runs.csv" "$1/rpc.csv"
}
if [ -n "$table_only" ]; then table "$table_only"; exit 0; fi
[ "$(id -u)" -eq 0 ] || die "must run as root (the virtual cluster: network namespaces)"
for f in clustermap clustermap.so clustermap-place.so libclustermap-prof.so bin/mpirun; do
    [ -e "$build/$f" ] || die "$build/$f missing (make BUILD=$build)"
done

if [ -z "$out" ]; then
    out=$(mktemp -d /var/tmp/cm-ctlload.XXXXXX)
else
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
fi
chmod 755 "$out"
mkdir -p "$out/runs"
printf 'nodes=%s\nsruns=%s\nmodes=%s\nrepeats=%s\nbuild=%s\nplugin_args=%s\n' "$nodes" "$nsrun" "$modes" "$reps" "$build" "$pargs" >"$out/setup.txt"

# The cluster: its own name and directory, 4 real nodes, the rest extra.
CM_CLUSTER_NAME=${CTL_CLUSTER:-ctlload}
CM_CLUSTER_EXTRA_NODES=$((nodes - 4))
CM_CLUSTER_TIMEOUT=${CM_CLUSTER_TIMEOUT:-180}
# The jobs read the build and write into DIR: both must be seen by the
# nodes, whose /tmp is their own.
CM_CLUSTER_SHARED=${CM_CLUSTER_SHARED:+$CM_CLUSTER_SHARED:}$build:$out
export CM_CLUSTER_NAME CM_CLUSTER_EXTRA_NODES CM_CLUSTER_TIMEOUT CM_CLUSTER_SHARED
unset CM_CLUSTER_DIR CM_CLUSTER_NODES CM_CLUSTER_TOPOLOGY CM_CLUSTER_SLURM_EXTRA \
    CM_CLUSTER_PLUGSTACK_FILE SLURM_HOSTFILE SLURM_JOB_ID CLUSTERMAP_STORE
cluster=$root/test/cluster
state=$(. "$cluster/lib.sh" && echo "$CM_STATE")
store=$state/store
run() { "$cluster/run" "$@"; }
CM_CLUSTER_PLUGSTACK="required $build/clustermap.so store=$store prof_lib=$build/libclustermap-prof.so mpirun_dir=$build/bin guard=no${pargs:+ $pargs}"
export CM_CLUSTER_PLUGSTACK

finished=0
cleanup() {
    [ "$finished" = 0 ] || return 0
    finished=1
    if [ -f "$state/etc/plugstack.conf.ctlload" ]; then
        mv -f "$state/etc/plugstack.conf.ctlload" "$state/etc/plugstack.conf"
    fi
    if [ -d "$state/log" ]; then
        rm -rf "$out/log" && cp -r "$state/log" "$out/log" 2>/dev/null
        cp "$state/log/slurmctld.log" "$out/" 2>/dev/null
    fi
    if [ "${CM_CLUSTER_KEEP:-0}" = 1 ]; then
        echo "ctlload: cluster kept: CM_CLUSTER_NAME=$CM_CLUSTER_NAME $cluster/run ..." >&2
    else
        "$cluster/down.sh" >/dev/null 2>&1 || echo "ctlload: $cluster/down.sh failed" >&2
    fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

t_start=$(date +%s)
echo "ctlload: cluster $CM_CLUSTER_NAME with $nodes nodes ($CM_CLUSTER_EXTRA_NODES never register), plugin $build; results in $out"
"$cluster/up.sh" >"$out/up.out" 2>&1 || { cat "$out/up.out" >&2; die "the cluster did not come up"; }
log=$state/log/slurmctld.log

# What the controller holds: every node, the extra ones in their partition.
run scontrol -o show nodes >"$out/nodes.txt" 2>&1 || die "scontrol show nodes failed: $(tail -n 3 "$out/nodes.txt")"
known=$(grep -c '^NodeName=' "$out/nodes.txt" || true)
extra=$(run sinfo -h -p extra -o '%D' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
echo "ctlload: the controller describes $known nodes ($extra in partition extra); $(wc -c <"$out/nodes.txt") bytes of scontrol -o show nodes"
[ "$known" -eq "$nodes" ] || die "expected $nodes nodes from scontrol show nodes, got $known"

# The job's profile: 4 tasks, pairs 0-2 and 1-3 (Slurm's layout, one task
# a node, puts each pair under two switches).
printf '0 2 1000000 100\n2 0 1000000 100\n1 3 1000000 100\n3 1 1000000 100\n' >"$out/ctlload.trip"
"$build/clustermap" profile --store "$store" import "$out/ctlload.trip" --job-name ctlload \
    --format triplets >"$out/import.out" 2>&1 || { cat "$out/import.out" >&2; die "profile import failed"; }
"$build/clustermap" profile --store "$store" list >"$out/profiles.txt" 2>&1
grep -q '^ctlload  *4 ' "$out/profiles.txt" || { cat "$out/profiles.txt" >&2; die "no 4-task profile of ctlload"; }

cat >"$out/task.sh" <<'EOF'
#!/bin/sh
echo "rank ${SLURM_PROCID:-?} host $(hostname)"
EOF
cat >"$out/job.sh" <<'EOF'
#!/bin/sh
# job.sh DIR MODE N TASK: N sruns of 4 tasks at once, then wait for all of them.
dir=$1 mode=$2 n=$3 task=$4
mkdir -p "$dir"
case $mode in
    placed) map=--mapping=cluster,name=ctlload,verbose ;;
    arbitrary)   # Slurm's own arbitrary layout, as a placement asks for it
        printf 'n4\nn3\nn2\nn1\n' >"$dir/hostfile"
        SLURM_HOSTFILE=$dir/hostfile; export SLURM_HOSTFILE
        map=--distribution=arbitrary ;;
    *) map= ;;
esac
t0=$(date +%s%N)
i=1
while [ "$i" -le "$n" ]; do
    { srun --overlap --mpi=none -n4 $map "$task" >"$dir/$i.out" 2>"$dir/$i.err"
      echo $? >"$dir/$i.rc"; } &
    i=$((i + 1))
done
wait
t1=$(date +%s%N)
echo $(( (t1 - t0) / 1000000 )) >"$dir/wall_ms.tmp" && mv "$dir/wall_ms.tmp" "$dir/wall_ms"
EOF
chmod 755 "$out/task.sh" "$out/job.sh"

# rpcs FILE: "TYPE count total_time" of sdiag's per-message-type section.
rpcs() {
    awk '/^Remote Procedure Call statistics by message type/ { s = 1; next }
         /^[^ \t]/ { s = 0 }
         s && /count:/ {
             c = t = ""
             for (i = 2; i <= NF; i++) {
                 if ($i ~ /^count:/) c = substr($i, 7)
                 if ($i ~ /^total_time:/) t = substr($i, 12)
             }
             if (c != "" && t != "") print $1, c, t
         }' "$1"
}
# sum of counts of a snapshot, sdiag's own RPCs left out
rpc_sum() { rpcs "$1" | awk '$1 != "REQUEST_STATS_INFO" { s += $2 } END { print s + 0 }'; }
sdiag_to() { run sdiag >"$1" 2>&1 || die "sdiag failed: $(tail -n 3 "$1")"; }
ctld_cpu_ms() {   # slurmctld's user + system CPU time so far
    p=$(head -n 1 "$state/run/slurmctld.pid" 2>/dev/null | tr -dc 0-9)
    [ -n "$p" ] && [ -r "/proc/$p/stat" ] || { echo 0; return 0; }
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' "/proc/$p/stat"
}

# one_job TAG MODE N: run one job, wait for its end (slurmctld's log), print its id.
one_job() {
    tag=$1 mode=$2 n=$3 dir=$out/runs/$1
    rm -rf "$dir"
    if [ "$mode" = noplugin ]; then
        cp "$state/etc/plugstack.conf" "$state/etc/plugstack.conf.ctlload"
        echo "# emptied by bench/controller/ctlload.sh for mode noplugin" >"$state/etc/plugstack.conf"
    fi
    id=$(run sbatch --parsable -J ctlload -N4 -n4 --exclusive -p debug -D "$out" \
        -o "$out/runs/$tag.job.out" "$out/job.sh" "$dir" "$mode" "$n" "$out/task.sh") || die "sbatch of $tag failed"
    id=${id%%;*}
    end=$(( $(date +%s) + ${CTL_JOB_TIMEOUT:-600} ))
    until grep -q "_job_complete: JobId=$id done" "$log" 2>/dev/null; do
        if [ "$(date +%s)" -ge "$end" ]; then
            run scancel "$id" || true
            die "job $id ($tag) did not end within ${CTL_JOB_TIMEOUT:-600} s"
        fi
        sleep 0.2
    done
    if [ "$mode" = noplugin ]; then
        mv -f "$state/etc/plugstack.conf.ctlload" "$state/etc/plugstack.conf"
    fi
    [ -s "$dir/wall_ms" ] || die "job $id ($tag) ended before its sruns did: $(tail -n 5 "$out/runs/$tag.job.out" 2>/dev/null)"
    echo "$id"
}

# check TAG MODE N: "started succeeded placed plan_ok other_stderr" of a job's sruns.
check() {
    dir=$out/runs/$1
    i=1 started=0 ok=0 placed=0 planok=0 other=0
    while [ "$i" -le "$3" ]; do
        [ "$(grep -c '^rank [0-9]* host ' "$dir/$i.out" 2>/dev/null)" = 4 ] && started=$((started + 1))
        [ "$(cat "$dir/$i.rc" 2>/dev/null)" = 0 ] && ok=$((ok + 1))
        if grep -q "^clustermap: placed 4 tasks of job 'ctlload'" "$dir/$i.err" 2>/dev/null; then
            placed=$((placed + 1))
            # every rank ran on the node of its plan line
            if awk 'FNR == NR { if ($1 == "clustermap:" && $2 == "rank" && $4 == "->") { plan[$3] = $5; p++ }; next }
                    $1 == "rank" { n++; if (plan[$2] != $4) bad = 1 }
                    END { exit (bad || n != 4 || p != 4) }' "$dir/$i.err" "$dir/$i.out"; then
                planok=$((planok + 1))
            fi
        fi
        grep -v '^clustermap:' "$dir/$i.err" 2>/dev/null | grep -q . && other=$((other + 1))
        i=$((i + 1))
    done
    echo "$started $ok $placed $planok $other"
}

# Warm-up (not measured): page cache, the placement module, the nodes' first steps.
"$cluster/wait-idle" 60 >/dev/null || die "the real nodes are not idle"
one_job warm placed 4 >/dev/null
# shellcheck disable=SC2046
set -- $(check warm placed 4)
[ "$3" = 4 ] || { cat "$out/runs/warm/"*.err >&2; die "the warm-up's placed sruns were not placed"; }

echo "mode,rep,rpc_type,count,total_time_us" >"$out/rpc.csv"
echo "mode,rep,job,sruns,started,succeeded,placed,plan_ok,other_stderr,wall_ms,ctld_cpu_ms" >"$out/runs.csv"
rep=1
while [ "$rep" -le "$reps" ]; do
    for mode in $modes; do
        tag=$mode.$rep
        "$cluster/wait-idle" 60 >/dev/null || die "the real nodes did not become idle before job $tag"
        run sdiag -r >/dev/null 2>&1 || die "sdiag -r failed"
        sdiag_to "$out/runs/$tag.sdiag0"
        cpu0=$(ctld_cpu_ms)
        id=$(one_job "$tag" "$mode" "$nsrun")
        # The last step completions and epilog messages arrive after the
        # job's end: read until two readings a second apart agree.
        sdiag_to "$out/runs/$tag.sdiag1"
        k=0
        while [ "$k" -lt 20 ]; do
            sleep 1
            prev=$(rpc_sum "$out/runs/$tag.sdiag1")
            sdiag_to "$out/runs/$tag.sdiag1"
            [ "$(rpc_sum "$out/runs/$tag.sdiag1")" != "$prev" ] || break
            k=$((k + 1))
        done
        cpu1=$(ctld_cpu_ms)
        { rpcs "$out/runs/$tag.sdiag0"; echo "--"; rpcs "$out/runs/$tag.sdiag1"; } |
            awk -v m="$mode" -v r="$rep" '$1 == "--" { after = 1; next }
                !after { c0[$1] = $2; t0[$1] = $3; next }
                { c = $2 - c0[$1]; t = $3 - t0[$1]; if (c > 0) printf "%s,%s,%s,%d,%d\n", m, r, $1, c, t }' |
            sort -t, -k3,3 >>"$out/rpc.csv"
        # shellcheck disable=SC2046
        set -- $(check "$tag" "$mode" "$nsrun")
        wall=$(cat "$out/runs/$tag/wall_ms")
        echo "$mode,$rep,$id,$nsrun,$1,$2,$3,$4,$5,$wall,$((cpu1 - cpu0))" >>"$out/runs.csv"
        printf 'ctlload: %-8s rep %d: job %s, %d sruns: %d started, %d succeeded, %d placed (%d where planned), %d with other stderr; %.2f s; %d RPCs\n' \
            "$mode" "$rep" "$id" "$nsrun" "$1" "$2" "$3" "$4" "$5" "$(echo "$wall" | awk '{ print $1 / 1000 }')" \
            "$(awk -F, -v m="$mode" -v r="$rep" '$1 == m && $2 == r && $3 != "REQUEST_STATS_INFO" { s += $4 } END { print s + 0 }' "$out/rpc.csv")"
    done
    rep=$((rep + 1))
done

table "$out" >"$out/table.txt"
echo
cat "$out/table.txt"
echo
errs=$(grep -c 'error' "$log" 2>/dev/null || true)
derrs=$(cat "$state"/log/slurmd-*.log 2>/dev/null | grep -c 'error' || true)
echo "ctlload: $(( $(date +%s) - t_start )) s; error lines: ${errs:-0} in slurmctld.log, ${derrs:-0} in the slurmd logs (copied to $out/log)"
