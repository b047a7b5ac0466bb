#!/bin/sh
#
# Never break a job, never trust a user: the profiling path of the SPANK
# plugin under faults and hostile input, on the virtual cluster with two
# unprivileged users (cmtu1 the victim, cmtu2 the attacker).  One test per
# row of the table in docs/admin-guide.md ("Security and fault suite").
# Every row asserts the job's exit code, that it ran in its normal time
# (a hang would hit the job's 3-minute limit and fail the row), the line
# the user or the administrator gets, and what changed on disk.
#
# Rows of the same table that need no cluster live with their code:
# --output onto devices, links and other users' files (t0006), 3 tasks on
# a 4096 x 4096 machine (t0007), the plugin .so missing, a bad plugstack
# argument and the placement module missing (t0512), parser fuzzing (t0210).
#
# MPI programs start with $MPI_RUN (lib/cluster.sh): srun, or mpirun where
# this Slurm has no PMIx (forky), where the rows about srun's per-node
# profiling directory do not apply; the programs a row wraps in a shell
# are /bin/sh by its path (Open MPI 6's launcher, as a test user, failed to
# exec a bare "sh" from root's PATH).
#
# Own cluster (CM_CLUSTER_NAME=t0520); creates cmtu1 and cmtu2 when missing
# and removes those it created.

test_description='security and fault suite: hostile users, failing nodes'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0520}
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

test_users
LOGS=$STATE/log

# sbw_as, once more after the Open MPI start-up race (lib/cluster.sh).
sbw_user() { race_retry sbw_as "$@"; }

# timed NAME CMD...: run CMD, record its exit code and seconds in NAME.rc
# and NAME.sec.
timed() {
    _tn=$1; shift
    _t0=$(date +%s)
    "$@"; echo $? >"$_tn.rc"
    echo $(( $(date +%s) - _t0 )) >"$_tn.sec"
}

# in_time NAME: the run took at most the baseline's time plus 20 s.
in_time() {
    test "$(cat "$1.sec")" -le $(( $(cat base.sec) + 20 ))
}

# lines FILE PATTERN COUNT: COUNT "clustermap:" lines of FILE match PATTERN
lines() {
    test "$(cm_lines "$1" | grep -c -E "$2")" -eq "$3"
}

# runs_of USER NAME N: the run count of a profile, "none" when absent
runs_of() {
    as "$1" "$CM" profile --store "$STORE" show "$2" --ntasks "$3" 2>/dev/null |
        sed -n 's/^runs=//p' | grep . || echo none
}

# in_log PATTERN: some slurmd log has a line matching PATTERN
in_log() {
    for i in $(seq 50); do
        grep -q -E "$1" "$LOGS"/slurmd-n*.log && return 0
        sleep 0.1
    done
    grep -E "clustermap" "$LOGS"/slurmd-n*.log | tail -n 5
    return 1
}

test_expect_success 'cluster with the plugin comes up; the test programs' '
    plugin_cluster_up &&
    mpicc -std=c11 -Wall -O2 -o halo_scrambled "$CM_ROOT/test/mpi/halo_scrambled.c" &&
    printf "#!/bin/sh\n%s ./halo_scrambled\n" "$MPI_RUN" >job.sh &&
    chmod 755 job.sh halo_scrambled . &&
    timed base sbw_as cmtu1 -t 3 -J base -N4 -n8 --mapping=off -o out/base.out job.sh &&
    test "$(cat base.rc)" = 0
'

test_expect_success 'row 1: names pre-created by another user cannot hang or skip a job' '
    cat >attack.sh <<-EOF &&
	#!/bin/sh
	# the old predictable names, and the new directory (which only root writes)
	next=\$((SLURM_JOB_ID + 1))
	for j in \$(seq \$next \$((next + 20))); do
	    mkdir -m 700 /tmp/clustermap-prof.$U1.\$j.0 2>/dev/null
	    mkdir -m 700 /run/clustermap/job\$j.0.attack 2>/dev/null && echo OOPS
	done
	true
	EOF
    chmod 755 attack.sh &&
    sbw_as cmtu2 -N1 -w n1 -o out/attack.out attack.sh &&
    ! grep OOPS out/attack.out &&
    timed r1 sbw_user cmtu1 -t 3 -J victim -N4 -n8 --mapping=profile \
        -o out/r1.out -e out/r1.err job.sh &&
    test "$(cat r1.rc)" = 0 && in_time r1 &&
    test "$(ranks_hosts out/r1.out | wc -l)" -eq 8 &&
    test "$(runs_of cmtu1 victim 8)" = 1 &&
    { test_have_prereq MPIRUN_ONLY ||   # (made by srun steps that profile)
      test "$(stat -c "%U %a" /run/clustermap)" = "root 711"; }
'

