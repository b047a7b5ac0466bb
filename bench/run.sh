#!/bin/sh
# bench/run.sh BUILD [mapbench options] -- run the engine benchmark
# (`make bench`).  Prints the quality table (J of every tool as ratios to
# Scotch and to block, CPU times), geometric means per family and the
# speed/memory table.  The full run (256 .. 16384 ranks) takes a few
# minutes on 2 cores; `bench/run.sh BUILD --quick` stops at 1024 ranks.
# Set MAPBENCH_65536=1 to add the 65536-rank speed row (generated patterns).
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
bin=$build/bench/mapbench
if [ ! -x "$bin" ]; then
    echo "bench/run.sh: $bin not built (make BUILD=$build benches)" >&2
    exit 1
fi
bin=$(cd "$(dirname "$bin")" && pwd)/mapbench
export OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")/.."
if [ "${MAPBENCH_65536:-0}" = 1 ]; then
    "$bin" --data test/data/matrices "$@"
    exec "$bin" --gen --sizes 65536 --max-n 65536
fi
exec "$bin" --data test/data/matrices "$@"
