#!/bin/sh
#
# mpirun in a batch job with --mapping.  The batch step puts clustermap's
# mpirun (build/bin/mpirun) first in the script's PATH; it writes mpirun's
# default layout into an Open MPI rank file and names it to mpirun
# (OMPI_MCA_rmaps_rank_file_path for Open MPI 4.1, --map-by
# rankfile:file= for 5 and 6); the srun that starts mpirun's daemons
# replaces it with the plan.  A profile imported with `clustermap profile
# import` (8 ranks, rank i talks to rank i + 4 only) places 8 ranks where
# the plan says, bound to the cores it says, 2 per node as Slurm gave the
# job; without a profile the ranks keep mpirun's own layout; a one-node
# job keeps it too.  The user's own mapping option (--map-by), an mpirun
# given by its full path and more ranks than the job's tasks leave mpirun
# alone with one line each, and the jobs run; the rank-file directory is
# gone after the job; a job without --mapping keeps its PATH.  The ranks are shell scripts printing Open
# MPI's rank variables: the mechanism, not MPI, is under test (t0510
# places MPI programs).
#
# Own cluster (CM_CLUSTER_NAME=t0514).

test_description='mpirun in a mapped batch job: clustermap.s mpirun and its rank file'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0514}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

if ! command -v mpirun >/dev/null 2>&1; then
    skip_all='needs mpirun'
    test_done
fi
FALLBACK="; using Slurm's default placement"
REAL_MPIRUN=$(command -v mpirun)
OMPI_MAJOR=$(mpirun --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9]*\)\..*/\1/p')

# job.sh NP [MPIRUN-OPTION...]: where the script found mpirun, then NP
# ranks of rank.sh
test_expect_success 'cluster with the plugin comes up; a profile and the job scripts' '
    plugin_cluster_up &&
    import_pairs &&
    cat >rank.sh <<-\EOF &&
	#!/bin/sh
	cpus=$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)
	echo "rank $OMPI_COMM_WORLD_RANK size $OMPI_COMM_WORLD_SIZE host $(hostname) cpus $cpus"
	EOF
    cat >job.sh <<-EOF &&
	#!/bin/sh
	echo "launcher \$(command -v mpirun) dir \${CLUSTERMAP_MPIRUN_DIR:-none}"
	np=\$1; shift
	mpirun --allow-run-as-root "\$@" -np \$np "$PWD/rank.sh"
	EOF
    chmod +x rank.sh job.sh
'

test_expect_success 'a profiled job: mpirun runs the ranks where the plan says' '
    cluster_idle &&
    sbw -N4 --ntasks-per-node=2 --exclusive --mapping=cluster,name=pairs,verbose \
        -o "$PWD/p.out" -e "$PWD/p.err" job.sh 8 &&
    grep "^launcher $PBUILD/bin/mpirun dir /.*/clustermap_mpirun\.[0-9]*\.[A-Za-z0-9]*$" p.out &&
    grep "^clustermap: placed 8 tasks of job .pairs. on 4 of 4 nodes" p.err &&
    check_plan_hosts p.err p.out 8
'

test_expect_success 'the placed ranks keep the job.s 2 per node; partners share a node' '
    pairs_share_nodes
'

# The virtual nodes claim 8 cores on this machine'"'"'s CPUs: core k is CPU k.
test_expect_success 'each placed rank is bound to the core of the plan' '
    plan_of p.err | awk "{print \$1, \$3}" | sort >plan.cores &&
    awk "\$1 == \"rank\" {print \$2, \$8}" p.out | sort >ran.cores &&
    test_cmp plan.cores ran.cores
'

