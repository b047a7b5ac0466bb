#!/bin/sh
#
# A user's long environment values reach the job whole: a PATH of 10000
# bytes in a batch job with --mapping=cluster (the batch step puts
# clustermap's mpirun first in it: it read PATH into 8192 bytes and gave
# the script <mpirun_dir> alone, "srun: not found", exit 127), and an
# LD_PRELOAD of 5000 bytes in a profiled step (the profiler was preloaded
# alone, and the user's own preload never ran).  Each row asserts the
# job's exit code and time as without clustermap, what ran, and that no
# clustermap line is printed.  The unit tests hold the other values read
# whole (test_plugin_args.c: --mapping, -J, the command; test_env_value.c).
#
# Own cluster (CM_CLUSTER_NAME=t0522); the jobs run as the unprivileged
# cmtu1 (lib/plugin.sh's test_users).

test_description='long PATH and LD_PRELOAD values reach the job whole'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0522}
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

test_users

sbw_user() { race_retry sbw_as "$@"; }

# timed NAME CMD...: run CMD, record its exit code and seconds in NAME.rc
# and NAME.sec (as t0520).
timed() {
    _tn=$1; shift
    _t0=$(date +%s)
    "$@"; echo $? >"$_tn.rc"
    echo $(( $(date +%s) - _t0 )) >"$_tn.sec"
}
in_time() { test "$(cat "$1.sec")" -le $(( $(cat base.sec) + 20 )); }

runs_of() {
    as "$1" "$CM" profile --store "$STORE" show "$2" --ntasks "$3" 2>/dev/null |
        sed -n 's/^runs=//p' | grep . || echo none
}

# pad N PREFIX SUFFIX: entries PREFIX<k>SUFFIX joined by ':' up to N
# bytes (k counts from 0; without a suffix, the same entry again)
pad() {
    awk -v n="$1" -v p="$2" -v s="$3" 'BEGIN {
        out = ""; k = 0
        while (length(out) < n) { out = out (k ? ":" : "") p (s == "" ? k : s); k++ }
        print out }'
}

test_expect_success 'cluster with the plugin comes up; the programs and libraries' '
    plugin_cluster_up &&
    mpicc -std=c11 -Wall -O2 -o halo_scrambled "$CM_ROOT/test/mpi/halo_scrambled.c" &&
    cat >marker.c <<-\EOF &&
	/* the user'"'"'s own preload: one file per rank of halo_scrambled */
	#define _GNU_SOURCE
	#include <errno.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <unistd.h>
	__attribute__((constructor)) static void mark(void)
	{
	    const char *dir = getenv("MARK_DIR");
	    char path[4096];
	    if (!dir || strcmp(program_invocation_short_name, "halo_scrambled"))
	        return;
	    snprintf(path, sizeof path, "%s/mark.%ld", dir, (long)getpid());
	    FILE *f = fopen(path, "w");
	    if (f)
	        fclose(f);
	}
	EOF
    # LD_PRELOAD splits at blanks too: the libraries go where every node
    # sees them, by a path without the blank of the trash directory
    mkdir -p "$STATE/userlib" && chmod 755 "$STATE/userlib" &&
    cc -shared -fPIC -o "$STATE/userlib/marker.so" marker.c &&
    printf "void cm_pad(void) {}\n" >pad.c &&
    cc -shared -fPIC -o "$STATE/userlib/pad.so" pad.c &&
    mkdir -m 777 marks &&
    printf "#!/bin/sh\n%s ./halo_scrambled\n" "$MPI_RUN" >job.sh &&
    chmod 755 job.sh halo_scrambled "$STATE"/userlib/*.so . &&
    timed base sbw_user cmtu1 -t 3 -J base -N4 -n8 --mapping=off -o out/base.out job.sh &&
    test "$(cat base.rc)" = 0
'

test_expect_success 'a 10000-byte PATH: mpirun and srun run in a --mapping=cluster batch job' '
    long=$(pad 10000 /nonexistent/pad- "") &&
    test ${#long} -ge 10000 &&
    cat >path.sh <<-\EOF &&
	#!/bin/sh
	echo "pathlen ${#PATH}"
	echo "launcher $(command -v mpirun) dir ${CLUSTERMAP_MPIRUN_DIR:-none}"
	srun -n2 -N2 /bin/true && echo "srun ran"
	mpirun --allow-run-as-root -np 4 /bin/sh -c "echo rank \$OMPI_COMM_WORLD_RANK"
	EOF
    chmod 755 path.sh &&
    timed p sbw_user cmtu1 -t 3 -J longpath -N4 -n8 --mapping=cluster \
        --export=ALL,PATH="$long:$PATH" -o out/p.out -e out/p.err path.sh &&
    { test "$(cat p.rc)" = 0 || diag out/p.out out/p.err; } &&
    in_time p &&
    len=$(sed -n "s/^pathlen //p" out/p.out) &&
    test "$len" -gt 10000 &&
    grep -x "launcher $PBUILD/bin/mpirun dir /.*/clustermap_mpirun\.[0-9]*\.[A-Za-z0-9]*" out/p.out &&
    grep -x "srun ran" out/p.out &&
    test "$(grep -c "^rank [0-3]$" out/p.out)" -eq 4 &&
    ! grep -e "not found" -e PATH out/p.err
