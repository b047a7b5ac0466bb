#!/bin/sh
test_description='clustermap profile prune: retention by last update and
last use (run history), dry runs, side files, all users, usage errors; and
the SIZE and LAST-USE columns of profile list'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

CLUSTERMAP_STORE=$PWD/store
export CLUSTERMAP_STORE
unset CLUSTERMAP_FAULT_INJECT
me=$(id -u)
U=$CLUSTERMAP_STORE/$me
DAY=86400
# Profiles are imported now (T0); prune then judges "as if the time were"
# --now, days later.
T0=$(date +%s)
at() { echo $((T0 + $1 * DAY)); }

# runs_file WHEN: a run history with one timed run that ended at WHEN.
runs_file() {
    printf 'clustermap-runs 1\n7.0 %s placed scotch halo 10 20 2.000000 1.800000 1.000000 0.500000\n' "$1"
}

# fill: profiles "idle" (no run since import, a no-MPI mark) and "timed"
# (a run 150 days after import), both with 16 tasks; any old ones go.
fill() {
    rm -rf "$CLUSTERMAP_STORE" &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name idle >/dev/null &&
    cm_run profile import "$CM_MATRICES/mg.S.16.mtx" --job-name timed >/dev/null &&
    : >"$U/idle.16.json.nompi" &&
    runs_file "$(at 150)" >"$U/timed.16.json.runs" &&
    chmod 600 "$U/idle.16.json.nompi" "$U/timed.16.json.runs"
}

test_expect_success 'prune --help exits 0 and documents the options' '
    cm_run profile prune --help >out &&
    grep "^Usage: clustermap profile prune" out &&
    for o in --older-than --unused-for --dry-run --all-users --now; do
        grep -e "$o" out || return 1
    done
'

test_expect_success 'bad values are usage errors naming the option' '
    test_expect_code 2 "$CLUSTERMAP" profile prune 2>err &&
    grep "missing --older-than DAYS or --unused-for DAYS" err &&
    for v in -1 1.5 x "" 100001; do
        test_expect_code 2 "$CLUSTERMAP" profile prune --older-than "$v" 2>err &&
        grep -e "--older-than .$v.: expected a whole number of days" err &&
        test_expect_code 2 "$CLUSTERMAP" profile prune --unused-for "$v" 2>err &&
        grep -e "--unused-for .$v.: expected a whole number of days" err || return 1
    done &&
    test_expect_code 2 "$CLUSTERMAP" profile prune --unused-for 1 --now soon 2>err &&
    grep -e "--now .soon.: expected seconds since 1970" err &&
    test_expect_code 2 "$CLUSTERMAP" profile prune --unused-for 1 --all-users --user 0 2>err &&
    grep "exclude each other" err &&
    test_expect_code 2 "$CLUSTERMAP" profile list --dry-run 2>err &&
    grep -e "--dry-run. does not apply to .list." err
'

test_expect_success 'list shows SIZE (profile and side files) and LAST-USE' '
    fill &&
    cm_run profile list >out &&
    head -n 1 out | grep "^NAME  *NTASKS  *RUNS  *LAST-UPDATE  *LAST-USE  *SIZE  *BYTES  *PROGRAM$" &&
    size=$(($(stat -c %s "$U/timed.16.json") + $(stat -c %s "$U/timed.16.json.runs"))) &&
    used=$(date -u -d "@$(at 150)" +%Y-%m-%dT%H:%M:%SZ) &&
    grep "^timed  *16  *1 [^ ]* $used $size .* -$" out &&
    size=$(stat -c %s "$U/idle.16.json") &&
    grep "^idle  *16  *1 \([^ ]*\) \1 $size .* -$" out
'

