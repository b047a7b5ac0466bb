#!/bin/sh
test_description='make install and make uninstall: everything in its place
(the shared engine with its SONAME and pkg-config file, the command, the
profiler, the plugin, the launcher, the ping-pong, the man pages), a program
built with pkg-config against the installed engine runs, and uninstall
removes every file install put'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

# The build under test; the default PREFIX (another one rebuilds the
# plugin's configuration, which the other tests use) into a DESTDIR.
BUILD_DIR=$(dirname "$CLUSTERMAP")
# (make install, as most, takes no blanks in DESTDIR: not the trash dir)
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/cm-install.XXXXXX") || error "mktemp failed"
P=$ROOT/usr/local
VERSION=$(sed -n 's/^#define CM_VERSION "\(.*\)"/\1/p' "$CM_ROOT/src/core/clustermap.h")

test_expect_success 'make install into a DESTDIR' '
    make -s -C "$CM_ROOT" BUILD="$BUILD_DIR" DESTDIR="$ROOT" install >install.out 2>&1 ||
    { cat install.out; false; }
'

test_expect_success 'every part is installed' '
    for f in bin/clustermap include/clustermap.h lib/libclustermap.a \
             lib/libclustermap.so.$VERSION lib/pkgconfig/clustermap.pc \
             lib/libclustermap-prof.so lib/slurm/clustermap.so \
             lib/slurm/clustermap-place.so libexec/clustermap/bin/mpirun \
             libexec/clustermap/pingpong share/man/man1/clustermap.1 \
             share/man/man8/clustermap_spank.8; do
        test -f "$P/$f" || { echo "missing: $f"; return 1; }
    done &&
    test "$(readlink "$P/lib/libclustermap.so.0")" = "libclustermap.so.$VERSION" &&
    test "$(readlink "$P/lib/libclustermap.so")" = libclustermap.so.0 &&
    test "$(readlink "$P/libexec/clustermap/bin/mpiexec")" = mpirun
'

# srun dlopen()s the placement module: a clustermap function it calls but
# does not hold (the plugin exports only the SPANK symbols) fails every
# placement with "undefined symbol", which only a placed step would show.
test_expect_success 'the plugin and its placement module leave no clustermap symbol undefined' '
    for so in clustermap.so clustermap-place.so; do
        nm -u "$P/lib/slurm/$so" | grep -E " (cm|cmp)_" >undef.$so
        test_must_be_empty undef.$so || return 1
    done
'

test_expect_success 'the shared engine: SONAME libclustermap.so.0' '
    readelf -d "$P/lib/libclustermap.so.$VERSION" >dyn &&
    grep "(SONAME) *Library soname: \[libclustermap.so.0\]" dyn
'

test_expect_success 'pkg-config describes the installed engine' '
    export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$ROOT" &&
    test "$(pkg-config --modversion clustermap)" = "$VERSION" &&
    pkg-config --cflags clustermap >cflags &&
    grep -- "-I$P/include" cflags &&
    pkg-config --libs clustermap >libs &&
    grep -- "-L$P/lib -lclustermap" libs
'

test_expect_success 'a program built with pkg-config runs against the installed library' '
    cat >use.c <<-\EOF &&
	#include <stdio.h>
	#include <clustermap.h>
	int main(void)
	{
	    cm_error_t err;
	    cm_tree_t *t = cm_tree_from_hierarchy("4:2", "1:10", &err);
	    if (!t) { fprintf(stderr, "%s\n", err.msg); return 1; }
	    printf("slots=%d levels=%d version=%s\n", cm_tree_nslots(t),
	           cm_tree_nlevels(t), CM_VERSION);
	    cm_tree_free(t);
	    return 0;
	}
	EOF
    export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$ROOT" &&
    cc -o use use.c $(pkg-config --cflags --libs clustermap) &&
    LD_LIBRARY_PATH="$P/lib" ./use >use.out &&
    test "$(cat use.out)" = "slots=8 levels=3 version=$VERSION" &&
    LD_LIBRARY_PATH="$P/lib" ldd ./use | grep "libclustermap.so.0 => $P/lib/libclustermap.so.0"
'

test_expect_success 'make uninstall removes every file install put' '
    make -s -C "$CM_ROOT" BUILD="$BUILD_DIR" DESTDIR="$ROOT" uninstall >uninstall.out 2>&1 ||
    { cat uninstall.out; false; } &&
    find "$ROOT" ! -type d >left &&
    test_must_be_empty left &&
    rm -rf "$ROOT"
'

test_done
