#!/bin/sh
# run.sh -- `make bench-sim`: the judge over the project's mini-applications
# (bench/sim/apps/), then the summary (bench/sim/README.md).
#
#   bench/sim/run.sh [BUILD] [OUTDIR]
#
# 64 ranks on the 8-node platforms and on the 2-cluster one, 128 ranks on
# the 16-node platforms and on the 3-cluster one; both protocol models;
# every placement.  Each case's CSV and log go to OUTDIR (default
# bench/sim/results/), then all.csv and summary.txt.  Any platform or rank
# count can be judged alone with bench/sim/judge.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-$here/results}
jobs=${JOBS:-2}
mkdir -p "$out"
start=$(date +%s)

names() { for f in "$@"; do printf '%s\n' "${f%.spec}"; done | paste -sd,; }
p64=$(cd "$here/platforms" && names ft8-*.spec mc2-*.spec)
p128=$(cd "$here/platforms" && names ft16-*.spec mc3-*.spec)

# Each platform's ping-pong once: the three (four) distance classes.
for spec in "$here"/platforms/*.spec; do
    p=$(basename "$spec" .spec)
    d=$(mktemp -d "${TMPDIR:-/tmp}/bench-sim-pp.XXXXXX")
    "$here/mkplatform" "$spec" "$d" >/dev/null
    echo "== $p: ping-pong"
    "$here/pingpong.sh" "$d" || { rm -rf "$d"; exit 1; }
    rm -rf "$d"
done

# name|source|arguments
cases='halo3d|halo3d.c|
halo3d-scrambled|halo3d.c|--scramble 1
halo2d|halo2d.c|
halo2d-f|halo2d.f90|
wavefront|wavefront.c|
cg|cg.c|
transpose|transpose.c|
powerlaw|powerlaw.c|'

: >"$out/all.csv.tmp"
echo "$cases" | while IFS='|' read -r name src args; do
    for np in 64 128; do
        if [ "$np" = 64 ]; then plats=$p64; else plats=$p128; fi
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
done
{ echo app,np,platform,model,placement,total_s,comm_s,J,J_ratio_block,time_ratio_block
  cat "$out/all.csv.tmp"; } >"$out/all.csv"
rm -f "$out/all.csv.tmp"
awk -F, -f "$here/summary.awk" "$out/all.csv" | tee "$out/summary.txt"
echo
echo "bench-sim: $(( $(wc -l <"$out/all.csv") - 1 )) rows in $out/all.csv, $(( $(date +%s) - start )) s"