'

test_expect_success 'a 5000-byte LD_PRELOAD: the profiled step runs the user.s preload, profiled' '
    # the user'"'"'s library first, then entries that name one small library
    # by long paths (no ld.so warning, nothing else loaded)
    dots=$(printf "%0400d" 0 | sed "s|0|./|g") &&
    pre="$STATE/userlib/marker.so:$(pad 5000 "$STATE/userlib/$dots" pad.so)" &&
    test ${#pre} -gt 5000 &&
    cat >pre.sh <<-EOF &&
	#!/bin/sh
	export MARK_DIR="$PWD/marks" LD_PRELOAD="$pre"
	exec $MPI_RUN ./halo_scrambled
	EOF
    chmod 755 pre.sh &&
    timed l sbw_user cmtu1 -t 3 -J longpre -N4 -n8 --mapping=profile -o out/l.out -e out/l.err pre.sh &&
    { test "$(cat l.rc)" = 0 || diag out/l.out out/l.err; } &&
    in_time l &&
    test "$(ranks_hosts out/l.out | wc -l)" -eq 8 &&
    test "$(ls marks | wc -l)" -eq 8 &&
    test "$(runs_of cmtu1 longpre 8)" = 1 &&
    ! grep -i -e preload -e "not profil" out/l.err
'

# The batch step of a placed job puts mpirun_dir first in PATH; a site
# that never installed the launcher where the build put it, and names no
# other, must not get an error in slurmd's log for every batch job.
test_expect_success 'no mpirun_dir= and nothing installed there: no error per batch job' '
    def=$(strings "$PLUGIN" | grep -x "/.*/clustermap/bin" | head -n 1) &&
    test -n "$def" && test ! -e "$def" &&
    echo "$CM_CLUSTER_PLUGSTACK" | sed "s| mpirun_dir=[^ ]*||" >"$STATE/etc/plugstack.conf" &&
    test_when_finished "plugstack" &&
    ! grep -q mpirun_dir= "$STATE/etc/plugstack.conf" &&
    printf "#!/bin/sh\ntrue\n" >true.sh && chmod 755 true.sh &&
    before=$(cat "$STATE"/log/slurmd-n*.log | grep -c "mpirun_dir=" || :) &&
    sbw_user cmtu1 -t 3 -J nodir -N1 --mapping=cluster -o out/d.out true.sh &&
    sleep 1 &&
    { test "$(cat "$STATE"/log/slurmd-n*.log | grep -c "mpirun_dir=" || :)" -eq "$before" ||
      { grep -h "mpirun_dir=" "$STATE"/log/slurmd-n*.log >mpirun_dir.log; diag mpirun_dir.log; }; }
'

cluster_finish
remove_users

test_done
