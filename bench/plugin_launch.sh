#!/bin/sh
# plugin_launch.sh [BUILD [N]] -- what the clustermap SPANK plugin adds to an
# srun launch inside an allocation (target: <= 50 ms).
#
# On its own virtual cluster (test/cluster, CM_CLUSTER_NAME=bench by
# default): profiles the scrambled halo once with 8 tasks, then inside one
# allocation of one 8-core node (so that both variants launch the same
# shape: 8 tasks on one node) runs N (default 20) pairs of back-to-back
# `srun -n8 true`, one
# with --mapping=off and one with --mapping=cluster (placed from the stored
# profile: profile load, slurm_load_topo/node, planning, hostfile, binding),
# interleaved so that drift hits both alike.  Prints both medians, the
# added milliseconds and the ratio.  Needs root (namespaces); takes the
# cluster down at the end unless CM_CLUSTER_KEEP=1.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
n=${2:-20}
case $build in /*) ;; *) build=$root/$build ;; esac
CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-bench}
export CM_CLUSTER_NAME
unset CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_PLUGSTACK_FILE
state=$(. "$root/test/cluster/lib.sh" && echo "$CM_STATE")
store=$state/store
for f in clustermap.so libclustermap-prof.so; do
    [ -f "$build/$f" ] || { echo "plugin_launch: $build/$f not built" >&2; exit 1; }
done
CM_CLUSTER_PLUGSTACK="required $build/clustermap.so store=$store prof_lib=$build/libclustermap-prof.so"
export CM_CLUSTER_PLUGSTACK
"$root/test/cluster/up.sh" >/dev/null
work=$(mktemp -d /var/tmp/cm-plugin-launch.XXXXXX)
cleanup() {
    rm -rf "$work"
    [ "${CM_CLUSTER_KEEP:-0}" = 1 ] || "$root/test/cluster/down.sh" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM
chmod 755 "$work"
mpicc -O2 -o "$work/halo" "$root/test/mpi/halo_scrambled.c"
cd "$work"

cat >bench.sh <<EOS
#!/bin/sh
srun --mpi=pmix -n8 --mapping=profile ./halo 2 >/dev/null
for i in \$(seq 50); do
    [ -f "$store/0/launch.8.json" ] && break
    sleep 0.1
done
ms() { echo \$((\$(date +%s%N) / 1000000)); }
for i in \$(seq $n); do
    for m in off cluster; do
        t0=\$(ms); srun -n8 --mapping=\$m true; t1=\$(ms)
        echo "\$m \$((t1 - t0))"
    done
done
srun -n8 --mapping=cluster,verbose true 2>&1 | grep "placed" >&2 || true
EOS
chmod 755 bench.sh
"$root/test/cluster/run" salloc -J launch -N1 --exclusive ./bench.sh >times 2>err
grep "clustermap: placed" err || { echo "plugin_launch: the placed steps were not placed:" >&2; cat err >&2; exit 1; }
median() { grep "^$1 " times | awk '{print $2}' | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
off=$(median off)
on=$(median cluster)
awk -v off="$off" -v on="$on" -v n="$n" 'BEGIN {
    printf "srun -n8 true, %d launches each: --mapping=off median %.1f ms, --mapping=cluster median %.1f ms\n", n, off, on
    printf "added: %.1f ms, ratio %.3f (target: <= 50 ms added)\n", on - off, on / off
}'
