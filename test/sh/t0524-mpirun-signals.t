#!/bin/sh
#
# Killing mpirun in a --mapping batch job ends the run, as killing Open
# MPI's own mpirun does, kill -9 included.  The job's PATH starts with
# clustermap's mpirun; when the run may be profiled (no profile yet: it
# is), it stays the parent of the real mpirun to record the run, and its
# death must still end every rank, on every node.  Four ranks on two
# nodes sleep in a program that called MPI_Init and write their pids
# (the virtual nodes share this machine's pid namespace); the test sends
# the signal to the pid the script got for mpirun, and no rank, and no
# real mpirun, may be left a few seconds later.  t0104 does the same on
# one node without Slurm.
#
# Own cluster (CM_CLUSTER_NAME=t0524).

test_description='kill -9 and SIGTERM of mpirun in a mapped batch job end every rank'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0524}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

if ! command -v mpirun >/dev/null 2>&1; then
    skip_all='needs mpirun'
    test_done
fi

test_expect_success 'cluster with the plugin comes up; a sleeping MPI program' '
    plugin_cluster_up &&
    cat >sleeper.c <<-\EOF &&
	#include <mpi.h>
	#include <stdio.h>
	#include <unistd.h>
	/* sleeper DIR: DIR/rank.R holds the pid of rank R, then it sleeps */
	int main(int argc, char **argv)
	{
	    int r;
	    char name[4096];
	    MPI_Init(&argc, &argv);
	    MPI_Comm_rank(MPI_COMM_WORLD, &r);
	    snprintf(name, sizeof name, "%s/rank.%d.tmp", argv[1], r);
	    FILE *f = fopen(name, "w");
	    fprintf(f, "%ld\n", (long)getpid());
	    fclose(f);
	    char done[4096];
	    snprintf(done, sizeof done, "%s/rank.%d", argv[1], r);
	    rename(name, done);
	    sleep(300);
	    MPI_Finalize();
	    return 0;
	}
	EOF
    mpicc -o sleeper sleeper.c &&
    cat >job.sh <<-EOF &&
	#!/bin/sh
	# DIR: where the ranks write their pids, this script the pid of
	# mpirun and its exit status; then the script goes on with other
	# work, during which nothing of the run may be left
	dir=\$1
	mpirun --allow-run-as-root "$PWD/sleeper" "\$dir" &
	echo \$! >"\$dir/mpirun.pid"
	wait \$!
	echo \$? >"\$dir/mpirun.status"
	sleep 300
	EOF
    chmod +x job.sh
'

# alive PID...: the pids among PID... that still run (a zombie has ended)
alive() {
    for p in "$@"; do
        ps -o stat= -p "$p" 2>/dev/null | grep -qv Z && echo "$p"
    done
    :
}

# kill_run NAME SIGNAL STATUS: a job whose mpirun gets SIGNAL once its 4
# ranks (2 nodes) are up; then no rank and no real mpirun may be left
# within 15 s while the script goes on, which saw mpirun end with STATUS
# ("nonzero": any but 0).
# The job is cancelled at the end; what is left is killed by pid (a
# failing row leaves nothing behind).
kill_run() {
    name=$1 sig=$2 status=$3
    rm -rf "$name" && mkdir "$name" &&
    cluster_idle &&
    job=$(run sbatch --parsable -J "$name" -N2 --ntasks-per-node=2 --exclusive \
          --mapping=cluster -o "$PWD/$name.out" -e "$PWD/$name.err" job.sh "$PWD/$name") &&
    i=0 &&
    while test "$(ls "$name" | grep -c "^rank\.[0-9]*$")" -lt 4; do
        i=$((i + 1))
        if test $i -gt 900; then
            echo "the ranks did not start"; cat "$name.err"
            run scancel "$job"
            return 1
        fi
        sleep 0.2
    done &&
    wrapper=$(cat "$name/mpirun.pid") &&
    real=$(pgrep -P "$wrapper" -x "mpirun|prterun") &&
    echo "clustermap.s mpirun $wrapper, real mpirun $real" &&
    pids="$real $(cat "$name"/rank.[0-9]*)" &&
    kill "-$sig" "$wrapper" &&
    i=0 &&
    while test -n "$(alive $pids)"; do
        i=$((i + 1))
        if test $i -gt 150; then
            echo "left 15 s after SIG$sig: $(alive $pids)"
            kill -9 $(alive $pids)
            run scancel "$job"
            return 1
        fi
        sleep 0.1
    done &&
    if test "$status" = nonzero; then
        ! grep -x 0 "$name/mpirun.status"
    else
        echo "$status" >"$name.want" &&
        test_cmp "$name.want" "$name/mpirun.status"
    fi &&
    test -n "$(run squeue -h -j "$job")" &&
    run scancel "$job"
}

test_expect_success 'kill -9 of mpirun: every rank and the real mpirun end' '
    kill_run k9 KILL 137
'

# mpirun ends on SIGTERM (Open MPI 4.1.4: exit code 1), and so does
# clustermap's, with its exit code.
test_expect_success 'SIGTERM of mpirun: every rank ends; the run is not recorded' '
    kill_run kterm TERM nonzero &&
    ! profile_file "$STORE/$(id -u)" kterm 4
'

test_expect_success 'the stage of the killed runs is gone after the jobs' '
    cluster_idle &&
    test -z "$(ls -a "$STORE/$(id -u)" 2>/dev/null | grep "^\.mpirun\.")"
'

test_expect_success 'the cluster stops' '
    cluster_finish
'

test_done
