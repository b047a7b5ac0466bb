#!/bin/sh
#
# The plugin under this stack's Slurm, with no MPI in the way: what every
# stack must do whatever its MPI can (forky's Slurm 26.05.5 has no
# mpi/pmix, so Open MPI 6 programs cannot start under srun there).  A
# profile imported with `clustermap profile import` (8 ranks, rank i talks
# to rank i + 4 only) places a plain shell step: the ranks land where the
# plan says, every node keeps Slurm's 2 tasks, partners share a node, each
# rank is bound to the CPU the plugin says; fallbacks (one task, -w, -N on
# Slurm 23.11 and later) say one line each; --mapping=help names the
# release the plugin was built for; mpirun's daemon launch says its line;
# under Slurm 26.05 with topology/block the step keeps Slurm's layout.
#
# Own cluster (CM_CLUSTER_NAME=t0530).

test_description='the plugin under this stack: placement of a non-MPI step'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0530}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"

FALLBACK="; using Slurm's default placement"

test_expect_success 'cluster with the plugin comes up; a rank-printing step' '
    plugin_cluster_up &&
    cat >where.sh <<-\EOF &&
	#!/bin/sh
	# "rank R size S host H cpus C", as test/mpi/hello_hosts.c prints
	cpus=$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)
	echo "rank $SLURM_PROCID size $SLURM_NTASKS host $(hostname) cpus $cpus"
	EOF
    chmod +x where.sh &&
    import_pairs
'

test_expect_success '--mapping=help names the Slurm release the plugin was built for' '
    run srun --mapping=help true >help.out &&
    grep "^This plugin was built for Slurm $SLURM_RELEASE\.$" help.out
'

# Slurm's own layout puts ranks 0-1 on n1, 2-3 on n2...: every pair apart.
test_expect_success 'a plain step is placed from the imported profile' '
    cluster_idle &&
    run salloc -N4 -n8 --exclusive srun --mapping=cluster,name=pairs,verbose ./where.sh \
        >p.out 2>p.err &&
    grep "^clustermap: placed 8 tasks of job .pairs. on 4 of 4 nodes" p.err &&
    check_plan_hosts p.err p.out 8
'

test_expect_success 'the placed step keeps Slurm.s 2 tasks per node; partners share a node' '
    pairs_share_nodes
'

test_expect_success 'each placed rank runs on the CPUs the plugin bound it to' '
    check_bound p.err p.out 8
'

test_expect_success 'one task, -w: left to Slurm, one line each' '
    run salloc -N2 -n2 --exclusive srun --mapping=cluster,name=pairs,verbose -n1 ./where.sh \
        >one.out 2>one.err &&
    test "$(ranks_hosts one.out | wc -l)" -eq 1 &&
    one_line one.err "^clustermap: one task: nothing to place$FALLBACK" &&
    run salloc -N4 -n8 --exclusive srun --mapping=cluster,name=pairs,verbose -w n1,n2,n3,n4 \
        ./where.sh >w.out 2>w.err &&
    test "$(ranks_hosts w.out | wc -l)" -eq 8 &&
    one_line w.err "^clustermap: the step.s layout is given \(-w\)$FALLBACK"
'

test_expect_success NODES_ARBITRARY 'srun -N2 (Slurm before 23.11): placed on 2 nodes' '
    run salloc -N4 -n8 --exclusive srun --mapping=cluster,name=pairs,verbose -N2 -n8 \
        ./where.sh >n2.out 2>n2.err &&
    grep "^clustermap: placed 8 tasks of job .pairs. on 2 of 2 nodes" n2.err &&
    test "$(ranks_hosts n2.out | wc -l)" -eq 8
'

test_expect_success !NODES_ARBITRARY 'srun -N2 (Slurm 23.11 and later): Slurm.s layout, one line why' '
    run salloc -N4 -n8 --exclusive srun --mapping=cluster,name=pairs,verbose -N2 -n8 \
        ./where.sh >n2.out 2>n2.err &&
    test "$(ranks_hosts n2.out | wc -l)" -eq 8 &&
    one_line n2.err "^clustermap: srun -N: this Slurm refuses a node count together with the arbitrary layout a placement needs$FALLBACK"
'

test_expect_success 'mpirun in a mapped batch job: runs, its daemon launch says one line' '
    printf "#!/bin/sh\nmpirun --allow-run-as-root --bind-to none -np 4 hostname\n" >mpi.sh &&
    sbw -N2 -n4 --mapping=cluster,verbose -o "$PWD/mpi.out" -e "$PWD/mpi.err" mpi.sh &&
    test "$(wc -l <mpi.out)" -eq 4 &&
    one_line mpi.err "^clustermap: mpirun launch: mpirun decides the layout itself \(--bind-to\)$FALLBACK"
'

# Slurm 26.05 refuses SLURM_HOSTFILE's arbitrary layout under
# topology/block: such a step keeps Slurm's layout and says why.
slurm_older_than 26.05 || test_set_prereq BLOCK_REFUSES

test_expect_success BLOCK_REFUSES 'topology/block (Slurm 26.05): Slurm.s layout, one line why' '
    CM_CLUSTER_TOPOLOGY=block && export CM_CLUSTER_TOPOLOGY &&
    test_when_finished "unset CM_CLUSTER_TOPOLOGY" &&
    plugin_cluster_up &&
    # a restarted cluster starts with an empty store
    "$CM" profile --store "$STORE" import pairs.txt --job-name pairs --format triplets &&
    run scontrol show topology >topo.out &&
    grep "^BlockName=b1 " topo.out &&
    run salloc -N4 -n8 --exclusive srun --mapping=cluster,name=pairs,verbose ./where.sh \
        >blk.out 2>blk.err &&
    test "$(ranks_hosts blk.out | wc -l)" -eq 8 &&
    one_line blk.err "^clustermap: topology/block: this Slurm refuses the arbitrary layout a placement needs with it$FALLBACK"
'

test_expect_success 'cluster down' '
    cluster_finish
'

test_done
