#!/bin/sh
# bench/large.sh BUILD -- `make bench-large`: the engine at 65,536, 262,144
# and 1,048,576 ranks (issue 14).  For each size and each scrambled pattern
# (3-D 7-point stencil, 3-D random geometric graph of about 12 partners per
# rank, ring; bench/engine/largegen) on a 4:16:X:Y hierarchy with
# distances 1:10:100:1000 (VieM/KaHIP convention, 1,048,576 slots at the
# largest size), it runs `clustermap plan` with its default options
# (--algorithm auto; the default time budget grows with the ranks: 1 s,
# and 1 s per 131,072 ranks above that) and Scotch's static mapping
# (`--algorithm scotch`, stopped after LARGE_SCOTCH_LIMIT seconds, 600 by
# default; 0 skips it), and prints J over block's, over Scotch's, the
# proven floor over block's (`eval --bound`), wall seconds and peak memory
# (GNU time).  One core: OPENBLAS_NUM_THREADS=1, plan --threads 1.  Inputs and mappings go to
# a temporary directory (LARGE_DIR to keep them), removed at the end;
# LARGE_SIZES picks sizes.  Figures: bench/README.md, "Large inputs".
set -eu
build=${1:-build}
cm=$build/clustermap
gen=$build/bench/largegen
for f in "$cm" "$gen" /usr/bin/time; do
    [ -x "$f" ] || { echo "bench/large.sh: $f missing (make BUILD=$build benches; make deps)" >&2; exit 1; }
done
limit=${LARGE_SCOTCH_LIMIT:-600}
sizes=${LARGE_SIZES:-65536 262144 1048576}
export OPENBLAS_NUM_THREADS=1
if [ -n "${LARGE_DIR:-}" ]; then
    dir=$LARGE_DIR; mkdir -p "$dir"
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/cm-large.XXXXXX")
    trap 'rm -rf "$dir"' EXIT
fi

hierarchy() {   # ranks -> a 4:16:X:Y hierarchy with at least that many slots
    case $1 in
        65536) echo 4:16:32:32 ;;
        262144) echo 4:16:64:64 ;;
        1048576) echo 4:16:64:256 ;;
        *) echo "bench/large.sh: no hierarchy for $1 ranks" >&2; return 1 ;;
    esac
}
# timed OUT CMD...: run CMD, its stderr in OUT, then "wall_s peak_kb" lines
timed() { out=$1; shift; /usr/bin/time -f 'TIME %e %M' "$@" >/dev/null 2>"$out"; }
field() { sed -n "s/^$1=//p" "$2" | tail -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.3f", a / b }'; }

printf '%-9s %8s %9s  %7s %7s %7s %7s  %7s %6s  %8s\n' pattern ranks entries \
    auto/B S/B auto/S LB/B auto_s auto_MB scotch_s
for n in $sizes; do
    h=$(hierarchy "$n")
    for p in stencil3d rgg3d ring; do
        in=$dir/$p.$n.trip
        [ -s "$in" ] || "$gen" "$p" "$n" "$in" 2>/dev/null
        entries=$(awk 'NR > 1 && !/^#/ { c++ } END { print c + 0 }' "$in")
        machine="--hierarchy $h --distances 1:10:100:1000"
        # shellcheck disable=SC2086
        timed "$dir/auto.err" "$cm" plan --matrix "$in" $machine --threads 1 --output "$dir/auto.map" --verbose -q
        Ja=$(field J "$dir/auto.err")
        Jb=$(sed -n 's/^candidate block  *J=\([^ ]*\) .*/\1/p' "$dir/auto.err")
        set -- $(sed -n 's/^TIME //p' "$dir/auto.err")
        wall=$1 mb=$(( $2 / 1024 ))
        # shellcheck disable=SC2086
        "$cm" eval --matrix "$in" $machine --mapping "$dir/auto.map" --bound >"$dir/bound.out" 2>&1 || true
        lb=$(field lower_bound "$dir/bound.out")
        Js= ts="-"
        if [ "$limit" != 0 ]; then
            # shellcheck disable=SC2086
            if timed "$dir/scotch.err" timeout "$limit" "$cm" plan --matrix "$in" $machine \
                    --algorithm scotch --time-budget "$limit" --output "$dir/scotch.map" --verbose -q; then
                Js=$(field J "$dir/scotch.err")
                ts=$(sed -n 's/^TIME \([^ ]*\) .*/\1/p' "$dir/scotch.err")
            else
                ts=">$limit"
            fi
        fi
        printf '%-9s %8s %9s  %7s %7s %7s %7s  %7s %6s  %8s\n' "$p" "$n" "$entries" \
            "$(ratio "$Ja" "$Jb")" "$(ratio "$Js" "$Jb")" "$(ratio "$Ja" "$Js")" \
            "$(ratio "$lb" "$Jb")" "$wall" "$mb" "$ts"
    done
done
