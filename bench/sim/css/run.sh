#!/bin/sh
# run.sh -- CSS schedules (seed 003) against the MPI library's MPI_Alltoallv
# and the classic (rank + k) mod n ordering, simulated with SimGrid SMPI on
# the judge's fat trees (bench/sim/README.md, "CSS schedules (seed 003)").
#
#   bench/sim/css/run.sh [OUTDIR]
#
# Builds css_bench.c with smpicc (the CSS schedule sources compiled in),
# turns each platform's spec into a platform with bench/sim/mkplatform, and
# runs every exchange with smpirun: 64 ranks on the ft8 platforms, 128 on the
# ft16 ones, block placement (8 consecutive ranks per node), under each
# protocol model.  maxmin/precision is raised from its default 1e-5 to 1e-4:
# with 1e-5 SimGrid 3.32 aborts in the library's MPI_Alltoallv at 128 ranks
# under the eager model ("Cannot saturate more a constraint that has no
# active element"); in the runs compared that completed with both, the
# times were the same to 9 digits.  Each run also times what the overlay
# (src/overlay/ovl_css.c) runs for the exchange: the colouring of
# the gathered byte matrix without nodes ("general", the overlay before
# node awareness) and with them ("nodes", the overlay before it recognised
# redistributions: "before"), and the overlay's choice now ("overlay": the
# library when cm_css_nearly_uniform says it steps aside, else
# cm_css_sched_overlay's schedule, the recognised redistribution's when the
# node model prefers it; "recognised" says when).  Writes OUTDIR/css.csv and
# OUTDIR/bounds.csv (default OUTDIR: bench/sim/results/css/), one log per
# run in OUTDIR/logs/, and prints the tables.
#
# Environment (defaults in brackets):
#   JOBS         parallel smpirun runs [2]
#   REPS, WARMUP timed repetitions and warm-up runs per variant [1, 0]:
#                SMPI's simulated times are deterministic (a repetition
#                gives the same time to 9 digits), so one is enough
#   MODELS       default and/or eager, as in bench/sim/judge [default eager]
#   EAGER_128    the 128-rank platforms also run under the eager model, or
#                all [none]: an eager run at 128 ranks takes about twice
#                as long as a default one (10-70 s on an idle machine), and
#                messages of 64 KiB and more are not eager, so the two
#                models differ only where messages are smaller (at 64 ranks:
#                block-cyclic48's 65,280-byte ones and the irregular
#                exchange's smallest, up to 3 %; elsewhere < 0.05 %)
#   P64, P128    platforms (names of bench/sim/platforms/*.spec) for 64 and
#                128 ranks [the ft8-* and the ft16-* ones]; mc2-8 / mc3-16
#                work too (without bounds); P128=" " runs no 128-rank case
#   EXCHANGES    names from the list below [all]
#   ALLTOALLV    an SMPI alltoallv algorithm for the library variant
#                (--cfg=smpi/alltoallv:ALG, e.g. ompi, pair, ring) [SMPI's
#                default selector]
#   WINDOW       the schedules run with css_bench --window W (their steps
#                overlapping, at most W sends in flight per rank) [0: step
#                by step, as the overlay]
#   NETWORK      fluid (SMPI's flow model, max-min fair sharing) or ns3
#                (SimGrid's packet-level ns-3 model, TCP over the same
#                switches: mkplatform's platform-ns3.xml) [fluid].  SimGrid
#                3.32's ns-3 binding aborts on messages above about 128 KiB
#                ("total_bytes ... is not sent_bytes"), so run it with
#                PAIR=64K and without the irregular exchange (its largest
#                message is 16 times its mean); the fluid bounds assume
#                the flow model
#   PAIR         the mean message of every exchange (css_bench --pair),
#                e.g. 64K [each exchange's own: 256K, 64K for the dense]
#   CSS_BUILD    where to build and keep the platforms [a temporary directory]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sim=$(cd "$here/.." && pwd)
root=$(cd "$sim/../.." && pwd)
out=${1:-$sim/results/css}
jobs=${JOBS:-2}
reps=${REPS:-1}
warmup=${WARMUP:-0}
models=${MODELS:-default eager}
eager128=${EAGER_128:-}
names() { for f in "$@"; do printf '%s\n' "${f%.spec}"; done | paste -sd' '; }
p64=${P64:-$(cd "$sim/platforms" && names ft8-*.spec)}
p128=${P128:-$(cd "$sim/platforms" && names ft16-*.spec)}
alltoallv=${ALLTOALLV:-}
window=${WINDOW:-0}
network=${NETWORK:-fluid}
pair=${PAIR:-}

