#!/bin/sh
test_description='--output replaces nothing but a regular file of the caller

Every command that writes --output FILE (plan, profile show in each format,
profile export) refuses a symbolic link, a FIFO, a directory, a device and,
for root, a file of another user, with exit 1, a message naming the path and
what it is, and no trace left; it keeps the mode of a file it replaces.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

M=$CM_MATRICES/cg.S.16.mtx
H="--hierarchy 4:2:2 --distances 1:2:10"
CLUSTERMAP_STORE=$PWD/store
export CLUSTERMAP_STORE
unset CLUSTERMAP_FAULT_INJECT

KINDS="plan show show-mtx show-triplets show-json export"
HINT=" (use --output - for standard output)"

# write_to KIND TARGET: run the command of KIND with --output TARGET.  The
# timeout turns a command stuck opening a FIFO into a failure.
write_to() {
    case $1 in
    plan) set -- "$2" plan --matrix "$M" $H --algorithm block ;;
    show) set -- "$2" profile show cg --ntasks 16 ;;
    show-*) set -- "$2" profile show cg --ntasks 16 --format "${1#show-}" ;;
    export) set -- "$2" profile export cg --ntasks 16 ;;
    esac
    target=$1; shift
    timeout 60 "$CLUSTERMAP" "$@" --output "$target"
}

# cmd_of KIND: the command name its messages start with.
cmd_of() {
    case $1 in
    plan) echo plan ;;
    export) echo "profile export" ;;
    *) echo "profile show" ;;
    esac
}

# state TARGET: what a refusal must leave as it was: the entries of TARGET's
# directory with type, mode, owner, size and time (in /dev, which other
# processes change, only those named like TARGET, temporaries included).
state() {
    if test "$(dirname "$1")" = /dev
    then ls -lAn /dev | grep " $(basename "$1")"
    else ls -lAn "$(dirname "$1")"
    fi
}

# refuses KIND TARGET WHAT [HINT]: --output TARGET exits 1, prints nothing on
# stdout and exactly "clustermap CMD: TARGET: WHAT; refusing to replace
# itHINT" on stderr, and changes nothing.
refuses() {
    state "$2" >state.before &&
    test_expect_code 1 write_to "$1" "$2" >out 2>err &&
    test_must_be_empty out &&
    echo "clustermap $(cmd_of "$1"): $2: $3; refusing to replace it$4" >expect.err &&
    test_cmp expect.err err &&
    state "$2" >state.after &&
    test_cmp state.before state.after
}

# whose UID: how messages name the owner of a file.
whose() {
    name=$(getent passwd "$1" | cut -d: -f1)
    if test -n "$name"; then echo "$name (uid $1)"; else echo "uid $1"; fi
}

test "$(id -u)" = 0 && test_set_prereq ROOT

# The device and the standard output link the tests aim at.  A regression
# run by root would replace them, so root aims at copies of its own (the
# same kinds of node: character device 1,3 and a link to /proc/self/fd/1),
# skipping when it cannot make them; other users cannot replace anything in
# /dev and aim at the real ones.
if test "$(id -u)" != 0
then
    NULLDEV=/dev/null STDOUT_LINK=/dev/stdout
    test_set_prereq DEVICES
elif mkdir dev && mknod -m 666 dev/null c 1 3 2>/dev/null &&
     ln -s /proc/self/fd/1 dev/stdout
then
    NULLDEV=dev/null STDOUT_LINK=dev/stdout
    test_set_prereq DEVICES
fi

test_expect_success 'setup: a stored profile; what each command writes to -' '
    cm_run profile import "$M" --job-name cg >/dev/null &&
    for k in $KINDS; do
        write_to $k - >expect.$k 2>err &&
        test_must_be_empty err &&
        test -s expect.$k || return 1
    done
'

for k in $KINDS; do
    test_expect_success "$k: a new file gets 0666 & ~umask" '
        rm -rf w && mkdir w &&
        (umask 027 && write_to $k w/new >out 2>err) &&
        test_must_be_empty out && test_must_be_empty err &&
        test_cmp expect.$k w/new &&
        test "$(stat -c %a w/new)" = 640 &&
        test "$(ls -A w)" = new
    '

    test_expect_success "$k: an existing 0640 file is replaced and keeps its mode" '
        rm -rf w && mkdir w && echo old >w/f && chmod 640 w/f &&
        write_to $k w/f >out 2>err &&
        test_must_be_empty out && test_must_be_empty err &&
        test_cmp expect.$k w/f &&
        test "$(stat -c "%a %F" w/f)" = "640 regular file" &&
        test "$(ls -A w)" = f
    '

    test_expect_success "$k: a symbolic link to a regular file is refused" '
        rm -rf w && mkdir w && echo old >w/real && ln -s real w/link &&
        refuses $k w/link "not a regular file (a symbolic link)" "$HINT" &&
        test -h w/link && test "$(cat w/real)" = old
    '

    test_expect_success DEVICES "$k: /dev/stdout by name is refused" '
        refuses $k $STDOUT_LINK "not a regular file (a symbolic link)" "$HINT" &&
        test "$(readlink $STDOUT_LINK)" = /proc/self/fd/1
    '

    test_expect_success "$k: a FIFO is refused, not opened" '
        rm -rf w && mkdir w && mkfifo w/fifo &&
        refuses $k w/fifo "not a regular file (a FIFO)" "$HINT" &&
        test -p w/fifo
    '

    test_expect_success "$k: a directory is refused" '
        rm -rf w && mkdir w w/dir &&
        refuses $k w/dir "not a regular file (a directory)" &&
        test -d w/dir && test -z "$(ls -A w/dir)"
    '

    test_expect_success DEVICES "$k: /dev/null is refused and stays a character device" '
        refuses $k $NULLDEV "not a regular file (a character device)" "$HINT" &&
        test -c $NULLDEV
    '

    test_expect_success ROOT "$k: root refuses to replace a file of another user" '
        rm -rf w && mkdir w && echo old >w/theirs && chown 65534 w/theirs &&
        refuses $k w/theirs "owned by $(whose 65534), not by $(whose 0) who runs this" &&
        test "$(stat -c %u w/theirs)" = 65534 &&
        test "$(cat w/theirs)" = old
    '
done

test_expect_success 'a directory reached through a symbolic link is refused' '
    rm -rf w && mkdir w w/real && ln -s real w/link &&
    state w/link/x >state.before &&
    test_expect_code 1 write_to plan w/link/x 2>err &&
    grep -x "clustermap plan: w/link/x: its directory w/link is a symbolic link; refusing to follow it (name the directory it points to)" err &&
    state w/link/x >state.after &&
    test_cmp state.before state.after &&
    test -z "$(ls -A w/real)"
'

if test "$(id -u)" = 0 && mkdir small && mount -t tmpfs -o size=16k tmpfs small 2>/dev/null
then
    test_set_prereq TMPFS
fi

test_expect_success TMPFS 'a full disk keeps the old file and leaves no temporary' '
    test_when_finished "umount small" &&
    echo old >small/f &&
    { dd if=/dev/zero of=small/filler bs=1k 2>/dev/null; true; } &&
    for k in plan export; do
        test_expect_code 1 write_to $k small/f 2>err &&
        grep "^clustermap $(cmd_of $k): small/f: cannot write: No space left on device (temporary file removed)$" err &&
        test "$(cat small/f)" = old &&
        test "$(ls -A small | sort | tr "\n" " ")" = "f filler " || return 1
    done
'

test_done