test_expect_success 'dry run lists what would go and removes nothing' '
    fill &&
    ls "$U" >before &&
    cm_run profile prune --unused-for 180 --now "$(at 200)" --dry-run >out &&
    grep "^would remove idle with 16 tasks of [^ ]* (last used .*, [0-9]* bytes)$" out &&
    ! grep timed out &&
    test "$(tail -n 1 out)" = "would remove 1 profile ($(stat -c %s "$U/idle.16.json") bytes)" &&
    ls "$U" >after &&
    test_cmp before after
'

test_expect_success 'by last use: a profile still being run (timed runs) stays' '
    fill &&
    size=$(stat -c %s "$U/idle.16.json") &&
    cm_run profile prune --unused-for 180 --now "$(at 200)" >out &&
    grep "^removed idle with 16 tasks of [^ ]* (last used .*, $size bytes)$" out &&
    test "$(tail -n 1 out)" = "removed 1 profile ($size bytes)" &&
    ! test -e "$U/idle.16.json" &&
    ! test -e "$U/idle.16.json.nompi" &&
    test -e "$U/timed.16.json" &&
    test -e "$U/timed.16.json.runs" &&
    cm_run profile show timed --ntasks 16 >show &&
    test "$(cm_value history.runs show)" = 1
'

test_expect_success 'by last update: the run does not count; history goes too' '
    fill &&
    cm_run profile prune --older-than 180 --now "$(at 200)" >out &&
    grep "^removed idle with 16 tasks" out &&
    grep "^removed timed with 16 tasks" out &&
    test "$(tail -n 1 out | cut -d" " -f1-3)" = "removed 2 profiles" &&
    ! ls "$U" | grep "json"
'

test_expect_success 'both conditions must hold; a young store loses nothing' '
    fill &&
    cm_run profile prune --older-than 180 --unused-for 180 --now "$(at 200)" >out &&
    grep "^removed idle" out && ! grep timed out &&
    fill &&
    cm_run profile prune --older-than 30 --unused-for 30 >out &&
    test "$(cat out)" = "removed 0 profiles (0 bytes)" &&
    test -e "$U/idle.16.json" && test -e "$U/timed.16.json"
'

test_expect_success 'an invalid profile is kept, named, and the exit status is 1' '
    fill &&
    sed "s/1171712/1171713/" "$U/idle.16.json" >edited &&
    ! cmp -s edited "$U/idle.16.json" &&
    cat edited >"$U/idle.16.json" &&
    test_expect_code 1 "$CLUSTERMAP" profile prune --older-than 180 --now "$(at 200)" >out 2>err &&
    grep "idle.16.json: field .checksum.*; not pruned" err &&
    grep "^removed timed" out &&
    test "$(tail -n 1 out | cut -d" " -f1-3)" = "removed 1 profile" &&
    test -e "$U/idle.16.json"
'

test_expect_success 'an empty or missing store prunes nothing' '
    rm -rf "$CLUSTERMAP_STORE" &&
    cm_run profile prune --unused-for 1 >out &&
    test "$(cat out)" = "removed 0 profiles (0 bytes)"
'

if test "$me" = 0 && command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CLUSTERMAP" 2>/dev/null
then
    test_set_prereq SETPRIV
fi

test_expect_success SETPRIV '--all-users is refused to other users than root' '
    fill &&
    test_expect_code 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$CLUSTERMAP" profile prune --all-users --unused-for 1 2>err &&
    grep "permission denied: only root may prune the profiles of all users" err &&
    test_expect_code 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$CLUSTERMAP" profile prune --user 0 --unused-for 1 2>err &&
    grep "permission denied: only root may write the profiles of uid 0" err &&
    test -e "$U/idle.16.json"
'