# name|css_bench arguments.  Messages average 256 KiB between ranks that
# exchange data (64 KiB for the dense exchanges, which cost the simulator
# the most); see bench/sim/README.md.
all_exchanges='cyclic3-cyclic5|cyclic:3:5 --pair 256K
cyclic5-cyclic7|cyclic:5:7 --pair 256K
cyclic4-cyclic6|cyclic:4:6 --pair 256K
cyclic4-cyclic3|cyclic:4:3 --pair 256K
block-cyclic48|block:48 --pair 64K
forall|forall --pair 256K
irregular|irregular --pair 256K --density 0.25 --seed 1
uniform|uniform --pair 64K'
exchanges=${EXCHANGES:-$(echo "$all_exchanges" | cut -d'|' -f1 | paste -sd' ')}

die() { echo "css/run.sh: $*" >&2; exit 1; }
for c in smpicc smpirun; do
    command -v $c >/dev/null 2>&1 || die "$c not found (make deps)"
done
for e in $exchanges; do
    echo "$all_exchanges" | grep -q "^$e|" || die "EXCHANGES: unknown exchange '$e'"
done
for m in $models; do
    case $m in default|eager) ;; *) die "MODELS: expected default and/or eager, got '$m'" ;; esac
done
case $network in
    fluid) platform_xml=platform.xml netcfg= ;;
    ns3) platform_xml=platform-ns3.xml netcfg=--cfg=network/model:ns-3 ;;
    *) die "NETWORK: expected fluid or ns3, got '$network'" ;;
esac
case $pair in
    ''|[1-9]*) ;;
    *) die "PAIR: expected a size such as 64K, got '$pair'" ;;
esac

if [ -n "${CSS_BUILD:-}" ]; then
    work=$CSS_BUILD
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/css-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
fi
work=$(cd "$work" && pwd)
case $work in *[[:space:]]*) die "smpirun cannot use a path with blanks: $work" ;; esac
mkdir -p "$out/logs" "$work/rows"
rm -f "$work"/rows/*
start=$(date +%s)

# ---- build: the benchmark with the schedule sources compiled in ---------
ovl=$root/src/overlay
smpicc -O2 -Wall -Wextra -D_GNU_SOURCE -I"$root/src/core" -I"$root/src/util" -I"$ovl" -o "$work/css_bench" \
    "$here/css_bench.c" "$ovl/css_sched.c" "$ovl/css_redist.c" "$ovl/css_general.c" "$ovl/css_nodes.c" \
    "$ovl/css_recognise.c" \
    "$root/src/core/error.c" -lm >"$work/build.log" 2>&1 ||
    die "smpicc failed: $(tail -n 5 "$work/build.log")"

# ---- platforms and block hostfiles (as the judge: the first
# ceil(np / cores) nodes, Slurm's block layout) ----------------------------
spec_value() { sed -n "s/^[[:space:]]*$2[[:space:]][[:space:]]*\([^[:space:]#]*\).*/\1/p" "$1" | head -n 1; }
plat() { # NAME NP
    pd=$work/plat/$1.$2
    [ -f "$pd/block.hosts" ] && [ -f "$pd/platform-ns3.xml" ] && return 0
    spec=$sim/platforms/$1.spec
    [ -f "$spec" ] || die "no platform $spec"
    mkdir -p "$pd"
    "$sim/mkplatform" "$spec" "$pd" >"$pd/mkplatform.log" 2>&1 ||
        die "mkplatform $spec failed: $(tail -n 3 "$pd/mkplatform.log")"
    cores=$(spec_value "$spec" cores)
    awk -v np="$2" -v c="$cores" 'NR <= (np + c - 1) / c {
            n = np - (NR - 1) * c; if (n > c) n = c
            for (k = 0; k < n; k++) print $1 }' "$pd/hosts" >"$pd/block.hosts"
    [ "$(wc -l <"$pd/block.hosts")" -eq "$2" ] || die "$1 has no room for $2 ranks"
    # css_bench --fattree: the fluid bounds (fat trees only: no clusters)
    : >"$pd/fattree"
    if [ -z "$(spec_value "$spec" clusters)" ]; then
        bw=$(spec_value "$spec" link_bw | awk '{
            v = $0; sub(/[A-Za-z\/]+$/, "", v); u = substr($0, length(v) + 1)
            f["b/s"] = 1 / 8; f["kb/s"] = 1e3 / 8; f["Mb/s"] = 1e6 / 8; f["Gb/s"] = 1e9 / 8
            f["Tb/s"] = 1e12 / 8; f["B/s"] = 1; f["kB/s"] = f["KB/s"] = 1e3; f["MB/s"] = 1e6
            f["GB/s"] = 1e9; f["TB/s"] = 1e12; f["KiB/s"] = 1024; f["MiB/s"] = 1048576
            f["GiB/s"] = 1073741824; f["TiB/s"] = 1099511627776
            if (u in f) printf "%.9g", v * f[u] * 0.95 }')   # mkplatform: bw-factor 0.95
        os=$(spec_value "$spec" oversub | awk -F: '{ printf "%.9g", $1 / ($2 == "" ? 1 : $2) }')
        [ -n "$bw" ] && echo "--fattree $cores:$(spec_value "$spec" per_leaf):$bw:$os" >"$pd/fattree"
    fi
}

