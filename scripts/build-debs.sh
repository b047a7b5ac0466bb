#!/bin/sh
# build-debs.sh OUTDIR: build the Debian packages of this source tree
# (debian/) with dpkg-buildpackage -us -uc -b, in a copy of the tree under
# OUTDIR, so that the tree itself gets no build products and nothing is
# written next to it.  Leaves OUTDIR/*.deb and OUTDIR/build.log; on failure
# prints the log's end and exits non-zero with no .deb in OUTDIR.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-debs: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: build-debs.sh OUTDIR"
mkdir -p "$1"
out=$(cd "$1" && pwd)
command -v dpkg-buildpackage >/dev/null 2>&1 || die "dpkg-buildpackage is missing (make deps)"
command -v dh >/dev/null 2>&1 || die "debhelper is missing (make deps)"

ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
code=$(sed -n 's/^#define CM_VERSION "\(.*\)"/\1/p' "$src/src/core/clustermap.h")
[ "$ver" = "$code" ] ||
    die "debian/changelog says $ver, src/core/clustermap.h CM_VERSION says $code"

rm -rf "$out/clustermap-$ver" "$out"/*.deb "$out"/*.ddeb "$out"/*.buildinfo "$out"/*.changes
tree=$out/clustermap-$ver
mkdir -p "$tree"
# The files git knows or would add (not the build directories); a tree
# without git: all but build*/ and the tests' trash.
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree")
else
    (cd "$src" && tar --exclude='./build*' --exclude='./test/sh/trash*' \
        --exclude='./test/sh/stack-*' -cf - .) | (cd "$tree" && tar -xf -)
fi

echo "build-debs: dpkg-buildpackage -us -uc -b in $tree (log: $out/build.log)"
start=$(date +%s)
if ! (cd "$tree" && DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" \
        dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
    tail -n 30 "$out/build.log" >&2
    rm -f "$out"/*.deb
    die "dpkg-buildpackage failed (log above, in full in $out/build.log)"
fi
rm -rf "$tree"
echo "build-debs: $(ls "$out"/*.deb | wc -l) packages in $(( $(date +%s) - start )) s:"
for d in "$out"/*.deb; do echo "  $(basename "$d")"; done
