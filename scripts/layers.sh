#!/bin/sh
# scripts/layers.sh [ROOT] -- the components of src/ and who includes whom.
#
# A component is a folder of src/.  For every #include "x.h" of a source or
# header, the folder that holds x.h is what the file depends on; one line
# "FROM TO COUNT" per pair of different components, sorted.  Headers that
# are in no folder of src/ (system and library headers, <...> includes) are
# left out.  test/sh/t0015-layering.t checks the result against the layers
# docs/design.md draws; this script is also how the drawing is kept true.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root/src"
headers=$(mktemp)
edges=$(mktemp)
trap 'rm -f "$headers" "$edges"' EXIT
find . -name '*.h' | sed 's|^\./||' | sort >"$headers"
# every include of every file, resolved to the folder of the header
find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r f; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r inc; do echo "${f%%/*} ${inc##*/}"; done
done | awk '
    FNR == NR { n = split($0, p, "/"); h = p[n]
                if ((h in home) && home[h] != p[1]) dup = dup " " h
                home[h] = p[1]; next }
    ($2 in home) && home[$2] != $1 { count[$1 " " home[$2]]++ }
    END { if (dup != "") {
              print "layers.sh: header names in two folders of src/:" dup > "/dev/stderr"
              exit 1 }
          for (k in count) print k, count[k] }' "$headers" - >"$edges"
sort "$edges"
