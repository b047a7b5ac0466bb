#!/bin/sh
test_description='progress on a terminal: a long plan says what it is doing
on stderr, rewritten in place and erased at the end; --quiet and a stderr
that is not a terminal get nothing; a short command stays silent'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

export OPENBLAS_NUM_THREADS=1
if command -v script >/dev/null 2>&1; then
    test_set_prereq SCRIPT
fi

. "$SHARNESS_TEST_DIRECTORY/lib/diag.sh"

# on_tty OUT CMD...: run CMD with a pseudo-terminal as stdin, stdout and
# stderr (util-linux script), everything it wrote in OUT
on_tty() {
    out=$1; shift
    script -qec "$*" /dev/null >"$out" </dev/null
}

# A 64000-rank 3-D stencil: auto with an 8 s budget computes for some 5 s
# (a 4 s budget took 1.9 s of CPU: under 2 s on an idle machine).
test_expect_success 'a 64000-rank stencil' '
    awk "BEGIN { N = 40
        for (x = 0; x < N; x++) for (y = 0; y < N; y++) for (z = 0; z < N; z++) {
            i = (x * N + y) * N + z
            if (x + 1 < N) { print i, i + N * N, 1000; print i + N * N, i, 1000 }
            if (y + 1 < N) { print i, i + N, 1000; print i + N, i, 1000 }
            if (z + 1 < N) { print i, i + 1, 1000; print i + 1, i, 1000 } } }" >big.trip &&
    test "$(wc -l <big.trip)" -eq 374400
'

PLAN="$CLUSTERMAP plan --matrix big.trip --format triplets --hierarchy 16:2:50:40 \
--distances 1:2:10:100 --time-budget 8"

test_expect_success SCRIPT 'on a terminal: the phases after 2 s, then erased' '
    { on_tty tty.out "$PLAN --output tty.map" || { echo "# on_tty: exit $?" >&7; diag tty.out; }; } &&
    tr "\r" "\n" <tty.out >tty.lines &&
    { test "$(wc -l <tty.map)" -eq 64000 &&
      grep -E "^clustermap plan: (reading|planning: )[^,]*, ([2-9]|[1-9][0-9]+)[.][0-9] s *$" tty.lines &&
      ! grep -E "^clustermap plan: .*, [01][.][0-9] s" tty.lines &&
      # the last thing written is the erase: a line of blanks
      awk "length > 0 { last = \$0 } END { exit !(last ~ /^ +\$/) }" tty.lines ||
      diag tty.lines; }
'

test_expect_success SCRIPT '--quiet on a terminal: nothing' '
    on_tty quiet.out "$PLAN --quiet --output quiet.map" &&
    test "$(wc -l <quiet.map)" -eq 64000 &&
    ! grep "clustermap plan" quiet.out
'

test_expect_success 'stderr not a terminal: nothing' '
    $PLAN --time-budget 2 --output file.map 2>file.err &&
    test_must_be_empty file.err
'

test_expect_success SCRIPT 'a command done within 2 s: nothing' '
    on_tty short.out "$CLUSTERMAP eval --matrix big.trip --format triplets \
        --hierarchy 16:2:50:40 --distances 1:2:10:100 --mapping block" &&
    grep "^J=" short.out &&
    ! grep "clustermap eval:" short.out
'

test_done