# ---- the runs -------------------------------------------------------------
jobsfile=$work/jobs
: >"$jobsfile"
for np in 128 64; do   # the long ones first
    if [ $np = 64 ]; then plats=$p64; else plats=$p128; fi
    for e in $exchanges; do
        for p in $plats; do
            plat "$p" "$np"
            for m in $models; do
                if [ "$m" = eager ] && [ "$np" = 128 ] && [ "$eager128" != all ]; then
                    case " $eager128 " in *" $p "*) ;; *) continue ;; esac
                fi
                echo "$e $np $p $m" >>"$jobsfile"
            done
        done
    done
done
echo "css/run.sh: $(wc -l <"$jobsfile") runs, $jobs at a time, reps $reps, warm-up $warmup, network $network$([ -n "$pair" ] && echo ", messages $pair")$([ -n "$alltoallv" ] && echo ", smpi/alltoallv:$alltoallv")"

export work out reps warmup alltoallv window all_exchanges platform_xml netcfg pair
# One run: smpirun, then the RESULT line as a CSV row in rows/.
# shellcheck disable=SC2016
one='
set -eu
e=$1 np=$2 p=$3 m=$4
args=$(echo "$all_exchanges" | sed -n "s/^$e|//p")
[ -n "$pair" ] && args=$(echo "$args" | sed "s/--pair [^ ]*/--pair $pair/")
case $m in eager) cfg=--cfg=smpi/async-small-thresh:65536 ;; *) cfg= ;; esac
[ -n "$alltoallv" ] && cfg="$cfg --cfg=smpi/alltoallv:$alltoallv"
log=$out/logs/$e.$np.$p.$m.log
t0=$(date +%s)
# SimGrid 3.32 ns-3 binding: a run it cannot finish gives no row
ns3_failed() {
    [ -n "$netcfg" ] && grep -Eq "Deadlock detected|is not sent_bytes" "$log" &&
    echo "  $e $np $p $m: no row, the ns-3 binding failed: $(grep -Eo "Deadlock detected|total_bytes.*sent_bytes[^)]*\)" "$log" | head -n 1)"
}
# shellcheck disable=SC2086
if ! (cd "$work" && smpirun -np "$np" -platform "$work/plat/$p.$np/$platform_xml" \
        -hostfile "$work/plat/$p.$np/block.hosts" --cfg=smpi/simulate-computation:no \
        --cfg=maxmin/precision:1e-4 $netcfg $cfg \
        --log=root.thres:warning ./css_bench $args --reps "$reps" --warmup "$warmup" \
        --window "$window" \
        $(cat "$work/plat/$p.$np/fattree")) \
        </dev/null >"$log" 2>&1; then
    ns3_failed && exit 0
    echo "css/run.sh: $e $np $p $m failed (see $log)" >&2
    exit 1
fi
if grep -q "^ERROR" "$log"; then
    echo "css/run.sh: $e $np $p $m: wrong data (see $log)" >&2
    exit 1
fi
r=$(grep "^RESULT " "$log" | tail -n 1)
[ -z "$r" ] && ns3_failed && exit 0
[ -n "$r" ] || { echo "css/run.sh: $e $np $p $m: no RESULT line (see $log)" >&2; exit 1; }
# the overlay: the library when it steps aside, else its schedule (now:
# from cm_css_sched_overlay; before: the node-aware colouring)
echo "$r" | awk -v e="$e" -v p="$p" -v m="$m" "{
    ovl = \$12 ? \$4 : \$13
    bef = \$12 ? \$4 : \$11
    printf \"%s,%d,%s,%s,%.9g,%.9g,%.9g,%.6f,%.6f,%.9g,%.9g,%d,%.9g,%.6f,%.6f,%.6f,%.9g,%.6f,%.6f,%d\\n\",
        e, \$3, p, m, \$4, \$5, \$6, \$6 / \$4, \$6 / \$5, \$10, \$11, \$12, ovl,
        ovl / \$4, ovl / \$5, \$11 / \$10, bef, bef / \$4, bef / \$5, \$14
}" >"$work/rows/$e.$np.$p.$m.csv"
b=$(grep "^BOUND " "$log" | tail -n 1)
if [ -n "$b" ]; then
    echo "$r $b" | awk -v e="$e" -v p="$p" -v m="$m" "{
        printf \"%s,%d,%s,%s,%.9g,%.9g,%.6f,%.6f,%.6f\\n\", e, \$3, p, m, \$18, \$19,
            \$4 / \$18, \$6 / \$19, \$19 / \$18
    }" >"$work/rows/$e.$np.$p.$m.bound"
