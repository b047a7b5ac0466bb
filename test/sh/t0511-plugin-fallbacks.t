#!/bin/sh
#
# The SPANK plugin when things go wrong, and with several users: each
# fallback leaves Slurm's default placement, prints exactly one
# "clustermap:" line, and the job succeeds.  No profile, a corrupt profile,
# a profile of another task count, a store the user cannot read, a store
# directory the user cannot write (the line then says the run is not
# profiled), controller data the user may not load (PrivateData=nodes: a
# real slurm_load_node_single failure).  Two users: profiles are ingested as the
# user into the user's own directory, and one user can neither read nor
# use the other's.  Several jobs ending together all get merged.
#
# The program starts with $MPI_RUN (lib/cluster.sh): srun, or clustermap's
# mpirun where this Slurm has no PMIx (forky), whose daemons need no
# controller data (that case is srun's only).
#
# Own cluster (CM_CLUSTER_NAME=t0511, PrivateData=nodes); creates the test
# users cmtu1 and cmtu2 when missing and removes those it created.

test_description='SPANK plugin: fallbacks, two users, concurrent ingest'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0511}
CM_CLUSTER_SLURM_EXTRA="PrivateData=nodes"
export CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

test_users


test_expect_success 'cluster with the plugin comes up' '
    plugin_cluster_up &&
    grep -q "^PrivateData=nodes" "$STATE/etc/slurm.conf"
'

test_expect_success 'compile the scrambled halo' '
    mpicc -std=c11 -Wall -Wextra -Werror -O2 -o halo_scrambled \
        "$CM_ROOT/test/mpi/halo_scrambled.c" &&
    printf "#!/bin/sh\n%s ./halo_scrambled\n" "$MPI_RUN" >job.sh &&
    chmod 755 job.sh halo_scrambled
'

test_expect_success 'no profile: one line, default placement, job succeeds' '
    sbw -J fresh -N2 -n4 --mapping=cluster -o out/fresh.out -e out/fresh.err job.sh &&
    one_line out/fresh.err "^clustermap: no profile for job .fresh. with 4 tasks; using Slurm.s default placement \(profiling this run\)$" &&
    test "$(ranks_hosts out/fresh.out | wc -l)" -eq 4
'

test_expect_success 'a profile of another task count is named in the line' '
    for i in $(seq 50); do
        "$CM" profile --store "$STORE" list | grep -q "^fresh  *4 " && break
        sleep 0.1
    done &&
    sbw -J fresh -N2 -n8 --mapping=cluster,noprofile -o out/other.out -e out/other.err job.sh &&
    one_line out/other.err "^clustermap: no profile for job .fresh. with 8 tasks \(it has profiles for 4 tasks\); using Slurm.s default placement$" &&
    test "$(ranks_hosts out/other.out | wc -l)" -eq 8
'

test_expect_success 'a corrupt profile: one line naming the checksum, job succeeds' '
    f=$(profile_file "$STORE/0" fresh 4) &&
    test -f "$f" &&
    sed "s/\"runs\": *1/\"runs\": 7/" "$f" >corrupt.json &&
    ! cmp -s "$f" corrupt.json &&
    cat corrupt.json >"$f" &&
    sbw -J fresh -N2 -n4 --mapping=cluster -o out/corrupt.out -e out/corrupt.err job.sh &&
    one_line out/corrupt.err "^clustermap: cannot use the profile of job .fresh. with 4 tasks: .*checksum.*; using Slurm.s default placement$" &&
    test "$(ranks_hosts out/corrupt.out | wc -l)" -eq 4
'

test_expect_success 'a user profiles a job: ingested as the user, into a 0700 directory' '
    sbw_as cmtu1 -J u1job -N2 -n4 --mapping=profile \
        -o out/u1.out -e out/u1.err job.sh &&
    test "$(ranks_hosts out/u1.out | wc -l)" -eq 4 &&
    for i in $(seq 50); do profile_file "$STORE/$U1" u1job 4 >u1.path && break; sleep 0.1; done &&
    test "$(stat -c "%U %a" "$STORE/$U1")" = "cmtu1 700" &&
    test "$(stat -c "%U %a" "$(cat u1.path)")" = "cmtu1 600" &&
    test_must_be_empty out/u1.err
