#!/bin/sh
#
# What a step leaves behind, on the virtual cluster with two unprivileged
# users (cmtu1 the victim, cmtu2 the attacker), as t0520-security.t: a
# step's private profiling directory is removed by root whatever the user
# put in it or did to it (a subdirectory filled with data, chmod 500), a
# step over its budget is not recorded with one line and keeps its exit
# code, a full file system is named as the cause, a killed srun's hostfile
# goes at the next step, and a non-MPI step disables no other program's
# profile.
#
# prof_dir is a 32 MB tmpfs on every node (RAM, as /run/clustermap is on
# most clusters), mounted in slurmd's mount namespace.
#
# Own cluster (CM_CLUSTER_NAME=t0521); creates cmtu1 and cmtu2 when missing
# and removes those it created.

test_description='leftovers: private directories, budgets, hostfiles, no-MPI marks'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0521}
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

# The rows about srun's per-node profiling directory need srun to start
# MPI programs (mpirun's ranks stage their parts in the store).
needs_srun_pmix
test_users
LOGS=$STATE/log

sbw_user() { race_retry sbw_as "$@"; }

timed() {
    _tn=$1; shift
    _t0=$(date +%s)
    "$@"; echo $? >"$_tn.rc"
    echo $(( $(date +%s) - _t0 )) >"$_tn.sec"
}
in_time() {
    test "$(cat "$1.sec")" -le $(( $(cat base.sec) + 20 ))
}
lines() {
    test "$(cm_lines "$1" | grep -c -E "$2")" -eq "$3"
}
runs_of() {
    as "$1" "$CM" profile --store "$STORE" show "$2" --ntasks "$3" 2>/dev/null |
        sed -n 's/^runs=//p' | grep . || echo none
}

# on_node N CMD...: CMD in node nN's mount namespace (its /tmp, its tmpfs)
on_node() {
    _on=$1; shift
    nsenter -t "$(cat "$STATE/run/slurmd-n$_on.pid")" -m -r "$@"
}

# prof_left: what the prof_dir of every node holds (nothing, when clean)
prof_left() {
    for i in 1 2 3 4; do on_node "$i" find /tmp/cmprof -mindepth 1; done
}

PROF="prof_dir=/tmp/cmprof"

test_expect_success 'cluster with the plugin comes up; prof_dir a 32 MB tmpfs; programs' '
    plugin_cluster_up &&
    for i in 1 2 3 4; do
        mkdir -p "$STATE/tmp/n$i/cmprof" && chmod 711 "$STATE/tmp/n$i/cmprof" &&
        on_node "$i" mount -t tmpfs -o size=32m,mode=0711 cm-prof /tmp/cmprof || return 1
    done &&
    plugstack $PROF &&
    mpicc -std=c11 -Wall -O2 -o halo_scrambled "$CM_ROOT/test/mpi/halo_scrambled.c" &&
    printf "#!/bin/sh\n%s ./halo_scrambled\n" "$MPI_RUN" >job.sh &&
    chmod 755 job.sh halo_scrambled . &&
    timed base sbw_user cmtu1 -t 3 -J base -N4 -n8 --mapping=off -o out/base.out job.sh &&
    test "$(cat base.rc)" = 0
'

# The steps name no node count (-N): from Slurm 23.11 on a step given -N
# keeps Slurm's layout unprofiled, and the attack would not run.
test_expect_success 'the fill attack and chmod 500 leave nothing in prof_dir after the step' '
    cat >fill.sh <<-\EOF &&
	#!/bin/sh
	srun --mapping=profile -n2 --ntasks-per-node=1 sh -c "mkdir \$CLUSTERMAP_PROFILE_DIR/keep && dd if=/dev/zero of=\$CLUSTERMAP_PROFILE_DIR/keep/blob.\$SLURM_PROCID bs=1M count=40 2>/dev/null"
	srun --mapping=profile -n2 --ntasks-per-node=1 sh -c "d=\$CLUSTERMAP_PROFILE_DIR; mkdir -p \$d/keep/deep && dd if=/dev/zero of=\$d/keep/deep/blob.\$SLURM_PROCID bs=1M count=8 2>/dev/null; ln -s /etc \$d/keep/etc; chmod 500 \$d/keep/deep \$d/keep \$d"
	true
	EOF
    chmod 755 fill.sh &&
    sbw_as cmtu2 -t 3 -J fill -N2 -n2 -o out/fill.out -e out/fill.err fill.sh &&
    ! grep -F "'"'"'/keep" out/fill.err &&
    prof_left >left &&
    test_must_be_empty left &&
    ! grep -E "Directory not empty|left for the job epilog" "$LOGS"/slurmd-n*.log &&
    test -s /etc/passwd
