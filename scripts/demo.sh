#!/bin/sh
# demo.sh BUILD_DIR -- the clustermap demo (`make demo`).
#
# For now the offline planner demo: real communication matrices of NAS and
# LAMMPS runs, a hierarchical machine described VieM-style, every baseline
# placement planned with `clustermap plan`, read back and costed with
# `clustermap eval`, and a table of J and J/J_block.  Exits non-zero as soon
# as any command fails.
#
# Structure: run_case() plans and evaluates one matrix on one machine and
# prints its table rows; main() lists the cases.  The Slurm version of the
# demo replaces the machine options (--slurm-conf/--nodelist) and adds a
# job step per case without touching the table code.
set -eu

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in
/*) cm=$build/clustermap ;;
*) cm=$root/$build/clustermap ;;
esac
matrices=$root/test/data/matrices
distances=1:2:10:20
algorithms="block cyclic random scotch"
seed=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
    echo "demo: $*" >&2
    exit 1
}

# plan_and_eval MATRIX ALGORITHM MACHINE-OPTIONS...: plan a mapping into a
# file, evaluate that file, print its J.
plan_and_eval() {
    matrix=$1 algorithm=$2; shift 2
    map=$work/$(basename "$matrix" .mtx).$algorithm.map
    "$cm" plan --matrix "$matrix" "$@" --algorithm "$algorithm" --seed "$seed" \
        --output "$map" || fail "clustermap plan failed ($algorithm on $matrix)"
    "$cm" eval --matrix "$matrix" "$@" --mapping "$map" >"$map.eval" ||
        fail "clustermap eval failed ($algorithm on $matrix)"
    sed -n 's/^J=//p' "$map.eval"
}

print_header() {
    printf '%-20s %-9s %-9s %16s %10s\n' matrix machine algorithm J J/J_block
}

# run_case NAME HIERARCHY: one row per algorithm.
run_case() {
    name=$1 hierarchy=$2
    matrix=$matrices/$name.mtx
    [ -r "$matrix" ] || fail "missing matrix $matrix"
    jblock=
    for algorithm in $algorithms; do
        j=$(plan_and_eval "$matrix" "$algorithm" \
              --hierarchy "$hierarchy" --distances "$distances") || exit 1
        [ -n "$j" ] || fail "no J for $algorithm on $name"
        [ -n "$jblock" ] || jblock=$j
        awk -v n="$name" -v h="$hierarchy" -v a="$algorithm" -v j="$j" -v b="$jblock" \
            'BEGIN { printf "%-20s %-9s %-9s %16s %10.3f\n", n, h, a, j, (b > 0 ? j / b : 1) }'
    done
}

main() {
    [ -x "$cm" ] || fail "$cm not built (run make)"
    echo "clustermap demo: offline planning, distances $distances (socket:node:switch:cluster), seed $seed"
    print_header
    run_case cg.S.64 4:2:4:2
    run_case mg.S.64 4:2:4:2
    run_case lammps.peptide.64 4:2:4:2
    run_case ft.S.128 4:2:8:2
    echo "demo: ok"
}

main
