#!/bin/sh
# build.sh -- build the libFuzzer targets of test/fuzz (clang, libFuzzer,
# ASan and UBSan), for test/sh/t0210-fuzz.t and the long runs of
# docs/fuzzing.md.
#
# Usage: test/fuzz/build.sh OUTDIR --objects   build the libraries once
#        test/fuzz/build.sh OUTDIR TARGET...    link OUTDIR/fuzz_TARGET
#        test/fuzz/build.sh OUTDIR              both, for every target
#
# A target links the component libraries, as every other program of the
# tree does: the project's Makefile builds them, instrumented for
# libFuzzer (fuzzer-no-link: coverage without libFuzzer's main), into
# OUTDIR/lib-build, two compilations at a time (the machines running this
# have two cores), and rebuilds only what changed.  So which sources make
# up a library is written in one place, the Makefile.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
shift

TARGETS="profile_json profile_bin raw mtx metis triplets hostlist slurmconf srun_args mpirun_args
         config request cpus_per_node history trace mpirun_record switches hierarchy
         profile_key gres_conf"
SAN=address,undefined
CFLAGS_FUZZ="-g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra
     -Isrc/core -Isrc/util -Isrc/trace -Isrc/profiles -Isrc/store -Isrc/launch -Isrc/plugin"

# make cannot name a path with a blank in it, and sharness's trash
# directory has one: then the libraries are built through a link from a
# private directory without blanks (removed at exit, not what it points to).
mkdir -p "$OUT/lib-build"
case $OUT in
*" "*|*"	"*)
    link_dir=$(mktemp -d /tmp/cm-fuzz.XXXXXX)
    trap 'rm -rf "$link_dir"' EXIT
    ln -s "$OUT/lib-build" "$link_dir/lib-build"
    LIB=$link_dir/lib-build ;;
*)
    LIB=$OUT/lib-build ;;
esac


# The Makefile, with none of a calling make's variables (make check
# SAN=1 would otherwise reach it through MAKEFLAGS).
run_make() {
    (cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "$@")
}

# Every library a target may need, as the Makefile lists them (the
# linker takes only the members it uses).
ARCHIVES=$(run_make BUILD="$LIB" print-archives)

libs() {
    run_make -j2 BUILD="$LIB" CC=clang SAN=0 OPT='-g -O1' LDFLAGS= \
        CFLAGS="-fsanitize=fuzzer-no-link,$SAN" $ARCHIVES
}

target() {
    case " $(echo $TARGETS) " in
    *" $1 "*) ;;
    *) echo "build.sh: unknown target '$1' (one of:" $TARGETS")" >&2; exit 2 ;;
    esac
    mkdir -p "$OUT/obj"
    (cd "$ROOT" && clang $CFLAGS_FUZZ -fsanitize=fuzzer,$SAN \
        -c "test/fuzz/fuzz_$1.c" -o "$OUT/obj/fuzz_$1.o")
    clang -fsanitize=fuzzer,$SAN "$OUT/obj/fuzz_$1.o" \
        -Wl,--start-group $ARCHIVES -Wl,--end-group $LINK_LIBS -o "$OUT/fuzz_$1"
}

case ${1:-} in
--objects) libs ;;
*)
    libs
    LINK_LIBS=$(run_make print-link-libs)
    [ $# -gt 0 ] || set -- $TARGETS
    for t in "$@"; do target "$t"; done ;;
esac