'

test_expect_success 'the victim next job runs in its normal time and is recorded' '
    timed v sbw_user cmtu1 -t 3 -J victim -N4 -n8 --mapping=profile \
        -o out/v.out -e out/v.err job.sh &&
    test "$(cat v.rc)" = 0 && in_time v &&
    test "$(ranks_hosts out/v.out | wc -l)" -eq 8 &&
    test "$(runs_of cmtu1 victim 8)" = 1 &&
    ! grep -E "MPI_Finalize|No space" out/v.err &&
    prof_left >left && test_must_be_empty left
'

test_expect_success 'a step over its budget: one line, exit code unchanged, not recorded' '
    printf "#!/bin/sh\n%s /bin/sh -c \"./halo_scrambled && dd if=/dev/zero of=\\\$CLUSTERMAP_PROFILE_DIR/extra.\\\$SLURM_PROCID bs=1M count=2 2>/dev/null; exit 3\"\n" \
        "$MPI_RUN" >big.sh &&
    chmod 755 big.sh &&
    timed bigoff sbw_user cmtu1 -t 3 -J bigoff -N2 -n4 --mapping=off -o out/bigoff.out big.sh;
    plugstack $PROF step_budget=1048576 &&
    test_when_finished "plugstack $PROF" &&
    timed big sbw_user cmtu1 -t 3 -J big -N2 -n4 --mapping=profile \
        -o out/big.out -e out/big.err big.sh;
    test "$(cat big.rc)" = "$(cat bigoff.rc)" && in_time big &&
    test "$(runs_of cmtu1 big 4)" = none &&
    printf "#!/bin/sh\n%s /bin/sh -c \"./halo_scrambled && dd if=/dev/zero of=\\\$CLUSTERMAP_PROFILE_DIR/extra.\\\$SLURM_PROCID bs=1M count=2 2>/dev/null; true\"\n" \
        "$MPI_RUN" >big0.sh &&
    chmod 755 big0.sh &&
    timed big0 sbw_user cmtu1 -t 3 -J big0 -N2 -n4 --mapping=profile \
        -o out/big0.out -e out/big0.err big0.sh &&
    test "$(cat big0.rc)" = 0 &&
    test "$(runs_of cmtu1 big0 4)" = none &&
    lines out/big0.err "over step_budget=1.0 MiB: profiling ended for this step" 1 &&
    test "$(cm_lines out/big0.err | wc -l)" -eq 1 &&
    prof_left >left && test_must_be_empty left
'

test_expect_success 'a full prof_dir is named as the cause, not MPI_Finalize' '
    printf "#!/bin/sh\n%s /bin/sh -c \"dd if=/dev/zero of=\\\$CLUSTERMAP_PROFILE_DIR/fill.\\\$SLURM_PROCID bs=1M count=40 2>/dev/null; ./halo_scrambled\"\n" \
        "$MPI_RUN" >full.sh &&
    chmod 755 full.sh &&
    timed full sbw_user cmtu1 -t 3 -J full -N2 -n2 --mapping=profile \
        -o out/full.out -e out/full.err full.sh &&
    test "$(cat full.rc)" = 0 &&
    test "$(runs_of cmtu1 full 2)" = none &&
    grep "^clustermap-prof: no space left in /tmp/cmprof/job" out/full.err &&
    lines out/full.err "sent no profile .*no space left in /tmp/cmprof/job" 1 &&
    ! grep MPI_Finalize out/full.err &&
    prof_left >left && test_must_be_empty left
'

