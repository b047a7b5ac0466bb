#!/bin/sh
#
# The virtual Slurm cluster of test/cluster/ works: 4 nodes with the claimed
# sockets and cores, the switch tree, srun and sbatch, node-local /tmp, Open
# MPI launched through PMIx, and SLURM_HOSTFILE placing rank i on line i.
#
# Uses its own cluster (CM_CLUSTER_NAME=t0500 unless set, see
# lib/cluster.sh); the last test takes it down, unless CM_CLUSTER_KEEP=1.

test_description='virtual Slurm cluster: bring-up, srun, sbatch, MPI via PMIx, SLURM_HOSTFILE'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

REPO=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
unset CM_CLUSTER_PLUGSTACK CM_CLUSTER_PLUGSTACK_FILE CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_NODES
. "$SHARNESS_TEST_DIRECTORY/lib/cluster.sh"
CLUSTER=$CM_CLUSTER_BIN
STATE=$CM_CLUSTER_STATE
idle() { cluster_idle; }

command -v mpicc >/dev/null 2>&1 && test_set_prereq MPICC
test "${CM_CLUSTER_KEEP:-0}" = 1 || test_set_prereq DOWN

# Print "rank host" for the lines of hello_hosts.
ranks_hosts() { awk '$1 == "rank" {print $2, $6}' "$@"; }

# Fail unless every "cpus" field of hello_hosts is a non-empty list of CPUs
# that exist on this machine.
check_cpu_lists() {
    ncpu=$(getconf _NPROCESSORS_CONF)
    awk -v n="$ncpu" '
        $1 == "rank" {
            if ($7 != "cpus" || $8 !~ /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/) { print "bad: " $0; bad = 1; next }
            k = split($8, part, /[,-]/)
            for (i = 1; i <= k; i++) if (part[i] + 0 >= n) { print "no such cpu: " $0; bad = 1 }
            lines++
        }
        END { exit bad || lines == 0 }' "$1"
}

test_expect_success 'up.sh brings up 4 idle nodes' '
    "$CLUSTER/up.sh" >up.out 2>&1 || { cat up.out; false; } &&
    grep -E "up in [0-9]+ s: 4 nodes idle|already up" up.out
'

test_expect_success 'up.sh again keeps the running cluster' '
    "$CLUSTER/up.sh" >up2.out 2>&1 &&
    grep "already up" up2.out
'

test_expect_success 'sinfo: 4 idle nodes with 2 sockets x 4 cores' '
    cat >expect <<-EOF &&
	n1 idle 2 4 8
	n2 idle 2 4 8
	n3 idle 2 4 8
	n4 idle 2 4 8
	EOF
    run sinfo -h -N -o "%N %t %X %Y %c" | sort >actual &&
    test_cmp expect actual
'

test_expect_success 'scontrol show node n1: Sockets=2 CoresPerSocket=4' '
    run scontrol show node n1 >node.out &&
    grep -q "CoresPerSocket=4" node.out &&
    grep -q "Sockets=2 " node.out &&
    grep -q "NodeAddr=10.250.0.11 NodeHostName=n1" node.out
'

test_expect_success 'the login host is a FUTURE node outside the partition' '
    run scontrol --future show node login >login.out &&
    grep -q "State=FUTURE" login.out &&
    run sinfo -h -N -o %N >nodes &&
    ! grep -q login nodes
'

test_expect_success 'scontrol show topology: two leaf switches under root' '
    cat >expect <<-EOF &&
	root 1 n[1-4] s[1-2]
	s1 0 n[1-2] -
	s2 0 n[3-4] -
	EOF
    run scontrol show topology >topo.out &&
    sed -n "s/^SwitchName=\([^ ]*\) Level=\([0-9]*\) .*Nodes=\([^ ]*\)\( Switches=\([^ ]*\)\)\{0,1\}.*/\1 \2 \3 \5/p" topo.out |
        sed "s/ \$/ -/" | sort >actual &&
    test_cmp expect actual
'

test_expect_success 'srun -N4 -n4 hostname runs on n1..n4' '
    printf "n1\nn2\nn3\nn4\n" >expect &&
    run srun -N4 -n4 hostname | sort >actual &&
    test_cmp expect actual
'

test_expect_success 'each node has its own /tmp' '
    rm -f "/tmp/cm-t0500-mark" &&
    run srun -N4 -n4 sh -c "hostname >/tmp/cm-t0500-mark" &&
    for i in 1 2 3 4; do
        echo n$i >expect &&
        test_cmp expect "$STATE/tmp/n$i/cm-t0500-mark" || return 1
    done &&
    ! test -e /tmp/cm-t0500-mark
'

