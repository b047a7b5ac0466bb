#!/bin/sh
test_description='text from users is escaped where root reads it

A job name, a file name in the store or an explain record holds whatever
the user put there: escape sequences, a newline and a fake log line.
profile list, show, import, prune (whose output cron mails to root),
explain and the error lines print it escaped (\x1b, \n), never as the
raw bytes, and a newline in it never starts a line of its own.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

CLUSTERMAP_STORE=$PWD/store
export CLUSTERMAP_STORE
unset CLUSTERMAP_FAULT_INJECT
U=$CLUSTERMAP_STORE/$(id -u)
ESC=$(printf '\033')
CSI=$(printf '\302\233')
# the name: clear the screen, then a line that looks like slurmd's
NAME=$(printf 'evil\033[2J\nslurmd: error: fake')
SHOWN='evil\x1b[2J\nslurmd: error: fake'

# line_count N FILE: FILE has N lines.
line_count() {
    test "$(wc -l <"$2")" -eq "$1" || {
        echo "$2: $(wc -l <"$2") lines, expected $1" >&2
        false
    }
}

# no_raw FILE: no control byte but newline, no DEL, no C1 control in FILE.
no_raw() {
    test "$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$1" | wc -c)" -eq 0 &&
    ! grep -q "$CSI" "$1" || {
        echo "raw control bytes in $1:" >&2
        od -c "$1" | head -n 20 >&2
        false
    }
}

test_expect_success 'import names the profile escaped' '
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name "$NAME" >out &&
    no_raw out &&
    line_count 1 out &&
    grep -F "as '\''$SHOWN'\'' with 16 tasks" out
'

test_expect_success 'profile list prints the name escaped, on its one line' '
    cm_run profile list >out &&
    no_raw out &&
    line_count 2 out &&
    grep -F "$SHOWN" out &&
    ! grep "^slurmd" out
'

test_expect_success 'profile show prints the name escaped' '
    cm_run profile show "$NAME" --ntasks 16 >out &&
    no_raw out &&
    grep -Fx "job_name=$SHOWN" out &&
    ! grep "^slurmd" out
'

test_expect_success 'prune (dry run and real) prints the name escaped' '
    later=$(($(date +%s) + 2 * 86400)) &&
    cm_run profile prune --unused-for 1 --now "$later" --dry-run >out &&
    no_raw out &&
    grep -F "would remove $SHOWN with 16 tasks of " out &&
    ! grep "^slurmd" out &&
    cm_run profile prune --unused-for 1 --now "$later" >out &&
    no_raw out &&
    grep -F "removed $SHOWN with 16 tasks of " out &&
    test "$(tail -n 1 out)" = "removed 1 profile ($(grep -o "[0-9]* bytes)$" out | head -n 1)" &&
    cm_run profile list >out &&
    line_count 1 out
'

test_expect_success 'error lines name a file of the store escaped' '
    printf junk >"$U/bad${ESC}[2J.16.json" &&
    chmod 600 "$U/bad${ESC}[2J.16.json" &&
    test_expect_code 1 "$CLUSTERMAP" profile list >out 2>err &&
    no_raw err &&
    grep -F "skipping $U/bad\x1b[2J.16.json: " err &&
    rm -f "$U/bad${ESC}[2J.16.json"
'

test_expect_success 'a run history with escapes in it: the error is escaped' '
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name hist >/dev/null &&
    printf "clustermap-runs 1\n7.0 %s placed scotch \033]0;pwn\007 10 20 2 1.8 1 0.5\n" \
        "$(date +%s)" >"$U/hist.16.json.runs" &&
    chmod 600 "$U/hist.16.json.runs" &&
    test_expect_code 1 "$CLUSTERMAP" profile show hist --ntasks 16 >out 2>err &&
    no_raw err &&
    grep -F "\x1b]0;pwn\x07" err
'

test_expect_success 'explain prints the record escaped, line by line' '
    printf "clustermap-explain 1\njob=x\033[2J\nplaced${CSI}=yes\ttab\r\nnodes=1 of 1\n" \
        >"$U/.explain.7.0" &&
    chmod 600 "$U/.explain.7.0" &&
    cm_run explain 7.0 >out &&
    no_raw out &&
    grep -Fx "job=x\x1b[2J" out &&
    grep -Fx "placed\xc2\x9b=yes\ttab\r" out &&
    grep -Fx "nodes=1 of 1" out &&
    line_count 5 out
'

test_done
