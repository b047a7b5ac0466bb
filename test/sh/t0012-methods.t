#!/bin/sh
test_description='the placement methods: the documentation names every one

The engine'"'"'s method table (src/core/plan_methods.c) is what the command
lists under plan --help; clustermap.1 (--algorithm, both ways),
clustermap_spank.8 and docs/admin-guide.md (algorithm=) and
docs/design.md must name each of them, and the command'"'"'s other lists
(its Usage: line, eval and render --help) must be the same.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
if test -z "${CLUSTERMAP:-}" && test -n "${CLUSTERMAP_BUILD:-}"
then CLUSTERMAP=$CLUSTERMAP_BUILD/clustermap
fi
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

MAN1=$CM_ROOT/docs/man/clustermap.1
MAN8=$CM_ROOT/docs/man/clustermap_spank.8
GUIDE=$CM_ROOT/docs/admin-guide.md
DESIGN=$CM_ROOT/docs/design.md

# listed FILE: the methods a --help text lists under --algorithm or
# --mapping, one a line, in its order (the lines indented 4 blanks that
# follow the option's line).
listed() {
    awk '/^  --(algorithm|mapping) / { on = 1; next }
         on && /^    [a-z]/ { print $1; next }
         { on = 0 }' "$1"
}

# roff_text FILE: the page with groff's \- as -, without font escapes.
roff_text() {
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$1"
}

# paragraph TAG: the .TP paragraph of a roff_text page (stdin) whose tag
# line starts with TAG, up to the next .TP, .PP or .SH.
paragraph() {
    awk -v tag="$1" '/^\.(TP|PP|SH)/ { on = 0 }
                     index($0, tag) == 1 { on = 1 }
                     on'
}

# named WORDS FILE WHERE: each of WORDS is a word of FILE; say which are not.
named() {
    rc=0
    for w in $1; do
        grep -qw -- "$w" "$2" || { echo "$3: no method $w" >&2; rc=1; }
    done
    return $rc
}

test_expect_success 'plan --help lists the methods, and its Usage: line the same' '
    cm_run plan --help >help.plan &&
    listed help.plan >methods &&
    test $(wc -l <methods) -ge 8 &&
    sort methods | uniq -d >dups &&
    test_must_be_empty dups &&
    sed -n "s/.*\[--algorithm \([a-z|-]*\)\].*/\1/p" help.plan | tr "|" "\n" >usage &&
    test_cmp methods usage
'

test_expect_success 'eval and render --help list the same methods' '
    cm_run eval --help >help.eval &&
    cm_run render --help >help.render &&
    listed help.eval >eval.methods &&
    listed help.render >render.methods &&
    test_cmp methods eval.methods &&
    test_cmp methods render.methods
'

test_expect_success 'plan accepts every listed method and no other name' '
    for a in $(cat methods); do
        cm_run plan --matrix $CM_MATRICES/cg.S.16.mtx --hierarchy 4:2:2 \
            --distances 1:2:10 --algorithm $a --output $a.map || return 1
    done &&
    test_expect_code 2 "$CLUSTERMAP" plan --matrix $CM_MATRICES/cg.S.16.mtx \
        --hierarchy 4:2:2 --distances 1:2:10 --algorithm magic --output x.map 2>err &&
    grep -F "expected $(tr "\n" "|" <methods | sed "s/|\$//"))" err
'

test_expect_success 'clustermap.1: --algorithm describes every method, and only those' '
    roff_text "$MAN1" | paragraph ".BI --algorithm" >alg.man1 &&
    test -s alg.man1 &&
    sed -n -E "s/^\.BR? ([a-z][a-z-]*)( .*)?$/\1/p" alg.man1 | sort -u >man1.methods &&
    sort methods >methods.sorted &&
    test_cmp methods.sorted man1.methods
'

test_expect_success 'clustermap_spank.8 and admin-guide.md: algorithm= names every method' '
    roff_text "$MAN8" | paragraph ".BI algorithm=" >alg.man8 &&
    test -s alg.man8 &&
    named "$(cat methods)" alg.man8 clustermap_spank.8 &&
    grep "^| \`algorithm=" "$GUIDE" >alg.guide &&
    named "$(cat methods)" alg.guide admin-guide.md
'

test_expect_success 'design.md names every method' '
    named "$(cat methods)" "$DESIGN" design.md
'

test_done
