#!/bin/sh
test_description='the C sources follow .clang-format

Every C file of src/ and test/unit/ is formatted as clang-format 14 does it
with the project'"'"'s .clang-format, except the files written before the
style was set down, listed in test/format-pending.txt until someone
reformats them.  The list only shrinks: a listed file that is already
formatted must leave it, and a listed file must exist.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

PENDING=$CM_ROOT/test/format-pending.txt

if command -v clang-format >/dev/null &&
   clang-format --version | grep -q "version 14\."
then
    test_set_prereq FORMAT
else
    say "skipping: clang-format 14 is missing (scripts/debian-packages.txt installs it)"
fi

# formatted FILE: FILE is as clang-format would write it.
formatted() {
    (cd "$CM_ROOT" && clang-format --style=file --dry-run -Werror "$1") 2>/dev/null
}

test_expect_success FORMAT 'the sources are listed' '
    (cd "$CM_ROOT" && ls src/*/*.c src/*/*.h test/unit/*.c test/unit/lib/*.[ch]) >sources &&
    test $(wc -l <sources) -gt 100 &&
    grep -v "^#" "$PENDING" | sed "/^$/d" >pending
'

test_expect_success FORMAT 'every file not pending is formatted' '
    : >unformatted &&
    while read -r f; do
        grep -qxF "$f" pending || formatted "$f" || echo "$f" >>unformatted
    done <sources &&
    { test ! -s unformatted ||
      { sed "s/^/not formatted (clang-format -i it): /" unformatted >&2; false; }; }
'

test_expect_success FORMAT 'every pending file exists and is not yet formatted' '
    : >stale &&
    while read -r f; do
        if ! test -f "$CM_ROOT/$f"; then echo "$f: no such file" >>stale
        elif formatted "$f"; then echo "$f: formatted, take it off the list" >>stale
        fi
    done <pending &&
    { test ! -s stale || { cat stale >&2; false; }; }
'

test_expect_success FORMAT 'a badly formatted file is caught' '
    printf "int  f( void ){return 0;}\n" >bad.c &&
    cp "$CM_ROOT/.clang-format" . &&
    test_must_fail clang-format --style=file --dry-run -Werror bad.c 2>/dev/null
'

test_done
