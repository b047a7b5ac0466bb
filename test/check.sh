#!/bin/sh
# The whole test suite: what `make check` and .ci/run execute.
#  1. build everything, the unit tests and the benchmarks, run the unit tests;
#  2. rebuild the unit tests with -fsanitize=address,undefined and run them;
#  3. run the shell tests (sharness, TAP through prove): CLI, profiles, and
#     the integration tests on the virtual Slurm cluster;
#  4. build against the newer Slurm / Open MPI stacks and run the profiler
#     and integration tests inside each (test/stacks/check);
#  5. build the Debian packages, install them into a fresh root and run a
#     profiled and a placed job from the installed files (test/pkg/check).
# Ends with one line "check: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
total_p=0; total_f=0; status=0

count() {   # add "label: N passed, M failed" of a log to the totals
    line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    total_p=$((total_p + ${p:-0})); total_f=$((total_f + ${f:-0}))
}

. test/prove-counts.sh
log=$(mktemp -d)
echo "== build"
if ! make -s -j"$jobs" tests benches; then echo "check: build failed"; echo "check: 0 passed, 1 failed"; exit 1; fi

echo "== unit tests"
test/run-unit.sh build unit | tee "$log/unit"; [ $? -eq 0 ] || status=1
count "$log/unit"

echo "== unit tests under ASan/UBSan"
if make -s -j"$jobs" BUILD=build/asan SAN=1 tests; then
    test/run-unit.sh build/asan asan | tee "$log/asan"; [ $? -eq 0 ] || status=1
    count "$log/asan"
else
    echo "asan: build failed"; status=1; total_f=$((total_f + 1))
fi

echo "== shell tests"
shtests=$(ls test/sh/t*.t 2>/dev/null)
if [ -n "$shtests" ]; then
    # shellcheck disable=SC2086
    prove -f --timer $shtests 2>&1 | tee "$log/sh"
    counts=$(prove_counts "$log/sh") || status=1
    echo "sh: ${counts% *} passed, ${counts#* } failed" | tee -a "$log/sh2"
    count "$log/sh2"
fi
# suite LABEL VAR SCRIPT: run SCRIPT (a runner that ends with "LABEL: N
# passed, M failed") unless the variable named VAR is "none" or this is not
# root (it needs chroot and namespaces), adding its counts.
suite() {
    eval "skip=\${$2:-}"
    if [ "$skip" = none ]; then
        echo "$1: skipped ($2=none)"
    elif [ "$(id -u)" -ne 0 ]; then
        echo "$1: skipped (needs root: chroot, namespaces)"
    else
        # the pipeline's status is tee's: the runner's own is kept in a file
        { "$3" 2>&1; echo $? >"$log/$1.rc"; } | tee "$log/$1"
        [ "$(cat "$log/$1.rc")" = 0 ] || status=1
        count "$log/$1"
    fi
}
echo "== stacks (Slurm 24.11 / Open MPI 5.0, Slurm 26.05 / Open MPI 6.0)"
# The profiler and integration tests again, built against and run inside
# each newer stack (test/stacks/README.md); CM_STACKS=none skips them.
suite stacks CM_STACKS test/stacks/check
echo "== Debian packages (built, installed into a fresh root, a placed job)"
# test/pkg/README.md; CM_PACKAGE=none skips it.
suite package CM_PACKAGE test/pkg/check
rm -rf "$log"
echo "check: $total_p passed, $total_f failed"
[ "$total_f" -eq 0 ] || status=1
exit $status
