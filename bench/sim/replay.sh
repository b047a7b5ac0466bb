#!/bin/sh
# replay.sh -- one replay of a time-independent trace: the judge's unit of
# work, run in parallel by `xargs -P` (bench/sim/judge).
#
#   replay.sh TRACEDIR TRACE NP HOSTFILE PLATFORM MODEL OUT
#
# Runs smpirun in TRACEDIR (the trace names its per-rank files relative to
# it), under MODEL (default: SMPI's protocol defaults; eager: small
# messages sent without waiting for the receive), and writes the simulated
# time in seconds to OUT.  On failure OUT is not written and the log is
# kept beside it as OUT.log.
set -eu
[ $# -eq 7 ] || { echo "usage: replay.sh TRACEDIR TRACE NP HOSTFILE PLATFORM MODEL OUT" >&2; exit 2; }
dir=$1 trace=$2 np=$3 hosts=$4 platform=$5 model=$6 out=$7

case $model in
    default) cfg= ;;
    eager)   cfg=--cfg=smpi/async-small-thresh:65536 ;;
    *) echo "replay.sh: unknown model '$model' (expected default or eager)" >&2; exit 2 ;;
esac

# shellcheck disable=SC2086
if ! (cd "$dir" && smpirun -np "$np" -platform "$platform" -hostfile "$hosts" \
        $cfg --log=root.thres:warning --log=smpi_replay.thres:info \
        -replay "$trace") </dev/null >"$out.log" 2>&1; then
    echo "replay.sh: smpirun failed for $hosts on $platform ($model): see $out.log" >&2
    exit 1
fi
t=$(sed -n 's/.*\[smpi_replay\/INFO\] Simulation time \([0-9.eE+-]*\).*/\1/p' "$out.log" | tail -n 1)
if [ -z "$t" ]; then
    echo "replay.sh: no 'Simulation time' in $out.log" >&2
    exit 1
fi
printf '%s\n' "$t" >"$out.tmp" && mv "$out.tmp" "$out"
rm -f "$out.log"
