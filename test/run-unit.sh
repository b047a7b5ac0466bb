#!/bin/sh
# Run every unit-test binary in BUILD/test and total cmocka's counts.
# Usage: test/run-unit.sh BUILD [LABEL]
# Prints "<label>: N passed, M failed" last; exits non-zero on any failure
# (a failed assertion, a crash, or a sanitizer report).
set -u
build=${1:-build}
label=${2:-unit}
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/test/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0; failed=0; broken=""
log=$(mktemp)
for t in "$build"/test/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    # Tests find their data relative to the source tree.
    CM_TEST_DATA=$(pwd)/test/data "$t" >"$log" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crash or sanitizer
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" -ne 0 ]; then
        broken="$broken $name"
        echo "---- $name (exit $rc) ----"; cat "$log"
    else
        echo "ok   $name: $p passed"
    fi
done
rm -f "$log"
[ -z "$broken" ] || echo "$label: failing:$broken"
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