'

test_expect_success 'a store directory the user cannot write: the line says no profiling' '
    chmod 0500 "$STORE/$U1" &&
    test_when_finished "chmod 0700 \"$STORE/$U1\"" &&
    sbw_as cmtu1 -J u1new -N2 -n4 --mapping=cluster \
        -o out/nowrite.out -e out/nowrite.err job.sh &&
    one_line out/nowrite.err "^clustermap: no profile for job .u1new. with 4 tasks; using Slurm.s default placement \(not profiling this run: .*not writable.*\)$" &&
    test "$(ranks_hosts out/nowrite.out | wc -l)" -eq 4
'

# (mpirun's daemons take the job's nodes from clustermap's mpirun: no
# controller data is needed to place them)
# srun takes the nodes' sockets and cores from its slurm.conf and asks the
# controller only for nodes it cannot read there: a copy that Slurm reads
# (it resets CoresPerSocket=0 to 1) and clustermap refuses makes srun ask
# for n1 and n2, which PrivateData=nodes denies a user.
test_expect_success SRUN_PMIX 'controller data unavailable (PrivateData=nodes): one line' '
    sed "s/^NodeName=n[12] .*/& CoresPerSocket=0/" "$STATE/etc/slurm.conf" \
        >"$STATE/etc/slurm-unread.conf" &&
    chmod 644 "$STATE/etc/slurm-unread.conf" &&
    printf "#!/bin/sh\nexport SLURM_CONF=%s\n%s ./halo_scrambled\n" \
        "$STATE/etc/slurm-unread.conf" "$MPI_RUN" >ctljob.sh &&
    chmod 755 ctljob.sh &&
    sbw_as cmtu1 -J u1job -N2 -n4 --mapping=cluster \
        -o out/ctl.out -e out/ctl.err ctljob.sh &&
    one_line out/ctl.err "^clustermap: controller data unavailable \(slurm_load_node_single n[12]: .*\); using Slurm.s default placement$" &&
    test "$(ranks_hosts out/ctl.out | wc -l)" -eq 4
'

test_expect_success 'the other user can neither read nor use that profile' '
    test_must_fail as cmtu2 cat "$(cat u1.path)" &&
    test_must_fail as cmtu2 "$CM" profile --store "$STORE" list --user cmtu1 &&
    sbw_as cmtu2 -J u2job -N2 -n4 --mapping=cluster,name=u1job,noprofile \
        -o out/u2.out -e out/u2.err job.sh &&
    one_line out/u2.err "^clustermap: no profile for job .u1job. with 4 tasks; using Slurm.s default placement$" &&
    test "$(ranks_hosts out/u2.out | wc -l)" -eq 4 &&
    ! profile_file "$STORE/$U2" u1job 4
'

test_expect_success 'a store the user cannot read: one line, job succeeds' '
    chown cmtu2 "$STORE/$U1" &&
    test_when_finished "chown cmtu1 \"$STORE/$U1\"" &&
    sbw_as cmtu1 -J u1job -N2 -n4 --mapping=cluster \
        -o out/unread.out -e out/unread.err job.sh &&
    one_line out/unread.err "^clustermap: cannot use the profile of job .u1job. with 4 tasks: .*; using Slurm.s default placement$" &&
    test "$(ranks_hosts out/unread.out | wc -l)" -eq 4
'

test_expect_success 'three jobs ending together: all three runs are merged' '
    for k in 1 2 3; do
        sbw -J together -N2 -n4 --mapping=profile -o out/tog$k.out job.sh >/dev/null &
    done &&
    wait &&
    for k in 1 2 3; do test "$(ranks_hosts out/tog$k.out | wc -l)" -eq 4 || return 1; done &&
    for i in $(seq 50); do
        "$CM" profile --store "$STORE" show together --ntasks 4 >tog.show 2>/dev/null &&
        grep -q "^runs=3$" tog.show && break
        sleep 0.1
    done &&
    grep "^runs=3$" tog.show
'

test_expect_success 'no profiling directory is left on the nodes' '
    test -z "$(ls -A /run/clustermap 2>/dev/null)" &&
    ! ls -d "$STORE"/*/.step.* 2>/dev/null
'

cluster_finish
remove_users

test_done