fi
echo "  $e $np $p $m: $(( $(date +%s) - t0 )) s"
'
xargs -P "$jobs" -L 1 sh -c "$one" sh <"$jobsfile" || die "some runs failed"

# ---- CSV (in the order of the job list, the exchanges' order) and table --
# collect EXT HEADER FILE: the rows' .EXT files, in the exchanges' order,
# under HEADER, into FILE (written whole, then renamed).
collect() {
    {
        echo "$2"
        for np in 64 128; do
            for e in $exchanges; do
                for f in "$work/rows/$e.$np".*."$1"; do
                    if [ -f "$f" ]; then cat "$f"; fi
                done
            done
        done
    } >"$3.tmp"
    mv "$3.tmp" "$3"
}
csv=$out/css.csv
collect csv "exchange,np,platform,model,t_library_s,t_classic_s,t_css_s,ratio_library,ratio_classic,t_general_s,t_nodes_s,aside,t_overlay_s,overlay_library,overlay_classic,nodes_general,t_before_s,before_library,before_classic,recognised" "$csv"

# The fluid bounds (css_bench.c, fattree_bounds) beside the times.
bcsv=$out/bounds.csv
collect bound "exchange,np,platform,model,bound_all_s,bound_steps_s,library_over_all,css_over_steps,steps_over_all" "$bcsv"

awk -F, 'NR > 1 {
    printf "%-16s %4d %-15s %-8s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %7.3f %7.3f %7.3f %7.3f %3d\n",
        $1, $2, $3, $4, $5 * 1e3, $6 * 1e3, $7 * 1e3, $10 * 1e3, $11 * 1e3, $13 * 1e3, $8, $14,
        $18, $16, $20 }
    NR == 1 { printf "%-16s %4s %-15s %-8s %9s %9s %9s %9s %9s %9s %7s %7s %7s %7s %3s\n", "exchange",
        "np", "platform", "model", "lib_ms", "cls_ms", "css_ms", "gen_ms", "nodes_ms", "ovl_ms",
        "css/lib", "ovl/lib", "bef/lib", "nod/gen", "rec" }' "$csv"
echo
# Per exchange: the range of the ratios over platforms and models.
awk -F, 'function upd(i, v) { if (!((k, i) in lo) || v < lo[k, i]) lo[k, i] = v
        if (!((k, i) in hi) || v > hi[k, i]) hi[k, i] = v }
    NR > 1 { k = $1; if (!(k in n)) order[++no] = k; n[k]++
        upd(1, $8); upd(2, $9); upd(3, $14); upd(4, $15); upd(5, $16); upd(6, $18); upd(7, $19) }
    END { printf "%-16s %5s %15s %15s %15s %15s %15s %15s %15s\n", "exchange", "runs",
            "css/library", "css/classic", "overlay/library", "overlay/classic", "nodes/general",
            "before/library", "before/classic"
        for (i = 1; i <= no; i++) { k = order[i]; printf "%-16s %5d", k, n[k]
            for (c = 1; c <= 7; c++) printf " %6.3f..%6.3f", lo[k, c], hi[k, c]
            printf "\n" } }' "$csv"
echo
# Per exchange: how close each way is to its fluid bound.
awk -F, 'NR > 1 {
        k = $1; if (!(k in n)) { order[++no] = k; a1[k] = b1[k] = $7; a2[k] = b2[k] = $8; a3[k] = b3[k] = $9 }
        n[k]++; if ($7 < a1[k]) a1[k] = $7; if ($7 > b1[k]) b1[k] = $7
        if ($8 < a2[k]) a2[k] = $8; if ($8 > b2[k]) b2[k] = $8
        if ($9 < a3[k]) a3[k] = $9; if ($9 > b3[k]) b3[k] = $9 }
    END { if (no) printf "%-16s %5s %19s %19s %19s\n", "exchange", "runs", "library/bound_all",
              "css/bound_steps", "bound_steps/all"
        for (i = 1; i <= no; i++) { k = order[i]
            printf "%-16s %5d %8.3f .. %6.3f %8.3f .. %6.3f %8.3f .. %6.3f\n", k, n[k], a1[k], b1[k],
                a2[k], b2[k], a3[k], b3[k] } }' "$bcsv"
echo
echo "css/run.sh: $(( $(wc -l <"$csv") - 1 )) rows in $csv, $(( $(wc -l <"$bcsv") - 1 )) in $bcsv, $(( $(date +%s) - start )) s"