test_expect_success 'sbatch --wait runs a batch script and writes its output' '
    cat >job.sh <<-\EOF &&
	#!/bin/sh
	echo "nodes $SLURM_JOB_NUM_NODES batch on $(hostname)"
	srun -n2 hostname | sort
	EOF
    printf "nodes 2 batch on n1\nn1\nn2\n" >expect &&
    idle &&
    run sbatch --wait -N2 -n2 -o "$PWD/job.out" job.sh >sbatch.out &&
    grep -q "^Submitted batch job [0-9]*$" sbatch.out &&
    test_cmp expect job.out
'

test_expect_success 'sbatch-wait returns the exit code of the job' '
    test_expect_code 3 "$CLUSTER/sbatch-wait" -o "$PWD/fail.out" --wrap "exit 3" &&
    "$CLUSTER/sbatch-wait" -o "$PWD/ok.out" --wrap "echo fine" &&
    echo fine >expect &&
    test_cmp expect ok.out
'

# (what sbatch_mpi shows in prove's output goes to hang.diag here)
sbatch_mpi_2s() { (CM_JOB_TIMEOUT=2 && export CM_JOB_TIMEOUT && sbatch_mpi "$@") 7>hang.diag; }
test_expect_success 'a job that outlives CM_JOB_TIMEOUT is cancelled (124) and sbatch_mpi submits it once more' '
    test_expect_code 124 sbatch_mpi_2s -o "$PWD/hang.out" \
        --wrap "echo started; sleep 30" >hang.sub 2>hang.err &&
    test "$(grep -c "^Submitted batch job [0-9]*$" hang.sub)" = 2 &&
    test "$(grep -c "^sbatch-wait: job [0-9]* still [A-Z]* (reason [^ ]*) after 2 s; cancelling$" hang.err)" = 2 &&
    grep "^# sbatch-wait: job [0-9]* still" hang.diag &&
    test "$(grep -c "^# submitting it again$" hang.diag)" = 1 &&
    idle
'

test_expect_success MPICC 'compile the MPI test program' '
    mpicc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 \
        -o hello_hosts "$REPO/test/mpi/hello_hosts.c"
'

test_expect_success MPICC,SRUN_PMIX 'srun --mpi=pmix -n8: block fills n1 (8 cores)' '
    idle &&
    run_mpi mpi8.out mpi8.err srun --mpi=pmix -n8 ./hello_hosts &&
    for r in 0 1 2 3 4 5 6 7; do echo "$r n1"; done >expect &&
    ranks_hosts mpi8.out >actual &&
    test_cmp expect actual &&
    test "$(grep -c " size 8 " mpi8.out)" = 8 &&
    check_cpu_lists mpi8.out
'

test_expect_success MPICC,SRUN_PMIX 'srun --mpi=pmix -N2 -n8: 7 ranks on n1, 1 on n2' '
    idle &&
    run_mpi mpi28.out mpi28.err srun --mpi=pmix -N2 -n8 ./hello_hosts &&
    printf "0 n1\n1 n1\n2 n1\n3 n1\n4 n1\n5 n1\n6 n1\n7 n2\n" >expect &&
    ranks_hosts mpi28.out >actual &&
    test_cmp expect actual
'

test_expect_success MPICC,SRUN_PMIX 'SLURM_HOSTFILE: rank i runs on the node of line i' '
    printf "n4\nn3\nn2\nn1\nn4\nn3\nn1\n" >hostfile &&
    printf "0 n4\n1 n3\n2 n2\n3 n1\n4 n4\n5 n3\n" >expect &&
    run_mpi hf.out hf.err salloc -N4 --exclusive \
        env SLURM_HOSTFILE="$PWD/hostfile" srun --mpi=pmix -n6 ./hello_hosts &&
    ranks_hosts hf.out >actual &&
    test_cmp expect actual &&
    check_cpu_lists hf.out
'

test_expect_success MPICC,SRUN_PMIX 'SLURM_HOSTFILE exported in a batch script' '
    cat >hfjob.sh <<-EOF &&
	#!/bin/sh
	SLURM_HOSTFILE="$PWD/hostfile" srun --mpi=pmix -n7 ./hello_hosts
	EOF
    printf "0 n4\n1 n3\n2 n2\n3 n1\n4 n4\n5 n3\n6 n1\n" >expect &&
    idle &&
    sbatch_mpi -N4 --exclusive -o "$PWD/hfjob.out" hfjob.sh >/dev/null &&
    ranks_hosts hfjob.out >actual &&
    test_cmp expect actual
'

test_expect_success DOWN 'down.sh stops the cluster and leaves nothing behind' '
    cp -r "$STATE/log" cluster-log &&
    pids=$(cat "$STATE"/run/*.pid) &&
    test "$(echo $pids | wc -w)" = 6 &&
    "$CLUSTER/down.sh" &&
    ! test -e "$STATE" &&
    ! ip netns list | grep -q "^$CM_CLUSTER_NAME-" &&
    for p in $pids; do ! kill -0 $p 2>/dev/null || return 1; done
'

# Also after a failed test: no cluster left running.
cluster_finish

test_done
