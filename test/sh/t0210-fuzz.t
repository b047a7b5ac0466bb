#!/bin/sh
test_description='short libFuzzer runs of the profile JSON parser and the raw
profile reader (docs/fuzzing.md has the long runs)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

# Seconds per target; CM_FUZZ_TIME=0 skips the runs.
time=${CM_FUZZ_TIME:-20}
FUZZ=$CM_ROOT/test/fuzz
SRC="src/profiles/profile.c src/profiles/profile_json.c src/profiles/raw.c
     src/profiles/store.c src/profiles/store_ingest.c src/core/matrix.c
     src/core/error.c"

# build TARGET: compile test/fuzz/fuzz_TARGET.c with the sources it needs.
build() {
    (cd "$CM_ROOT" &&
     clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE \
        -Isrc/core -Isrc/profiles "test/fuzz/fuzz_$1.c" $SRC -ljson-c -lm \
        -o "$OLDPWD/fuzz_$1")
}

if test "$time" != 0 && command -v clang >/dev/null &&
   printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >probe.c &&
   clang -fsanitize=fuzzer probe.c -o probe 2>/dev/null
then
    test_set_prereq FUZZ
else
    say "skipping the fuzz runs: clang with libFuzzer (Debian clang, libclang-rt-14-dev) is missing, or CM_FUZZ_TIME=0"
fi

for target in profile_json raw; do
    test_expect_success FUZZ "fuzz_$target builds" "
        build $target
    "
    test_expect_success FUZZ "fuzz_$target runs ${time}s on the seed corpus without a finding" "
        mkdir -p new-$target &&
        ASAN_OPTIONS=detect_leaks=1 ./fuzz_$target -max_total_time=$time \
            -rss_limit_mb=1024 -max_len=65536 new-$target \
            \"$FUZZ/corpus/$target\" >log-$target 2>&1 ||
        { tail -n 40 log-$target; false; }
    "
done

test_done
