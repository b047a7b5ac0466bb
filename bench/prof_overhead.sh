#!/bin/sh
# prof_overhead.sh -- slowdown of a message-rate loop (8-byte messages,
# bench/prof_msgrate.c) under libclustermap-prof.so, measured three ways:
#
#  wall clock   2 ranks over shared memory, run ROUNDS times alternately
#               without and with LD_PRELOAD (and CLUSTERMAP_PROFILE_DIR set,
#               so that the library records); the medians and their ratio.
#               Load-sensitive (separate runs on a busy machine can differ
#               by tens of per cent): the load average is printed with it.
#  paired       the same 2 ranks, library preloaded, every repetition timing
#               the loop through MPI_Isend (the library) and PMPI_Isend
#               (around it) a few milliseconds apart; the median of the
#               per-repetition ratios, over ROUNDS runs.  Much less
#               sensitive to load; the same without the library is printed
#               as the control (its ratio is the method's own error).
#  instructions 1 rank sending to itself (btl self) under valgrind's
#               callgrind, at two loop lengths: the difference of the total
#               instruction counts divided by the difference of the message
#               counts is the cost of one message (Isend + Irecv + its share
#               of Waitall), without start-up and finalize costs.
#               Deterministic; skipped when valgrind is not installed.
#
# Target (the issue): at most 3 % slowdown, i.e. a ratio <= 1.03.
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
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# ---------------------------------------------------------- wall clock --
run() {
    mpirun --oversubscribe --allow-run-as-root --mca btl self,vader \
        --bind-to core "$@" -np 2 "$tmp/msgrate" "$iters" 5
}
mkdir "$tmp/prof"
load0=$(cut -d' ' -f1 /proc/loadavg)
i=0
while [ "$i" -lt "$rounds" ]; do
    run >>"$tmp/base"
    run -x CLUSTERMAP_PROFILE_DIR="$tmp/prof" -x LD_PRELOAD="$so" >>"$tmp/with"
    i=$((i + 1))
done
load1=$(cut -d' ' -f1 /proc/loadavg)
base=$(median <"$tmp/base")
with=$(median <"$tmp/with")
set -- "$tmp/prof"/clustermap-raw.*
[ -f "$1" ] ||
    { echo "prof_overhead: the profiled runs wrote no profile" >&2; exit 1; }
echo "prof_overhead: wall clock, 2 ranks, $iters 8-byte messages each way," \
     "median of $rounds runs (each a median of 5);" \
     "load average $load0 -> $load1"
echo "prof_overhead: wall clock: without ${base} ns/msg, with ${with} ns/msg"
awk -v a="$base" -v b="$with" 'BEGIN {
    printf "prof_overhead: wall clock: ratio %.4f (target <= 1.03)\n", b / a }'

# -------------------------------------------------------------- paired --
# 41 pairs of 20000 messages per run (and one warm-up pair).
run_paired() {
    mpirun --oversubscribe --allow-run-as-root --mca btl self,vader \
        --bind-to core "$@" -np 2 "$tmp/msgrate" 20000 41 paired
}
i=0
while [ "$i" -lt "$rounds" ]; do
    run_paired >>"$tmp/pair0"
    run_paired -x CLUSTERMAP_PROFILE_DIR="$tmp/prof" -x LD_PRELOAD="$so" \
        >>"$tmp/pair1"
    i=$((i + 1))
done
ctl=$(awk '{print $3}' "$tmp/pair0" | median)
pair=$(awk '{print $3}' "$tmp/pair1" | median)
pm=$(awk '{print $1}' "$tmp/pair1" | median)
pp=$(awk '{print $2}' "$tmp/pair1" | median)
echo "prof_overhead: paired, 2 ranks, 41 x 20000 messages each way through" \
     "MPI_Isend and PMPI_Isend alternately, median of $rounds runs"
echo "prof_overhead: paired: through the library ${pm} ns/msg," \
     "around it ${pp} ns/msg"
echo "prof_overhead: paired: ratio $pair (target <= 1.03);" \
     "control without the library $ctl"

# -------------------------------------------------------- instructions --
if ! command -v valgrind >/dev/null 2>&1; then
    echo "prof_overhead: instructions: skipped (valgrind not installed)"
    exit 0
fi
# Loop lengths: multiples of the window (64); each run sends 2 x ITERS
# messages (warm-up + 1 repetition).
short=12800 long=51200
msgs=$((2 * (long - short)))
# count ITERS OUT [mpirun options]: total instructions of one run
count() {
    n=$1 out=$2
    shift 2
    mpirun --allow-run-as-root --mca btl self "$@" -np 1 \
        valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$tmp/msgrate" "$n" 1 >/dev/null 2>>"$tmp/valgrind.log" ||
        { cat "$tmp/valgrind.log" >&2; exit 1; }
    awk '$1 == "totals:" || $1 == "summary:" {print $2; exit}' "$out"
}
mkdir "$tmp/prof0" "$tmp/prof1"
b0=$(count "$short" "$tmp/cg.b0")
b1=$(count "$long" "$tmp/cg.b1")
w0=$(count "$short" "$tmp/cg.w0" -x CLUSTERMAP_PROFILE_DIR="$tmp/prof0" \
     -x LD_PRELOAD="$so")
w1=$(count "$long" "$tmp/cg.w1" -x CLUSTERMAP_PROFILE_DIR="$tmp/prof1" \
     -x LD_PRELOAD="$so")
# The profiled long run must have recorded every message (8 bytes each).
set -- "$tmp/prof1"/clustermap-raw.*
grep -qx "p2p 0 0 $((16 * long)) $((2 * long))" "$1" ||
    { echo "prof_overhead: $1 does not hold the $((2 * long)) messages" >&2
      cat "$1" >&2; exit 1; }
echo "prof_overhead: instructions (callgrind), 1 rank to itself, btl self," \
     "difference of $((2 * long)) and $((2 * short)) messages"
awk -v b0="$b0" -v b1="$b1" -v w0="$w0" -v w1="$w1" -v m="$msgs" 'BEGIN {
    b = (b1 - b0) / m; w = (w1 - w0) / m
    printf "prof_overhead: instructions: without %.1f /msg, with %.1f /msg, " \
           "+%.1f per message\n", b, w, w - b
    printf "prof_overhead: instructions: ratio %.4f (target <= 1.03)\n", w / b
}'
