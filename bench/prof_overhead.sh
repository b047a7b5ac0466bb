#!/bin/sh
# prof_overhead.sh -- slowdown of a message-rate loop (8-byte messages
# between 2 ranks, bench/prof_msgrate.c) under libclustermap-prof.so.
# Runs the loop ROUNDS times alternately without and with LD_PRELOAD (and
# CLUSTERMAP_PROFILE_DIR set, so the library records), takes the median of
# each, and prints the ratio.  Target: ratio <= 1.03.
# Usage: bench/prof_overhead.sh [BUILD [ITERS [ROUNDS]]]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
iters=${2:-200000}
rounds=${3:-5}
so=$(pwd)/$build/libclustermap-prof.so
[ -f "$so" ] || { echo "prof_overhead: $so not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/msgrate" bench/prof_msgrate.c
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {
    mpirun --oversubscribe --allow-run-as-root --mca btl self,vader \
        --bind-to core "$@" -np 2 "$tmp/msgrate" "$iters" 5
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
mkdir "$tmp/prof"
i=0
while [ "$i" -lt "$rounds" ]; do
    run >>"$tmp/base"
    run -x CLUSTERMAP_PROFILE_DIR="$tmp/prof" -x LD_PRELOAD="$so" >>"$tmp/with"
    i=$((i + 1))
done
base=$(median <"$tmp/base")
with=$(median <"$tmp/with")
ls "$tmp/prof" | grep -q '^clustermap-raw\.' ||
    { echo "prof_overhead: the profiled runs wrote no profile" >&2; exit 1; }
echo "prof_overhead: $iters 8-byte messages each way, median of $rounds runs (each a median of 5)"
echo "prof_overhead: without ${base} ns/msg, with ${with} ns/msg"
awk -v a="$base" -v b="$with" 'BEGIN {printf "prof_overhead: ratio %.4f (target <= 1.03)\n", b / a}'
