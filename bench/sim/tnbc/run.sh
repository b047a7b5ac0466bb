#!/bin/sh
# run.sh -- the judge's figures for T-NBC (seed 001, issue 15): every program
# of bench/sim/tnbc/ in both modes (blocking: the MPI collective; tnbc: the
# overlay written out as the model, tnbc.h) on the judge's 8-node platforms,
# 64 ranks, Slurm's block layout (8 ranks per node); a table and a CSV.
# bench/sim/README.md, "T-NBC (seed 001)", says what is modelled and how.
#
#   bench/sim/tnbc/run.sh [--out DIR] [--work DIR] [--jobs N]
#                         [--platforms LIST] [--eager LIST|all|none]
#                         [--no-extras] [--quick] [--prio-only]
#                         [--traced-only]
#
#   --out DIR        table.txt, tnbc.csv, traced.txt (the "-traced" rows'
#                    verdicts) and the runs' logs (default
#                    bench/sim/tnbc/results)
#   --work DIR       build and platforms here, kept (default: a temporary
#                    directory, removed at the end)
#   --jobs N         simulations at once (default $JOBS or 2)
#   --platforms L    comma list of bench/sim/platforms/*.spec names
#                    (default the four ft8 ones)
#   --eager L        platforms also run under the eager protocol model
#                    (smpi/async-small-thresh:65536), all programs but
#                    is_like; default ft8-100g-2to1 only: every message here
#                    but the small control ones is above 64 KiB, so the model
#                    changes little, and is_like's Alltoallv of 4032 messages
#                    of distinct sizes is the slowest to simulate
#   --no-extras      leave out the variants run on the first platform
#                    (progress thread on the core, unaligned buffers, skewed
#                    IS, faster copies)
#   --quick          first platform only, no eager runs, no extras
#   --prio-only      only ft_like and is_like, blocking and tnbc under the
#                    four --prio orders (none, order, waves, window), on
#                    every platform, default model, plus ft_like with
#                    rotated reads on the first platform (4 x 10 + 5 = 45
#                    simulations: the priorities table of the README)
#   --traced-only    only what the "-traced" rows need, on every platform,
#                    default model: a2a_micro, ft_like, is_like, no_overlap
#                    (alltoall, allgather), blocking and tnbc, and the run
#                    that reads the tnbc run's trace where it steps aside
#                    (10 to 15 simulations per platform)
#
# The "-traced" rows (default model, every platform; not with --prio-only):
# the overlay's rule "a call site steps aside when its trace shows nothing
# hidden".  Every tnbc run prints, per timed case, the trace's sums
# (ovl_hidden, ovl_init) and the verdict (aside on every rank, keep on
# every rank, or mixed) and writes each rank's verdict to runs/ID.trace;
# the row's time is the tnbc run's where the verdict is keep, else that of
# a second run reading the trace: --aside 1 when every case of the run is
# aside, --trace-in (aside per rank and case) otherwise.  The "-agreed"
# rows: the same with the verdict of the times summed over the ranks, as
# the overlay's ranks decide in every run (the profile store's sums and
# the agreement at MPI_Init: every rank aside for a case, or none;
# runs/ID.trace.agreed); the "-traced" rows are each rank alone, as
# before that agreement.  Gain against the same
# blocking run as the other rows; the verdicts in traced.txt.
#
# CSV columns: app,np,platform,model,t_blocking_s,t_tnbc_s,gain_pct,
# hidden_pct,t_overlap_model_s (definitions in the README section).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sim=$(cd "$here/.." && pwd)
me=tnbc/run.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

out=$here/results work='' keep=0 jobs=${JOBS:-2} extras=1 quick=0 prio_only=0
traced_only=0
platforms=ft8-100g-2to1,ft8-100g-4to1,ft8-25g-2to1,ft8-25g-4to1
eager=ft8-100g-2to1
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --no-extras) extras=0; shift; continue ;;
        --quick) quick=1; shift; continue ;;
        --prio-only) prio_only=1; shift; continue ;;
        --traced-only) traced_only=1; shift; continue ;;
        --out|--work|--jobs|--platforms|--eager)
            [ $# -ge 2 ] || die "$1 expects a value" ;;
        *) die "unknown option '$1' (try --help)" ;;
    esac
    case $1 in
        --out) out=$2 ;;
        --work) work=$2 ;;
        --jobs) jobs=$2 ;;
        --platforms) platforms=$2 ;;
        --eager) eager=$2 ;;
    esac
    shift 2
