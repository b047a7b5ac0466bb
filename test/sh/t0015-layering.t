#!/bin/sh
test_description='the components stay layered

Every folder of src/ is a component; a file may include the headers of
its own component and of components on a lower layer only, so no two
components depend on each other (scripts/layers.sh lists who includes
whom; docs/design.md draws the layers).  The plugin folder keeps small
headers, and no test compiles a source file of src/ into itself: tests
link the component libraries.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

# The layers, lowest first (docs/design.md, "Components").  The profiler
# is below the overlay: it owns the header of the hooks the overlay
# implements (prof_overlay.h), so the overlay includes the profiler's
# header and never the other way round.
layer() {
    case $1 in
    core) echo 0 ;;
    util) echo 1 ;;
    trace | profiles | profiler) echo 2 ;;
    store | overlay) echo 3 ;;
    launch) echo 4 ;;
    plugin | mpirun | cli | calibrate) echo 5 ;;
    *) echo "unknown component $1" >&2; echo 99 ;;
    esac
}

test_expect_success 'scripts/layers.sh lists the includes between components' '
    "$CM_ROOT/scripts/layers.sh" >edges &&
    test -s edges &&
    grep -q "^store profiles " edges &&
    grep -q "^plugin launch " edges
'

test_expect_success 'every component is known to the layers' '
    for d in "$CM_ROOT"/src/*/; do
        c=$(basename "$d")
        test "$(layer "$c" 2>/dev/null)" != 99 || { echo "src/$c: no layer"; return 1; }
    done
'

test_expect_success 'no component includes one on its own or a higher layer' '
    : >upward &&
    while read -r from to n; do
        test "$(layer "$from")" -gt "$(layer "$to")" ||
            echo "src/$from includes src/$to ($n includes)" >>upward
    done <edges &&
    test_must_be_empty upward
'

test_expect_success 'a made-up upward include is caught' '
    mkdir -p tree/src/core tree/src/store &&
    echo "#include \"cm_store.h\"" >tree/src/core/x.c &&
    echo "struct s;" >tree/src/store/cm_store.h &&
    "$CM_ROOT/scripts/layers.sh" "$PWD/tree" >fake &&
    test "$(cat fake)" = "core store 1"
'

test_expect_success 'two headers of one name in two components are refused' '
    mkdir -p dup/src/core dup/src/store &&
    : >dup/src/core/a.h && : >dup/src/store/a.h &&
    test_must_fail "$CM_ROOT/scripts/layers.sh" "$PWD/dup" 2>err &&
    grep "header names in two folders of src/: a.h" err
'

test_expect_success 'no header of the plugin exceeds 200 lines' '
    for h in "$CM_ROOT"/src/plugin/*.h; do
        n=$(wc -l <"$h")
        test "$n" -le 200 || { echo "$h: $n lines"; return 1; }
    done
'

test_expect_success 'no test or fuzz target includes a source file of src/' '
    ! grep -rn "#include \"[^\"]*\.c\"" "$CM_ROOT/test/unit" "$CM_ROOT/test/fuzz"
'

test_done