test_expect_success 'row 2: prof_lib missing on one node: job runs, run not recorded, one line each' '
    prof_lib_only_on n1 n3 n4 &&
    test_when_finished "plugstack" &&
    timed r2 sbw_user cmtu1 -t 3 -J nolib -N4 -n8 --mapping=profile \
        -o out/r2.out -e out/r2.err job.sh &&
    test "$(cat r2.rc)" = 0 && in_time r2 &&
    test "$(ranks_hosts out/r2.out | wc -l)" -eq 8 &&
    test "$(runs_of cmtu1 nolib 8)" = none &&
    { test_have_prereq MPIRUN_ONLY ||   # (mpirun preloads it: no node step)
      { grep -E "profiling library /tmp/cmlib/libclustermap-prof.so: No such file or directory; this node.s tasks are not profiled" \
          "$LOGS/slurmd-n2.log" &&
        in_log "[0-9]+ of 8 tasks sent no profile .*the run of .nolib. is not recorded"; }; } &&
    lines out/r2.err "[0-9]+ of 8 tasks sent no profile" 1
'

# (mpirun's ranks stage their parts in the store, not in prof_dir)
test_expect_success SRUN_PMIX 'row 3: prof_dir full on one node: job runs, run not recorded' '
    for i in 1 2 3 4; do
        mkdir -p "$STATE/tmp/n$i/cmprof" && chmod 711 "$STATE/tmp/n$i/cmprof" || return 1
    done &&
    pid=$(cat "$STATE/run/slurmd-n2.pid") &&
    # -r: paths as slurmd sees them (in a test/stacks root, its root)
    nsenter -t "$pid" -m -r mount -t tmpfs -o size=8k,nr_inodes=2,mode=0711 cm-full /tmp/cmprof &&
    test_when_finished "nsenter -t $pid -m -r umount /tmp/cmprof" &&
    nsenter -t "$pid" -m -r sh -c "cat /dev/zero >/tmp/cmprof/fill 2>/dev/null; true" &&
    plugstack prof_dir=/tmp/cmprof &&
    test_when_finished "plugstack" &&
    timed r3 sbw_user cmtu1 -t 3 -J full -N4 -n8 --mapping=profile \
        -o out/r3.out -e out/r3.err job.sh &&
    test "$(cat r3.rc)" = 0 && in_time r3 &&
    test "$(ranks_hosts out/r3.out | wc -l)" -eq 8 &&
    test "$(runs_of cmtu1 full 8)" = none &&
    grep -E "cannot create a directory in /tmp/cmprof: No space left on device" \
        "$LOGS/slurmd-n2.log" &&
    lines out/r3.err "[0-9]+ of 8 tasks sent no profile" 1 &&
    test -z "$(find "$STATE"/tmp/n[134]/cmprof -mindepth 1)"
'

# Store roots the plugin must refuse: a link to a real store, a directory a
# user owns, a group-writable directory.  Root must create nothing in them.
test_expect_success 'row 4: store root a symlink, user-owned or group-writable: refused' '
    R=$STATE/r4 && mkdir -p "$R" && cd "$R" &&
    mkdir -p real owned gw && chmod 711 real owned && chmod 775 gw &&
    chown cmtu2 owned && ln -sfn "$R/real" link && cd - >/dev/null &&
    test_when_finished "plugstack" &&
    for sr in link owned gw; do
        plugstack store="$R/$sr" &&
        timed r4$sr sbw_user cmtu1 -t 3 -J sroot -N2 -n4 --mapping=cluster \
            -o out/r4$sr.out -e out/r4$sr.err job.sh &&
        test "$(cat r4$sr.rc)" = 0 && in_time r4$sr &&
        test "$(ranks_hosts out/r4$sr.out | wc -l)" -eq 4 &&
        lines out/r4$sr.err "refusing the store" 1 &&
        test "$(cm_lines out/r4$sr.err | wc -l)" -eq 1 || return 1
    done &&
    plugstack &&
    test -z "$(find "$R/real" "$R/owned" "$R/gw" -mindepth 1)"
'

test_expect_success 'row 5: store unwritable (mode 0500, under /proc): no "profiling this run"' '
    mkdir "$STATE/ro" && chmod 500 "$STATE/ro" &&
    test_when_finished "plugstack" &&
    for sr in "$STATE/ro" /proc/clustermap-store; do
        plugstack store="$sr" &&
        timed r5 sbw_user cmtu1 -t 3 -J unwr -N2 -n4 --mapping=cluster \
            -o out/r5.out -e out/r5.err job.sh &&
        test "$(cat r5.rc)" = 0 && in_time r5 &&
        test "$(cm_lines out/r5.err | wc -l)" -eq 1 &&
        ! grep "(profiling this run)" out/r5.err &&
        grep -E "not profiling this run: |cannot use the profile" out/r5.err || return 1
    done &&
    plugstack &&
    test -z "$(ls -A "$STATE/ro")"
'

