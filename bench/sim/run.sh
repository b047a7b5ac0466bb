#!/bin/sh
# run.sh -- `make bench-sim`: the judge over the project's mini-applications
# (bench/sim/apps/), then the summary (bench/sim/README.md).
#
#   bench/sim/run.sh [BUILD] [OUTDIR]
#
# 64 ranks on the 8-node platforms and on the 2-cluster one, 128 ranks on
# the 16-node platforms and on the 3-cluster one; both protocol models;
# every placement.  Then the GPU platforms (platforms/gpu-*.spec, one rank
# per GPU): the mixture-of-experts layer and the 3-D halos, 32 ranks on the
# DGX-like and Frontier-like machines (4 nodes of 8 GPUs), 144 on the
# NVL72-like one (2 racks); GPU=all adds the other mini-applications there
# (`make bench-sim-gpu`: CPU=0 GPU=all), GPU=none leaves the GPU platforms
# out, CPU=0 the CPU ones.  Each case's CSV and log go to OUTDIR (default
# bench/sim/results/), then all.csv and summary.txt.  Any platform or rank
# count can be judged alone with bench/sim/judge.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-$here/results}
jobs=${JOBS:-2}
cpu=${CPU:-1}
gpu=${GPU:-quick}
case $cpu in 0|1) ;; *) echo "bench-sim: CPU: expected 0 or 1, got '$cpu'" >&2; exit 2 ;; esac
case $gpu in quick|all|none) ;; *) echo "bench-sim: GPU: expected quick, all or none, got '$gpu'" >&2; exit 2 ;; esac
mkdir -p "$out"
start=$(date +%s)

names() { for f in "$@"; do printf '%s\n' "${f%.spec}"; done | paste -sd,; }
p64=$(cd "$here/platforms" && names ft8-*.spec mc2-*.spec)
p128=$(cd "$here/platforms" && names ft16-*.spec mc3-*.spec)

# Each platform's ping-pong once: the three (four) distance classes (CPU
# platforms: pingpong.sh does not measure GPU ones).
for spec in "$here"/platforms/*.spec; do
    [ "$cpu" = 1 ] || break
    grep -q '^[[:space:]]*gpus[[:space:]]' "$spec" && continue
    p=$(basename "$spec" .spec)
    d=$(mktemp -d "${TMPDIR:-/tmp}/bench-sim-pp.XXXXXX")
    "$here/mkplatform" "$spec" "$d" >/dev/null
    echo "== $p: ping-pong"
    "$here/pingpong.sh" "$d" || { rm -rf "$d"; exit 1; }
    rm -rf "$d"
done

# name|source|arguments
cases=
[ "$cpu" = 0 ] || cases='halo3d|halo3d.c|
halo3d-scrambled|halo3d.c|--scramble 1
halo2d|halo2d.c|
halo2d-f|halo2d.f90|
wavefront|wavefront.c|
cg|cg.c|
transpose|transpose.c|
powerlaw|powerlaw.c|'

# name|source|arguments|ranks|platforms (GPU platforms: one rank per GPU)
g32='gpu-dgx4,gpu-frontier4'
g144='gpu-nvl72x2'
gcases=
[ "$gpu" = none ] || gcases="moe|moe.c||32|$g32
halo3d|halo3d.c||32|$g32
halo3d-scrambled|halo3d.c|--scramble 1|32|$g32
moe|moe.c||144|$g144
halo3d-scrambled|halo3d.c|--scramble 1|144|$g144"
# cg needs a power of two of ranks: not at 144
[ "$gpu" != all ] || gcases="$gcases
halo2d|halo2d.c||32|$g32
wavefront|wavefront.c||32|$g32
cg|cg.c||32|$g32
transpose|transpose.c||32|$g32
powerlaw|powerlaw.c||32|$g32
halo3d|halo3d.c||144|$g144
halo2d|halo2d.c||144|$g144
wavefront|wavefront.c||144|$g144
transpose|transpose.c||144|$g144
powerlaw|powerlaw.c||144|$g144"

all_cases=$(
    [ -z "$cases" ] || echo "$cases" | while IFS='|' read -r name src args; do
        echo "$name|$src|$args|64|$p64"
        echo "$name|$src|$args|128|$p128"
    done
    [ -z "$gcases" ] || echo "$gcases")

: >"$out/all.csv.tmp"
echo "$all_cases" | while IFS='|' read -r name src args np plats; do
    [ -n "$name" ] || continue
    echo "== judge $name, $np ranks ($(( $(date +%s) - start )) s so far)"
    "$here/judge" --app "$here/apps/$src" --name "$name" --np "$np" --args "$args" \
        --platform "$plats" --model both --no-pingpong --jobs "$jobs" --build "$build" \
        --csv "$out/$name.$np.csv" </dev/null >"$out/$name.$np.log" 2>&1 || {
        echo "bench-sim: judge $name $np failed:" >&2
        tail -n 20 "$out/$name.$np.log" >&2
        exit 1
    }
    sed 1d "$out/$name.$np.csv" >>"$out/all.csv.tmp"
done
{ echo app,np,platform,model,placement,total_s,comm_s,J,J_ratio_block,time_ratio_block
  cat "$out/all.csv.tmp"; } >"$out/all.csv"
rm -f "$out/all.csv.tmp"
awk -F, -f "$here/summary.awk" "$out/all.csv" | tee "$out/summary.txt"
echo
echo "bench-sim: $(( $(wc -l <"$out/all.csv") - 1 )) rows in $out/all.csv, $(( $(date +%s) - start )) s"
