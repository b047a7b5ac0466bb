#!/bin/sh
# build.sh -- build the libFuzzer targets of test/fuzz (clang, libFuzzer,
# ASan and UBSan), for test/sh/t0210-fuzz.t and the long runs of
# docs/fuzzing.md.
#
# Usage: test/fuzz/build.sh OUTDIR --objects   compile every source once
#        test/fuzz/build.sh OUTDIR TARGET...    link OUTDIR/fuzz_TARGET
#        test/fuzz/build.sh OUTDIR              both, for every target
# Objects go to OUTDIR/obj/ and are rebuilt when their source is newer, two
# compilations at a time (the machines running this have two cores).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
shift

TARGETS="profile_json profile_bin raw mtx metis triplets hostlist slurmconf srun_args mpirun_args
         config request cpus_per_node"
CFLAGS_FUZZ="-g -O1 -std=c11 -D_GNU_SOURCE -Isrc/core -Isrc/util -Isrc/trace -Isrc/profiles -Isrc/store -Isrc/launch"
SAN=address,undefined

# The sources each target links.
SRC_PROFILES="src/profiles/profile.c src/profiles/profile_json.c src/profiles/profile_bin.c src/profiles/raw.c
     src/store/store_history.c src/profiles/history.c
     src/store/store.c src/store/store_ingest.c src/core/matrix.c src/core/error.c
     src/store/store_trace.c src/store/store_parts.c src/profiles/profile_key.c
     src/trace/trace.c src/store/store_side.c src/store/store_explain.c
     src/util/cm_file.c"
# (the store keeps tnbc traces, checked with the overlay's own parser, and
# stages them with the parts' helpers)
SRC_MATRIX="src/core/matrix.c src/core/matrix_io.c src/core/read_mtx.c
     src/core/read_metis.c src/core/read_triplets.c src/core/error.c"
SRC_HOSTLIST="src/core/hostlist.c src/core/error.c"
SRC_SLURMCONF="src/core/tree_slurmconf.c src/core/tree_switches.c src/core/tree.c
     src/core/hostlist.c src/core/error.c"
# the launch model (src/launch/) uses no Slurm symbol;
# config.c needs the weight parsers, alloc.c the
# hostlists.
SRC_PLUGIN="src/launch/srun_args.c src/launch/mpirun_args.c src/launch/options.c src/launch/alloc.c src/profiles/guard.c
     src/launch/config.c src/profiles/profile.c src/core/problem.c
     src/core/hostlist.c src/core/matrix.c src/core/tree.c src/core/error.c"

sources() {
    case $1 in
    profile_json|profile_bin|raw) echo $SRC_PROFILES ;;
    mtx|metis|triplets) echo $SRC_MATRIX ;;
    hostlist) echo $SRC_HOSTLIST ;;
    slurmconf) echo $SRC_SLURMCONF ;;
    srun_args|mpirun_args|config|request|cpus_per_node) echo $SRC_PLUGIN ;;
    *) echo "build.sh: unknown target '$1' (one of:" $TARGETS")" >&2; exit 2 ;;
    esac
}

# Compile SRC (relative to the repository) into OUT/obj/SRC.o unless that is
# newer; instrumented for libFuzzer without its main (fuzzer-no-link).
object() {
    o="$OUT/obj/$1.o"
    if [ ! -f "$o" ] || [ "$ROOT/$1" -nt "$o" ]; then
        mkdir -p "$(dirname "$o")"
        (cd "$ROOT" && clang $CFLAGS_FUZZ -fsanitize=fuzzer-no-link,$SAN -c "$1" -o "$o")
    fi
}

objects() {
    echo $SRC_PROFILES $SRC_MATRIX $SRC_HOSTLIST $SRC_SLURMCONF $SRC_PLUGIN |
        tr ' ' '\n' | sort -u | grep . |
        xargs -P 2 -I {} "$0" "$OUT" --object {}
}

target() {
    srcs=$(sources "$1")
    objs=""
    for s in $srcs; do
        object "$s"
        objs="$objs obj/$s.o"   # relative: OUT may hold blanks (sharness)
    done
    (cd "$ROOT" && clang $CFLAGS_FUZZ -Wall -Wextra -fsanitize=fuzzer,$SAN \
        -c "test/fuzz/fuzz_$1.c" -o "$OUT/obj/fuzz_$1.o")
    (cd "$OUT" && clang -fsanitize=fuzzer,$SAN "obj/fuzz_$1.o" $objs -ljson-c -lz -lm \
        -o "fuzz_$1")
}

case ${1:-} in
--object) object "$2" ;;
--objects) objects ;;
"") objects; for t in $TARGETS; do target "$t"; done ;;
*) for t in "$@"; do target "$t"; done ;;
esac