done
case $jobs in ''|*[!0-9]*|0*) die "--jobs expects a positive integer, got '$jobs'" ;; esac
platforms=$(printf '%s' "$platforms" | tr ',' ' ')
first=$(echo "$platforms" | awk '{ print $1 }')
[ -n "$first" ] || die "--platforms: empty"
case $eager in
    all) eager=$platforms ;;
    none) eager= ;;
    *) eager=$(printf '%s' "$eager" | tr ',' ' ') ;;
esac
if [ "$quick" = 1 ]; then
    platforms=$first eager='' extras=0
fi
[ "$prio_only" = 1 ] && [ "$traced_only" = 1 ] &&
    die "--prio-only and --traced-only: one at a time"
if [ "$prio_only" = 1 ] || [ "$traced_only" = 1 ]; then
    eager='' extras=0
fi
for p in $platforms $eager; do
    [ -f "$sim/platforms/$p.spec" ] || die "no platform $sim/platforms/$p.spec"
done
for c in smpicc smpirun; do
    command -v $c >/dev/null 2>&1 || die "$c not found (SimGrid SMPI: run 'make deps')"
done

if [ -n "$work" ]; then
    mkdir -p "$work" && work=$(cd "$work" && pwd)
    keep=1
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/tnbc.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
fi
case $work in *[[:space:]]*) die "smpirun cannot use a path with blanks: $work" ;; esac
mkdir -p "$out" && out=$(cd "$out" && pwd)
start=$(date +%s)

# ---- build ----------------------------------------------------------------
mkdir -p "$work/bin"
for p in a2a_micro ft_like is_like no_overlap; do
    smpicc -O2 -Wall -Wextra -I"$here" -o "$work/bin/$p" "$here/$p.c" -lm \
        >"$work/bin/$p.log" 2>&1 || die "smpicc $p.c failed: $(tail -n 5 "$work/bin/$p.log")"
done

# ---- platforms: 64 ranks on the first ceil(64 / cores) nodes, block ------
np=64
mkdir -p "$work/plat"
spec_value() { sed -n "s/^[[:space:]]*$2[[:space:]][[:space:]]*\([^[:space:]#]*\).*/\1/p" "$1" | head -n 1; }
# shellcheck disable=SC2086
for p in $(printf '%s\n' $platforms $eager | sort -u); do
    pd=$work/plat/$p
    "$sim/mkplatform" "$sim/platforms/$p.spec" "$pd" >"$work/mkplatform.$p.log" 2>&1 ||
        die "mkplatform $p failed: $(tail -n 3 "$work/mkplatform.$p.log")"
    cores=$(spec_value "$sim/platforms/$p.spec" cores)
    k=$(( (np + cores - 1) / cores ))
    [ "$k" -le "$(wc -l <"$pd/hosts")" ] || die "$p: $np ranks need $k nodes of $cores cores"
    head -n "$k" "$pd/hosts" | awk -v np="$np" -v c="$cores" '{
        for (i = 0; i < c && n < np; i++) { print $1; n++ } }' >"$pd/block.hosts"
done

