#!/bin/sh
#
# Text from users in slurmd's log: a job name, and the step marks srun
# hands to slurmstepd (CLUSTERMAP_STEP_PROFILE, CLUSTERMAP_FALLBACK), which
# a user can forge with srun --export, hold escape sequences, a newline and
# a fake "slurmd: error:" line.  The plugin logs them escaped (\x1b, \n;
# src/util/cm_text.h): slurmd's log gets no raw control byte from them, and
# the fake line is never a line of its own.  Two unprivileged users, as in
# t0520: cmtu2 forges, cmtu1's own job runs and is recorded as usual.
#
# Rows of the same kind that need no cluster (profile list, show, prune,
# explain): t0202.
#
# Own cluster (CM_CLUSTER_NAME=t0523); creates cmtu1 and cmtu2 when missing
# and removes those it created.

test_description='user text in slurmd log lines is escaped'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0523}
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

test_users
LOGS=$STATE/log
CSI=$(printf '\302\233')

# in_log FIXED: some slurmd log has a line holding the string FIXED
in_log() {
    for i in $(seq 50); do
        grep -q -F -e "$1" "$LOGS"/slurmd-n*.log && return 0
        sleep 0.1
    done
    grep -h clustermap "$LOGS"/slurmd-n*.log | tail -n 5 >&2
    return 1
}

# clean_logs MARK: no slurmd log holds a control byte (but newline), DEL
# or a C1 control, and every line that holds MARK is one of clustermap's
# (the text after a forged newline is not a line of its own).
clean_logs() {
    for f in "$LOGS"/slurmd-n*.log; do
        test "$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$f" | wc -c)" -eq 0 &&
        ! grep -q "$CSI" "$f" || {
            echo "raw control bytes in $f:" >&2
            LC_ALL=C grep -n "$(printf '[\001-\011\013-\037\177]')" "$f" | od -c | head -n 20 >&2
            return 1
        }
    done &&
    grep -h -F -e "$1" "$LOGS"/slurmd-n*.log >marked &&
    test -s marked &&
    ! grep -v "clustermap: " marked || {
        echo "lines with $1 that are not clustermap's:" >&2
        grep -v "clustermap: " marked >&2
        false
    }
}

test_expect_success 'cluster with the plugin comes up; the test program' '
    plugin_cluster_up &&
    mpicc -std=c11 -Wall -O2 -o halo_scrambled "$CM_ROOT/test/mpi/halo_scrambled.c" &&
    printf "#!/bin/sh\n%s ./halo_scrambled\n" "$MPI_RUN" >job.sh &&
    chmod 755 job.sh halo_scrambled .
'

# The verdict line is slurmstepd's, at the end of a step srun profiled:
# where srun cannot start MPI programs (no mpi/pmix) mpirun records the
# run itself and no such line is logged.
test_expect_success SRUN_PMIX 'a job name with ESC[2J, a newline and a fake line: escaped in the log' '
    cat >named.sh <<-EOF &&
	#!/bin/sh
	# what sbatch -J gives the job, as the batch script may set it too
	SLURM_JOB_NAME=\$(printf "j\\033[2J\\nslurmd: error: FAKE-NAME \\302\\233x")
	export SLURM_JOB_NAME
	exec ./job.sh
	EOF
    chmod 755 named.sh &&
    race_retry sbw_as cmtu1 -t 3 -N2 -n4 --mapping=profile -o out/r1.out -e out/r1.err named.sh &&
    test "$(ranks_hosts out/r1.out | wc -l)" -eq 4 &&
    in_log "j\x1b[2J\nslurmd: error: FAKE-NAME \xc2\x9bx" &&
    clean_logs FAKE-NAME
'

test_expect_success 'forged CLUSTERMAP_STEP_PROFILE and CLUSTERMAP_FALLBACK: escaped in the log' '
    cat >forge.sh <<-EOF &&
	#!/bin/sh
	p=\$(printf "p\\033[2J\\nslurmd: error: FAKE-PROFILE")
	f=\$(printf "f\\033]0;pwn\\007\\nslurmd: error: FAKE-FALLBACK")
	srun -N2 -n2 --mapping=off \\
	    --export="ALL,CLUSTERMAP_STEP_PROFILE=\$p,CLUSTERMAP_FALLBACK=\$f" true
	EOF
    chmod 755 forge.sh &&
    sbw_as cmtu2 -t 3 -N2 -n2 -o out/r2.out -e out/r2.err forge.sh &&
    in_log "p\x1b[2J\nslurmd: error: FAKE-PROFILE" &&
    in_log "f\x1b]0;pwn\x07\nslurmd: error: FAKE-FALLBACK" &&
    clean_logs FAKE-PROFILE &&
    clean_logs FAKE-FALLBACK
'

test_expect_success SRUN_PMIX 'the other user is not disturbed: a profiled job is recorded' '
    race_retry sbw_as cmtu1 -t 3 -J victim -N2 -n4 --mapping=profile -o out/r3.out -e out/r3.err job.sh &&
    test "$(ranks_hosts out/r3.out | wc -l)" -eq 4 &&
    as cmtu1 "$CM" profile --store "$STORE" show victim --ntasks 4 >show &&
    grep -x "runs=1" show &&
    clean_logs FAKE-NAME
'

cluster_finish
remove_users

test_done
