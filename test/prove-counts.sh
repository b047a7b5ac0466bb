# prove-counts.sh -- sourced by the suite runners (test/check.sh,
# test/stacks/check, test/pkg/check).
# shellcheck shell=sh
#
# prove_counts LOG: print "PASSED FAILED" for the prove run whose output is
# in LOG, from prove's summary ("Files=N, Tests=M", "Failed K/M subtests");
# a run without "Result: PASS" counts at least one failure (a test file
# that died before its plan).  Returns 1 when the run failed.
prove_counts() {
    pc_t=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$1")
    pc_f=$(sed -n 's/.*Failed \([0-9]*\)\/[0-9]* subtests.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
    pc_rc=0
    if ! grep -q '^Result: PASS' "$1"; then pc_rc=1; [ "$pc_f" -gt 0 ] || pc_f=1; fi
    echo "$(( ${pc_t:-0} - pc_f )) $pc_f"
    return $pc_rc
}
