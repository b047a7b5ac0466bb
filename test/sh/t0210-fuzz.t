#!/bin/sh
test_description='short libFuzzer runs of every parser that reads what
someone else wrote: profiles (JSON, binary, raw), run histories, tnbc
traces, matrices (Matrix Market, METIS, triplets), hostlists,
slurm.conf/topology.conf, the controller'"'"'s switch records, --hierarchy
and level cost strings, profile keys, and the launch model'"'"'s srun and
mpirun command lines, mpirun records, plugstack.conf arguments, --mapping
values and SLURM_JOB_CPUS_PER_NODE (docs/fuzzing.md has the long runs)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

# Seconds per target (19 targets: about 3 minutes in all on 2 cores with
# the build); CM_FUZZ_TIME=0 skips the runs.
time=${CM_FUZZ_TIME:-6}
FUZZ=$CM_ROOT/test/fuzz
TARGETS="profile_json profile_bin raw mtx metis triplets hostlist slurmconf srun_args mpirun_args
         config request cpus_per_node history trace mpirun_record switches hierarchy
         profile_key gres_conf"

if test "$time" != 0 && command -v clang >/dev/null &&
   printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >probe.c &&
   clang -fsanitize=fuzzer probe.c -o probe 2>/dev/null
then
    test_set_prereq FUZZ
else
    say "skipping the fuzz runs: clang with libFuzzer (Debian clang, libclang-rt-14-dev) is missing, or CM_FUZZ_TIME=0"
fi

# test/fuzz/build.sh builds the component libraries once, instrumented,
# with the project's Makefile; each target links them.
test_expect_success FUZZ "the libraries build for fuzzing" "
    \"$FUZZ/build.sh\" . --objects
"

for target in $TARGETS; do
    test_expect_success FUZZ "fuzz_$target builds" "
        \"$FUZZ/build.sh\" . $target
    "
    # -timeout: a hang is a finding; the slowest legitimate inputs (a
    # 2^24-rank matrix) take about 10 s.  UBSan only reports by default:
    # halt_on_error makes undefined behaviour a finding too.
    # -rss_limit_mb: the readers run with the store's own limits
    # (fuzz_profile_bin: a 64 MiB file, a 1 GiB body) and the seeds hold
    # deflate bombs; a profile at the entry ceiling (2^24 entries) takes
    # 1.1 GB under ASan, within the limit.
    test_expect_success FUZZ "fuzz_$target runs ${time}s on the seed corpus without a finding" "
        mkdir -p new-$target &&
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            ./fuzz_$target -max_total_time=$time \
            -timeout=60 -rss_limit_mb=2048 -max_len=65536 new-$target \
            \"$FUZZ/corpus/$target\" >log-$target 2>&1 ||
        { tail -n 40 log-$target; false; }
    "
done

test_done