# ---- the runs ---------------------------------------------------------------
# jobs: ID|PLATFORM|MODEL|PROGRAM|MODE|ARGS|EXTRA-CFG
# rows: NAME|PLATFORM|MODEL|BLOCKING-ID:CASE|TNBC-ID:CASE[|TRACED-ID]
# jobs.traced: TNBC-ID|the job that reads its trace (run if needed)
: >"$work/jobs"
: >"$work/rows"
: >"$work/jobs.traced"
job() { echo "$1|$2|$3|$4|$5|$6|$7" >>"$work/jobs"; }
row() { echo "$1|$2|$3|$4|$5" >>"$work/rows"; }
# the rule "step aside where the trace shows nothing hidden": a row whose
# time is the tnbc run's or, where it steps aside, the traced run's
traced() {   # PLATFORM MODEL PROGRAM ARGS TNBC-ID BLOCKING-ID ROW:CASE...
    pl=$1 m=$2 prog=$3 args=$4 tid=$5 bid=$6
    shift 6
    echo "$tid|$tid.tr|$pl|$m|$prog|tnbc|$args|" >>"$work/jobs.traced"
    for rc in "$@"; do
        echo "${rc%%:*}-traced|$pl|$m|$bid:${rc#*:}|$tid:${rc#*:}|$tid.tr|verdict" >>"$work/rows"
        echo "${rc%%:*}-agreed|$pl|$m|$bid:${rc#*:}|$tid:${rc#*:}|$tid.ag|agreed" >>"$work/rows"
    done
}
add_traced() {   # PLATFORM MODEL
    pl=$1 m=$2 t=$1.$2
    traced "$pl" "$m" a2a_micro "" "$t.a2a.t" "$t.a2a.b" \
        a2a_micro-0.25x:0.25x a2a_micro-0.5x:0.5x a2a_micro-1x:1x a2a_micro-2x:2x
    traced "$pl" "$m" ft_like "" "$t.ft.t" "$t.ft.b" ft_like:default
    traced "$pl" "$m" is_like "" "$t.is.t" "$t.is.b" is_like:nas
    for c in alltoall allgather; do
        traced "$pl" "$m" no_overlap "--coll $c" "$t.no-$c.t" "$t.no-$c.b" \
            "no_overlap-$c:$c"
    done
}
# the overlay's priority mode (--prio order) and the seed's per-node rule
# as waves (--prio waves), against the same blocking runs
add_prio() {   # PLATFORM MODEL
    pl=$1 m=$2 t=$1.$2
    for o in order waves window; do
        job "$t.ft.$o" "$pl" "$m" ft_like tnbc "--prio $o" ""
        row "ft_like-prio-$o" "$pl" "$m" "$t.ft.b:default" "$t.ft.$o:default"
        job "$t.is.$o" "$pl" "$m" is_like tnbc "--prio $o" ""
        row "is_like-prio-$o" "$pl" "$m" "$t.is.b:nas" "$t.is.$o:nas"
    done
}
# what if FT read its blocks in a rotated order (rank+1, rank+2, ...)
add_rotated() {   # PLATFORM
    pl=$1 t=$1.default
    job "$t.ftr.b" "$pl" default ft_like blocking "--read rotated" ""
    job "$t.ftr.t" "$pl" default ft_like tnbc "--read rotated" ""
    row ft_like-rotated "$pl" default "$t.ftr.b:default" "$t.ftr.t:default"
    for o in order waves window; do
        job "$t.ftr.$o" "$pl" default ft_like tnbc "--read rotated --prio $o" ""
        row "ft_like-rotated-prio-$o" "$pl" default "$t.ftr.b:default" "$t.ftr.$o:default"
    done
}
add_common() {   # PLATFORM MODEL [noIS]
    pl=$1 m=$2 t=$1.$2
    if [ "$prio_only" = 1 ]; then
        for a in ft is; do
            prog=${a}_like c=default
            [ $a = is ] && c=nas
            job "$t.$a.b" "$pl" "$m" $prog blocking "" ""
            job "$t.$a.t" "$pl" "$m" $prog tnbc "" ""
            row $prog "$pl" "$m" "$t.$a.b:$c" "$t.$a.t:$c"
        done
        add_prio "$pl" "$m"
        return
    fi
    job "$t.a2a.b" "$pl" "$m" a2a_micro blocking "" ""
    job "$t.a2a.t" "$pl" "$m" a2a_micro tnbc "" ""
    for f in 0.25x 0.5x 1x 2x; do
        row "a2a_micro-$f" "$pl" "$m" "$t.a2a.b:$f" "$t.a2a.t:$f"
    done
    job "$t.ft.b" "$pl" "$m" ft_like blocking "" ""
    job "$t.ft.t" "$pl" "$m" ft_like tnbc "" ""
    row ft_like "$pl" "$m" "$t.ft.b:default" "$t.ft.t:default"
    if [ $# -lt 3 ]; then
        job "$t.is.b" "$pl" "$m" is_like blocking "" ""
        job "$t.is.t" "$pl" "$m" is_like tnbc "" ""
        row is_like "$pl" "$m" "$t.is.b:nas" "$t.is.t:nas"
    fi
    colls="alltoall allgather bcast"
    [ "$traced_only" = 1 ] && colls="alltoall allgather"
    for c in $colls; do
        job "$t.no-$c.b" "$pl" "$m" no_overlap blocking "--coll $c" ""
        job "$t.no-$c.t" "$pl" "$m" no_overlap tnbc "--coll $c" ""
        row "no_overlap-$c" "$pl" "$m" "$t.no-$c.b:$c" "$t.no-$c.t:$c"
    done
}
for p in $platforms; do
    add_common "$p" default
    [ "$prio_only" = 1 ] && continue
    add_traced "$p" default
    [ "$traced_only" = 1 ] && continue
    add_prio "$p" default
    # the overlay also swaps the MPI library's pairwise Alltoall for an
    # all-at-once schedule: the same program, blocking, with SMPI's linear one
    job "$p.default.no-alltoall.lin" "$p" default no_overlap blocking "--coll alltoall" \
        --cfg=smpi/alltoall:basic_linear
    row no_overlap-alltoall-vs-linear "$p" default "$p.default.no-alltoall.lin:alltoall" \
        "$p.default.no-alltoall.t:alltoall"
    job "$p.default.ft.lin" "$p" default ft_like blocking "" --cfg=smpi/alltoall:basic_linear
    row ft_like-vs-linear "$p" default "$p.default.ft.lin:default" "$p.default.ft.t:default"
done
for p in $eager; do
    add_common "$p" eager noIS   # is_like: the slowest to simulate (below)
done
if [ "$extras" = 1 ] || [ "$prio_only" = 1 ]; then
    add_rotated "$first"
fi
if [ "$extras" = 1 ]; then
    t=$first.default
    job "$t.a2a.toc" "$first" default a2a_micro tnbc "--factor 1 --thread-on-core 1" ""
    row a2a_micro-1x-thread-on-core "$first" default "$t.a2a.b:1x" "$t.a2a.toc:1x"
    job "$t.a2a.mal" "$first" default a2a_micro tnbc "--factor 1 --align-malloc 1" ""
    row a2a_micro-1x-align-malloc "$first" default "$t.a2a.b:1x" "$t.a2a.mal:1x"
    job "$t.ft.toc" "$first" default ft_like tnbc "--thread-on-core 1" ""
    row ft_like-thread-on-core "$first" default "$t.ft.b:default" "$t.ft.toc:default"
    job "$t.is.toc" "$first" default is_like tnbc "--thread-on-core 1" ""
    row is_like-thread-on-core "$first" default "$t.is.b:nas" "$t.is.toc:nas"
    job "$t.isr.b" "$first" default is_like blocking "--balance ranges" ""
    job "$t.isr.t" "$first" default is_like tnbc "--balance ranges" ""
    row is_like-skewed "$first" default "$t.isr.b:ranges" "$t.isr.t:ranges"
    job "$t.no-alltoall.toc" "$first" default no_overlap tnbc "--coll alltoall --thread-on-core 1" ""
    row no_overlap-alltoall-thread-on-core "$first" default "$t.no-alltoall.b:alltoall" \
        "$t.no-alltoall.toc:alltoall"
    job "$t.no-alltoall.cp20" "$first" default no_overlap tnbc "--coll alltoall --copy-bw 20e9" ""
    row no_overlap-alltoall-copy20GBs "$first" default "$t.no-alltoall.b:alltoall" \
        "$t.no-alltoall.cp20:alltoall"
fi

# One simulation: its output in $work/runs/ID.out; fails loudly.
cat >"$work/one.sh" <<'EOF'
#!/bin/sh
set -eu
work=$1; line=$2
IFS='|' read -r id pl m prog mode args extra <<END
$line
END
cfg=
[ "$m" = eager ] && cfg=--cfg=smpi/async-small-thresh:65536
# every tnbc run leaves its trace: each rank's verdict per timed case
[ "$mode" = tnbc ] && args="$args --trace-out $work/runs/$id.trace"
t0=$(date +%s)
tm=   # the simulator's peak RSS, when GNU time is there
[ -x /usr/bin/time ] && tm="/usr/bin/time -o $work/runs/$id.rss -f %M"
# shellcheck disable=SC2086
if ! $tm smpirun -np 64 -platform "$work/plat/$pl/platform.xml" -hostfile "$work/plat/$pl/block.hosts" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/test:0 $cfg $extra --log=root.thres:warning \
        "$work/bin/$prog" "$mode" $args </dev/null >"$work/runs/$id.out" 2>&1; then
    echo "tnbc/run.sh: $id failed:" >&2; tail -n 5 "$work/runs/$id.out" >&2; exit 1
fi
if grep -q ERROR "$work/runs/$id.out" || ! grep -q '^RESULT' "$work/runs/$id.out"; then
    echo "tnbc/run.sh: $id: wrong data or no result:" >&2; grep ERROR "$work/runs/$id.out" | head -n 3 >&2; exit 1
fi
rss=
[ -s "$work/runs/$id.rss" ] && rss=", peak RSS $(( $(tail -n 1 "$work/runs/$id.rss") / 1024 )) MiB"
echo "  $id: $(( $(date +%s) - t0 )) s$rss"
EOF
chmod +x "$work/one.sh"
mkdir -p "$work/runs"
run_jobs() {   # JOBFILE
    echo "== $(wc -l <"$1") simulations, $jobs at a time (64 ranks, block, 8 per node)"
    # longest first (is_like, a2a_micro tnbc), so that the last ones are short
    { grep '|is_like|' "$1" || true; grep '|a2a_micro|tnbc|' "$1" || true
      grep -v '|is_like|' "$1" | grep -v '|a2a_micro|tnbc|' || true; } >"$1.sorted"
    tr '\n' '\0' <"$1.sorted" | xargs -0 -P "$jobs" -n 1 "$work/one.sh" "$work" ||
        die "some simulations failed (use --work DIR to keep their logs)"
}
run_jobs "$work/jobs"
# the runs that read a trace, where some rank of some case steps aside:
# --aside 1 if every case of the tnbc run is aside on every rank
: >"$work/jobs2"
while IFS='|' read -r tid id pl m prog mode args extra; do
    grep -Eq 'verdict=(aside|mixed)' "$work/runs/$tid.out" || continue
    if grep -Eq 'verdict=(keep|mixed)' "$work/runs/$tid.out"; then
        args="$args --trace-in $work/runs/$tid.trace"
    else
        args="$args --aside 1"
    fi
    echo "$id|$pl|$m|$prog|$mode|${args# }|$extra" >>"$work/jobs2"
done <"$work/jobs.traced"
# the same with the times summed over the ranks (the profile store's
# files): every rank of a case aside, or none
while IFS='|' read -r tid id pl m prog mode args extra; do
    grep -q 'agreed=aside' "$work/runs/$tid.out" || continue
    echo "$tid.ag|$pl|$m|$prog|$mode|${args# }${args:+ }--trace-in $work/runs/$tid.trace.agreed|$extra" >>"$work/jobs2"
done <"$work/jobs.traced"
[ -s "$work/jobs2" ] && run_jobs "$work/jobs2"
cat "$work/jobs2" >>"$work/jobs"

# ---- table and CSV ----------------------------------------------------------
cat "$work"/runs/*.out >"$out/runs.log"
for f in "$work"/runs/*.out; do
    id=$(basename "$f" .out)
    sed -n "s/^RESULT /$id /p" "$f"
done >"$work/results"
csv=$out/tnbc.csv
: >"$csv"
: >"$work/traced.body"
awk -v np="$np" -v csv="$csv" -v rowsfile="$work/rows" -v tr="$work/traced.body" '
    FILENAME != rowsfile {
        id = $1
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        key = id ":" v["case"]
        for (f in v) R[key, f] = v[f]
        delete v
        next
    }
    {
        split($0, r, "|")
        name = r[1]; pl = r[2]; m = r[3]; b = r[4]; t = r[5]
        if (!((b, "total") in R) || !((t, "total") in R)) {
            printf "tnbc/run.sh: no result for %s or %s\n", b, t > "/dev/stderr"
            bad = 1
            next
        }
        if (r[6] != "") {   # -traced, -agreed: the run reading the trace, if aside
            vd = R[t, r[7]]; tn = t
            if (vd != "keep") {
                split(t, tc, ":")
                t = r[6] ":" tc[2]
                if (!((t, "total") in R)) {
                    printf "tnbc/run.sh: no result for %s\n", t > "/dev/stderr"
                    bad = 1
                    next
                }
            }
            tb = R[b, "total"]
            if (r[7] == "agreed")
                printf "%-30s %-14s %10.4f %10.4f %7.1f %-7s %6s %9.4f %9.4f %10.4f %7.1f\n",
                    name, pl, tb, R[tn, "total"], 100 * (tb - R[tn, "total"]) / tb, vd,
                    vd == "aside" ? np : 0, R[tn, "sum_hidden"], R[tn, "sum_init"],
                    R[t, "total"], 100 * (tb - R[t, "total"]) / tb > tr
            else
                printf "%-30s %-14s %10.4f %10.4f %7.1f %-7s %6s %9.4f %9.4f %10.4f %7.1f\n",
                    name, pl, tb, R[tn, "total"], 100 * (tb - R[tn, "total"]) / tb, vd,
                    R[tn, "aside_ranks"], R[tn, "ovl_hidden"], R[tn, "ovl_init"],
                    R[t, "total"], 100 * (tb - R[t, "total"]) / tb > tr
        }
        tb = R[b, "total"]; tt = R[t, "total"]
        comm = tb - R[b, "work"]
        k = R[t, "calls"] > 0 ? R[t, "calls"] : 1
        cap = (comm - R[t, "coll"]) / k; cw = (R[t, "curc"] + R[t, "crc"]) / k
        ov = k * (cap < cw ? cap : cw); if (ov < 0) ov = 0
        gain = 100 * (tb - tt) / tb
        hid = comm > 0 ? 100 * (1 - (tt - R[t, "work"]) / comm) : 0
        printf "%s,%d,%s,%s,%.9g,%.9g,%.2f,%.1f,%.9g\n", name, np, pl, m, tb, tt, gain, hid, ov >> csv
        printf "%-34s %-14s %-7s %10.4f %10.4f %7.1f %7.1f %9.4f %6.1f %9.4f %9.4f\n",
            name, pl, m, tb, tt, gain, hid, ov, (comm > 0 ? 100 * ov / comm : 0),
            comm, R[t, "coll"]
    }
    END { exit bad }
' "$work/results" "$work/rows" >"$work/table.body" || die "incomplete results (see $out/runs.log)"
{
    echo "T-NBC in the judge: 64 ranks, 8 per node (block), simulated seconds (max over ranks)"
    echo "gain = 1 - t_tnbc/t_blocking; hidden = 1 - (t_tnbc - T_compute)/T_comm,"
    echo "T_comm = t_blocking - T_compute; model = the seed's T_overlap and T_overlap/T_comm"
    echo
    printf "%-34s %-14s %-7s %10s %10s %7s %7s %9s %6s %9s %9s\n" \
        program platform model t_blocking t_tnbc "gain%" "hidden%" T_overlap "model%" T_comm T_init
    cat "$work/table.body"
} >"$out/table.txt"
{ echo app,np,platform,model,t_blocking_s,t_tnbc_s,gain_pct,hidden_pct,t_overlap_model_s
  cat "$csv"; } >"$csv.tmp" && mv "$csv.tmp" "$csv"
if [ -s "$work/traced.body" ]; then
    {
        echo "Stepping aside where the trace shows nothing hidden (default model):"
        echo "-traced: each rank's own verdict (aside: all, keep: none, mixed: aside_ranks);"
        echo "  hidden, init: the trace's sums (max over ranks); t_traced: the run reading it"
        echo "-agreed: the verdict of the times summed over the ranks (the profile store's"
        echo "  files: every rank the same); hidden, init: those sums"
        echo
        printf "%-30s %-14s %10s %10s %7s %-7s %6s %9s %9s %10s %7s\n" program platform \
            t_blocking t_tnbc "gain%" verdict aside hidden init t_traced "gain%"
        cat "$work/traced.body"
    } >"$out/traced.txt"
else
    rm -f "$out/traced.txt"
fi
cat "$out/table.txt"
[ ! -s "$out/traced.txt" ] || { echo; cat "$out/traced.txt"; }
echo
echo "$me: $(wc -l <"$work/jobs") simulations, $(( $(date +%s) - start )) s of wall time;" \
    "$out/table.txt, $csv$([ ! -s "$out/traced.txt" ] || echo ", $out/traced.txt")"
[ "$keep" = 0 ] || echo "$me: build, platforms and runs kept in $work"