test_expect_success 'row 6: parts replaced by a link, a FIFO, a huge file: refused, store intact' '
    sbw_user cmtu1 -t 3 -J swap -N2 -n4 --mapping=profile,name=swap -o out/r6a.out job.sh &&
    test "$(runs_of cmtu1 swap 4)" = 1 &&
    cp "$STORE/$U1/swap.4.json" swap.before &&
    for how in link fifo huge; do
        case $how in
        link) swap="ln -sf /etc/shadow \\\$f" ;;
        fifo) swap="rm -f \\\$f && mkfifo \\\$f" ;;
        huge) swap="truncate -s 3G \\\$f" ;;
        esac &&
        printf "#!/bin/sh\n%s /bin/sh -c %s\n" "$MPI_RUN" \
            "\"./halo_scrambled && f=\\\$CLUSTERMAP_PROFILE_DIR/part.\\\${OMPI_COMM_WORLD_RANK:-\\\$SLURM_PROCID}.txt && $swap\"" >swap.sh &&
        chmod 755 swap.sh &&
        timed r6 sbw_user cmtu1 -t 3 -J swap -N2 -n4 --mapping=profile,verbose,name=swap \
            -o out/r6$how.out -e out/r6$how.err swap.sh &&
        test "$(cat r6.rc)" = 0 && in_time r6 &&
        test "$(ranks_hosts out/r6$how.out | wc -l)" -eq 4 &&
        lines out/r6$how.err "4 of 4 tasks sent no profile" 1 || return 1
    done &&
    test_cmp swap.before "$STORE/$U1/swap.4.json" &&
    ! grep -r root: "$STORE" &&
    test -z "$(ls /run/clustermap)"
'

test_expect_success 'row 7: two users profile at the same time: each run in its own store' '
    sbw_user cmtu1 -t 3 -J both -N2 -n4 --mapping=profile -o out/r7a.out job.sh &
    sbw_user cmtu2 -t 3 -J both -N2 -n4 --mapping=profile -o out/r7b.out job.sh &
    wait &&
    test "$(runs_of cmtu1 both 4)" = 1 && test "$(runs_of cmtu2 both 4)" = 1 &&
    test "$(stat -c %U "$(profile_file "$STORE/$U1" both 4)")" = cmtu1 &&
    test "$(stat -c %U "$(profile_file "$STORE/$U2" both 4)")" = cmtu2
'

test_expect_success 'row 8: a non-MPI step under default=cluster is profiled once, then never' '
    plugstack default=cluster &&
    test_when_finished "plugstack" &&
    printf "#!/bin/sh\nsrun -n4 sh -c \"echo P=\\\$LD_PRELOAD\"\n" >nompi.sh &&
    chmod 755 nompi.sh &&
    for k in 1 2; do
        timed r8 sbw_as cmtu1 -t 3 -J nompi -N2 -n4 -o out/r8-$k.out -e out/r8-$k.err nompi.sh &&
        test "$(cat r8.rc)" = 0 && test_must_be_empty out/r8-$k.err || return 1
    done &&
    test "$(grep -c "P=.*libclustermap-prof" out/r8-1.out)" -eq 4 &&
    test "$(grep -c "^P=$" out/r8-2.out)" -eq 4 &&
    ls "$STORE/$U1" | grep "^nompi%40sh-[0-9a-f]*[.]4[.]json[.]nompi$" &&
    test "$(runs_of cmtu1 nompi 4)" = none
'

test_expect_success 'row 9: a step failing after MPI_Finalize: same exit code, not recorded' '
    printf "#!/bin/sh\n%s /bin/sh -c \"./halo_scrambled && exit 3\"\n" "$MPI_RUN" >fail.sh &&
    chmod 755 fail.sh &&
    timed r9off sbw_as cmtu1 -t 3 -J failoff -N2 -n4 --mapping=off -o out/r9off.out fail.sh;
    timed r9 sbw_as cmtu1 -t 3 -J fails -N2 -n4 --mapping=profile \
        -o out/r9.out -e out/r9.err fail.sh;
    test "$(cat r9.rc)" = "$(cat r9off.rc)" && test "$(cat r9.rc)" != 0 && in_time r9 &&
    test "$(runs_of cmtu1 fails 4)" = none &&
    lines out/r9.err "(task [0-9]+|mpirun) failed \(exit code 3\): the run of .fails. is not recorded" 1
'

test_expect_success 'row 10: past the placement deadline: Slurm default, one line, job runs' '
    plugstack deadline=0.001 &&
    test_when_finished "plugstack" &&
    timed r10 sbw_user cmtu1 -t 3 -J victim -N4 -n8 --mapping=cluster \
        -o out/r10.out -e out/r10.err job.sh &&
    test "$(cat r10.rc)" = 0 && in_time r10 &&
    test "$(ranks_hosts out/r10.out | wc -l)" -eq 8 &&
    test "$(cm_lines out/r10.err | wc -l)" -eq 1 &&
    grep -E "^clustermap: .*deadline.*; using Slurm.s default placement" out/r10.err
'

test_expect_success 'nothing is left in prof_dir or staged in the store; root made nothing in /tmp' '
    test -z "$(ls -A /run/clustermap)" &&
    ! ls -d "$STORE"/*/.step.* "$STORE"/*/.result.* 2>/dev/null &&
    test -z "$(find "$STATE"/tmp/n* -maxdepth 1 -user root -name "clustermap-*" ! -name "clustermap-cluster*")"
'

cluster_finish
remove_users

test_done