# This machine has fewer cores than 4 ranks per node: they share them all
# (cores: the distinct sets of hardware threads).  Open MPI 5 and 6 take
# such a rank file only when told they may oversubscribe (and 6 that its
# binding may overload the cores): measured, see src/mpirun/mpirun.c.
cores=$(sort -u /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list | wc -l)
test_expect_success 'more ranks than cores on a node: placed, sharing the node.s cores' '
    cluster_idle &&
    sbw -N2 --ntasks-per-node=4 --exclusive --mapping=cluster,name=pairs,verbose \
        -o "$PWD/s.out" -e "$PWD/s.err" job.sh 8 &&
    grep "^clustermap: placed 8 tasks of job .pairs. on 2 of 2 nodes" s.err &&
    check_plan_hosts s.err s.out 8 &&
    grep "^clustermap: a node runs more ranks than the $cores cores mpirun.s node has: each rank is bound to all of them$" s.err &&
    awk "\$1 == \"rank\" {print \$8}" s.out | sort -u >cpus &&
    test "$(wc -l <cpus)" -eq 1 &&
    test "$(cat cpus)" = "$(cat /sys/devices/system/cpu/online)"
'

# The batch script ran on n1, whose /tmp is $STATE/tmp/n1.
test_expect_success 'the rank files are gone after the job' '
    dir=$(sed -n "s/^launcher .* dir //p" p.out) &&
    case $dir in
    /tmp/*) dir=$STATE/tmp/n1/${dir#/tmp/} ;;
    esac &&
    test -n "$dir" && ! test -e "$dir" &&
    test -d "$(dirname "$dir")"
'

test_expect_success 'no profile: mpirun.s own layout, one line' '
    cluster_idle &&
    sbw -N4 --ntasks-per-node=2 --exclusive --mapping=cluster,name=nosuch,noprofile,verbose \
        -o "$PWD/n.out" -e "$PWD/n.err" job.sh 8 &&
    one_line n.err "^clustermap: no profile for job .nosuch. with 8 tasks$FALLBACK$" &&
    ranks_hosts n.out | sort -n >ran.hosts &&
    printf "0 n1\n1 n1\n2 n2\n3 n2\n4 n3\n5 n3\n6 n4\n7 n4\n" >expect &&
    test_cmp expect ran.hosts
'

test_expect_success 'a one-node job starts no daemon: mpirun.s layout, no line' '
    sbw -N1 --ntasks-per-node=2 --exclusive --mapping=cluster,name=pairs,verbose \
        -o "$PWD/one.out" -e "$PWD/one.err" job.sh 2 &&
    test "$(ranks_hosts one.out | wc -l)" -eq 2 &&
    no_line one.err
'

test_expect_success 'the user.s own --map-by: left to mpirun, one line, it runs' '
    cluster_idle &&
    sbw -N4 --ntasks-per-node=2 --exclusive --mapping=cluster,name=pairs,verbose \
        -o "$PWD/m.out" -e "$PWD/m.err" job.sh 8 --map-by node &&
    one_line m.err "^clustermap: mpirun launch: mpirun decides the layout itself \(--map-by\)$FALLBACK" &&
    ranks_hosts m.out | sort -n >ran.hosts &&
    printf "0 n1\n1 n2\n2 n3\n3 n4\n4 n1\n5 n2\n6 n3\n7 n4\n" >expect &&
    test_cmp expect ran.hosts
'

test_expect_success 'more ranks than the job.s tasks: left to mpirun, one line, it runs' '
    sbw -N2 --ntasks-per-node=2 --exclusive --mapping=cluster,name=pairs,verbose \
        -o "$PWD/o.out" -e "$PWD/o.err" job.sh 6 --oversubscribe &&
    test "$(ranks_hosts o.out | wc -l)" -eq 6 &&
    one_line o.err "^clustermap: mpirun launch: mpirun -np 6: more ranks than the job.s 4 tasks$FALLBACK"
'

test_expect_success 'mpirun by its full path: not steered, one line, it runs' '
    printf "#!/bin/sh\n%s --allow-run-as-root -np 4 \"%s\"\n" "$REAL_MPIRUN" "$PWD/rank.sh" \
        >full.sh &&
    sbw -N2 --ntasks-per-node=2 --exclusive --mapping=cluster,name=pairs,verbose \
        -o "$PWD/f.out" -e "$PWD/f.err" full.sh &&
    test "$(ranks_hosts f.out | wc -l)" -eq 4 &&
    one_line f.err "^clustermap: mpirun launch: not started through clustermap.s mpirun \(a path to another mpirun, one ahead in PATH, salloc, or mpirun=no\)$FALLBACK"
'

# Ranks started by mpirun inherit SLURM_PROCID from their daemon (or, on
# mpirun's node, from the batch script): the library names their parts by
# world rank, or 2 ranks on one node would write one part.
test_expect_success 'the profiling library under mpirun: one part per rank' '
    mpicc -O2 -o hello_hosts "$CM_ROOT/test/mpi/hello_hosts.c" &&
    mkdir -m 0777 prof &&
    printf "#!/bin/sh\nmpirun --allow-run-as-root -x LD_PRELOAD=%s -x CLUSTERMAP_PROFILE_DIR=\"%s\" -np 2 \"%s\"\n" \
        "$PROFLIB" "$PWD/prof" "$PWD/hello_hosts" >prof.sh &&
    sbw -N1 --ntasks-per-node=2 --exclusive -o "$PWD/prof.out" -e "$PWD/prof.err" prof.sh &&
    test "$(ranks_hosts prof.out | wc -l)" -eq 2 &&
    ls prof >parts &&
    printf "part.0.txt\npart.1.txt\n" >expect &&
    test_cmp expect parts &&
    "$CM" profile --store "$STORE" import prof --job-name mpiprof >import.out &&
    grep "with 2 tasks" import.out
'

# Open MPI 6.0.0rc2 cannot pair TCP endpoints across the virtual nodes
# (test/stacks/README.md): the profiled mpirun run needs MPI across nodes.
printf "#!/bin/sh\nmpirun --allow-run-as-root \"%s\"\n" "$PWD/hello_hosts" >hello.sh
if sbw -N2 --ntasks-per-node=2 --exclusive -o "$PWD/hello.out" -e "$PWD/hello.err" \
        hello.sh >/dev/null 2>&1 && test "$(ranks_hosts hello.out | wc -l)" -eq 4; then
    test_set_prereq MPI_NODES
else
    say "# mpirun cannot run MPI programs across the virtual nodes with this Open MPI"
fi

test_expect_success MPI_NODES 'an mpirun run without a profile is profiled, the next placed' '
    cluster_idle &&
    sbw -J mpiprof -N2 --ntasks-per-node=2 --exclusive --mapping=cluster,verbose \
        -o "$PWD/r1.out" -e "$PWD/r1.err" hello.sh &&
    test "$(ranks_hosts r1.out | wc -l)" -eq 4 &&
    cm_lines r1.err >lines &&
    grep "^clustermap: no profile for job .mpiprof. with 4 tasks$FALLBACK (profiling this run)$" lines &&
    grep "^clustermap: recorded the run in the profile of .mpiprof. with 4 tasks" lines &&
    test "$(wc -l <lines)" -eq 2 &&
    profile_file "$STORE/$(id -u)" mpiprof 4 &&
    test -z "$(ls -a "$STORE/$(id -u)" | grep "^\.mpirun\.")" &&
    sbw -J mpiprof -N2 --ntasks-per-node=2 --exclusive --mapping=cluster,verbose \
        -o "$PWD/r2.out" -e "$PWD/r2.err" hello.sh &&
    grep "^clustermap: placed 4 tasks of job .mpiprof. on 2 of 2 nodes" r2.err &&
    check_plan_hosts r2.err r2.out 4
'

test_expect_success 'a job without --mapping keeps its PATH and hears nothing' '
    sbw -N2 --ntasks-per-node=2 --exclusive -o "$PWD/plain.out" -e "$PWD/plain.err" \
        job.sh 4 &&
    grep "^launcher $REAL_MPIRUN dir none$" plain.out &&
    test "$(ranks_hosts plain.out | wc -l)" -eq 4 &&
    no_line plain.err
'

test_expect_success 'the cluster stops' '
    cluster_finish
'

test_done