test_expect_success 'a killed srun leaves its hostfile; the next step removes it' '
    cat >kill.sh <<-\EOF &&
	#!/bin/sh
	srun --mapping=block -n4 sleep 60 &
	pid=$!
	for i in $(seq 100); do
	    ls /tmp/clustermap-hosts.* >/dev/null 2>&1 && break
	    sleep 0.1
	done
	kill -9 $pid
	echo "after kill: $(ls /tmp/clustermap-hosts.* 2>/dev/null | wc -l)"
	scancel -s KILL "$SLURM_JOB_ID.0" 2>/dev/null
	sleep 1
	srun --mapping=block -n4 true
	echo "after next: $(ls /tmp/clustermap-hosts.* 2>/dev/null | wc -l)"
	EOF
    chmod 755 kill.sh &&
    sbw_as cmtu1 -t 3 -J killed -N2 -n4 -o out/kill.out -e out/kill.err kill.sh &&
    grep -x "after kill: 1" out/kill.out &&
    grep -x "after next: 0" out/kill.out
'

test_expect_success 'a non-MPI step named X does not disable the imported profile X' '
    for i in 0 1 2 3; do
        echo "$i $((i + 4)) 1000000 100" && echo "$((i + 4)) $i 1000000 100" || return 1
    done >pairs.txt &&
    chmod 644 pairs.txt &&
    as cmtu1 "$CM" profile --store "$STORE" import pairs.txt --job-name xprof \
        --format triplets &&
    plugstack $PROF guard=yes &&
    test_when_finished "plugstack $PROF" &&
    printf "#!/bin/sh\nsrun --mapping=cluster,name=xprof -n8 true\n" >xtrue.sh &&
    printf "#!/bin/sh\n%s --mapping=cluster,name=xprof,verbose ./halo_scrambled\n" \
        "$MPI_RUN" >xmpi.sh &&
    chmod 755 xtrue.sh xmpi.sh &&
    sbw_as cmtu1 -t 3 -J anything -N4 -n8 -o out/xtrue.out -e out/xtrue.err xtrue.sh &&
    for i in $(seq 50); do
        ls "$STORE/$U1" | grep -q "^xprof%40true-[0-9a-f]*[.]8[.]json[.]nompi$" && break
        sleep 0.1
    done &&
    ls "$STORE/$U1" | grep "^xprof%40true-[0-9a-f]*[.]8[.]json[.]nompi$" &&
    ! ls "$STORE/$U1/xprof.8.json.nompi" 2>/dev/null &&
    sbw_user cmtu1 -t 3 -J anything -N4 -n8 -o out/xmpi.out -e out/xmpi.err xmpi.sh &&
    grep "^clustermap: placed 8 tasks of job .xprof." out/xmpi.err &&
    ! grep "did not call MPI_Init" out/xmpi.err
'

test_expect_success 'sbatch -J X finds the profile imported as X, and says under which key' '
    sbw_user cmtu1 -t 3 -J xprof -N4 -n8 --mapping=cluster,verbose \
        -o out/xj.out -e out/xj.err job.sh &&
    grep "^clustermap: profile of job .xprof. with 8 tasks: none under .xprof@halo_scrambled-[0-9a-f]*. (the job name and the program), using the one under .xprof. (imported, or made with name=)$" out/xj.err &&
    grep "^clustermap: placed 8 tasks of job .xprof." out/xj.err &&
    id=$(ls -t "$STORE/$U1"/.explain.* 2>/dev/null | head -n1 | sed "s/.*[.]explain[.]//") &&
    as cmtu1 "$CM" explain --store "$STORE" "$id" >explain.out &&
    grep "^profile=xprof$" explain.out &&
    grep "^looked_up=xprof@halo_scrambled-[0-9a-f]* xprof$" explain.out
'

test_expect_success 'nothing is left in prof_dir, /run/clustermap or /tmp' '
    prof_left >left && test_must_be_empty left &&
    test -z "$(ls -A /run/clustermap 2>/dev/null)" &&
    ! ls "$STATE"/tmp/n*/clustermap-hosts.* 2>/dev/null &&
    ! ls -d "$STORE"/*/.step.* 2>/dev/null
'

test_expect_success 'unmount the tmpfs' '
    for i in 1 2 3 4; do on_node "$i" umount /tmp/cmprof || return 1; done
'

cluster_finish
remove_users

test_done