test_expect_success SETPRIV 'root prunes every user, opening each directory safely' '
    fill &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name theirs --user 4001 >/dev/null &&
    test "$(stat -c %u "$CLUSTERMAP_STORE/4001")" = 4001 &&
    mkdir -m 700 "$CLUSTERMAP_STORE/4002" &&
    mkdir -m 700 "$CLUSTERMAP_STORE/not-a-uid" &&
    test_expect_code 1 "$CLUSTERMAP" profile prune --all-users --unused-for 180 \
        --now "$(at 200)" >out 2>err &&
    grep "^removed idle with 16 tasks of" out &&
    grep "^removed theirs with 16 tasks of [^ ]* (last used" out &&
    ! grep timed out &&
    test "$(tail -n 1 out | cut -d" " -f1-3)" = "removed 2 profiles" &&
    grep "store/4002: owned by uid 0, expected uid 4002" err &&
    ! grep not-a-uid err &&
    ! test -e "$CLUSTERMAP_STORE/4001/theirs.16.json" &&
    test -e "$U/timed.16.json"
'

# A user can hold the flock of their own .lock for ever (here a process
# holds it for them): root's prune waits CM_STORE_LOCK_WAIT_MS (5 s) for
# it, skips that user with one line and prunes the others.
test_expect_success SETPRIV 'a held .lock: that user is skipped within the bound, with one line; the others are pruned' '
    fill &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name theirs --user 4001 >/dev/null &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name later --user 4003 >/dev/null &&
    lock=$CLUSTERMAP_STORE/4001/.lock &&
    test "$(stat -c %u "$lock")" = 4001 || return 1
    # one process holding the lock: killing it frees the lock
    perl -e '"'"'use Fcntl ":flock"; open(F, "<", $ARGV[0]) && flock(F, LOCK_EX) or die; sleep 120'"'"' \
        "$lock" </dev/null >/dev/null 2>&1 &
    holder=$!
    test_when_finished "kill $holder 2>/dev/null || :" &&
    n=0 &&
    while flock -n "$lock" true; do
        n=$((n + 1)) && test $n -lt 100 && sleep 0.1 || return 1
    done &&
    start=$(date +%s) &&
    test_expect_code 1 "$CLUSTERMAP" profile prune --all-users --unused-for 180 \
        --now "$(at 200)" >out 2>err &&
    took=$(($(date +%s) - start)) &&
    say "prune with a held lock took ${took}s" &&
    test $took -le 15 &&
    test "$(wc -l <err)" = 1 &&
    grep "^clustermap profile prune: .*/store/4001/\.lock: held by another process for more than 5\.0 s; the profiles of [^ ]* (uid 4001) are not pruned this time$" err &&
    grep "^removed idle with 16 tasks of" out &&
    grep "^removed later with 16 tasks of" out &&
    tail -n 1 out | grep "^removed 2 profiles ([0-9]* bytes); 1 user skipped (lock held)$" &&
    test -e "$CLUSTERMAP_STORE/4001/theirs.16.json" &&
    ! test -e "$CLUSTERMAP_STORE/4003/later.16.json" &&
    kill $holder &&
    cm_run profile prune --all-users --unused-for 180 --now "$(at 200)" >out &&
    grep "^removed theirs with 16 tasks of" out &&
    ! test -e "$CLUSTERMAP_STORE/4001/theirs.16.json"
'

# Root gives .lock to the user: what it finds there must be the user's
# regular file with one link, else root refuses it and changes nothing.
test_expect_success SETPRIV 'a hard link as .lock: refused with one line, the linked file stays root'"'"'s' '
    fill &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name theirs --user 4001 >/dev/null &&
    echo root >rootfile && chmod 600 rootfile &&
    rm -f "$CLUSTERMAP_STORE/4001/.lock" &&
    ln rootfile "$CLUSTERMAP_STORE/4001/.lock" &&
    test_expect_code 1 "$CLUSTERMAP" profile prune --all-users --unused-for 180 \
        --now "$(at 200)" >out 2>err &&
    test "$(wc -l <err)" = 1 &&
    grep "store/4001/\.lock: expected a file with one link, got 2 links (a hard link to another file); refusing to use it" err &&
    test "$(stat -c %u rootfile)" = 0 &&
    test -e "$CLUSTERMAP_STORE/4001/theirs.16.json" &&
    grep "^removed idle with 16 tasks of" out
'

test_done
