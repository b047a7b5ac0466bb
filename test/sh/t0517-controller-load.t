#!/bin/sh
#
# What a placed srun asks of the controller, counted by slurmctld itself
# (sdiag's RPC statistics by message type, reset before each job): no
# REQUEST_NODE_INFO (the whole node table), node records only for nodes
# the slurm.conf srun reads does not describe, and REQUEST_TOPO_INFO only
# when the user's topology cache is missing, stale (a configuration file
# changed) or off (topo_cache=0).  A cache directory another user made,
# or a link in place of the cache file, is not used and not touched.
#
# Own cluster (CM_CLUSTER_NAME=t0517).  The batch script's sruns run on
# n1, whose /tmp is $STATE/tmp/n1 here.

test_description='SPANK plugin: controller requests of a placed srun'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0517}
unset CM_CLUSTER_SLURM_EXTRA
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"
# the cache's place when there is no runtime directory: the node's /tmp
unset XDG_RUNTIME_DIR

CACHE=$STATE/tmp/n1/clustermap-0

# rpcs TYPE: how many TYPE requests slurmctld served since the last reset
rpcs() {
    run sdiag >sdiag.out &&
    n=$(sed -n "s/^[[:space:]]*$1 .*count:\([0-9]*\).*/\1/p" sdiag.out) &&
    echo "${n:-0}"
}

# job K: one batch job on the four nodes running K placed sruns of the
# `pairs` profile one after the other, after a statistics reset; job.err
# keeps their lines
job() {
    {
        echo "#!/bin/sh"
        echo "${JOB_ENV:-}"
        i=0; while [ "$i" -lt "$1" ]; do
            echo "srun -n8 --mapping=cluster,name=pairs,verbose true || exit 1"
            i=$((i + 1))
        done
    } >job.sh &&
    run sdiag -r >/dev/null &&
    sbw -N4 --ntasks-per-node=2 --exclusive -o out/job.out -e out/job.err job.sh &&
    test "$(grep -c "^clustermap: placed 8 tasks of job .pairs. on 4 of 4 nodes" out/job.err)" \
        -eq "$1" || diag out/job.err
}

# expect NODE_INFO NODE_INFO_SINGLE TOPO_INFO: the counts since the reset
expect() {
    echo "$1 $2 $3" >expect.rpcs &&
    echo "$(rpcs REQUEST_NODE_INFO) $(rpcs REQUEST_NODE_INFO_SINGLE) $(rpcs REQUEST_TOPO_INFO)" \
        >actual.rpcs &&
    test_cmp expect.rpcs actual.rpcs || diag sdiag.out
}

test_expect_success 'cluster with the plugin comes up, the pairs profile is stored' '
    plugin_cluster_up &&
    import_pairs &&
    rm -rf "$CACHE"
'

test_expect_success 'two placed sruns: one topology request, no node table' '
    job 2 &&
    expect 0 0 1 &&
    test -d "$CACHE" && test "$(stat -c %a "$CACHE")" = 700 &&
    ls "$CACHE" | grep -E "^topology-[0-9a-f]{16}$"
'

test_expect_success 'a later job uses the kept topology: no request at all' '
    job 1 &&
    expect 0 0 0
'

test_expect_success 'a changed topology.conf makes srun ask again, once' '
    touch -d "+1 min" "$STATE/etc/topology.conf" &&
    job 2 &&
    expect 0 0 1
'

test_expect_success 'topo_cache=0: every srun asks' '
    plugstack topo_cache=0 &&
    job 2 &&
    expect 0 0 2 &&
    plugstack
'

# srun needs every node in its slurm.conf (for the node's address), so a
# node the file leaves out is a dynamic node, which this cluster has not.
# A file clustermap cannot read but Slurm can is the same case for every
# node of the step: Slurm resets CoresPerSocket=0 to 1 (with an error
# line), clustermap refuses it and asks the controller for each node.
test_expect_success 'a slurm.conf clustermap cannot read costs one record per node' '
    sed "s/^NodeName=n4 .*/& CoresPerSocket=0/" "$STATE/etc/slurm.conf" \
        >"$STATE/etc/slurm-n4.conf" &&
    grep -q "^NodeName=n4 .*CoresPerSocket=0" "$STATE/etc/slurm-n4.conf" &&
    JOB_ENV="export SLURM_CONF=$STATE/etc/slurm-n4.conf" job 1 &&
    expect 0 4 1
'

# The records the controller gave are kept in the user's cache as the
# switches are: the next sruns with that file ask nothing.
test_expect_success 'those node records are kept: two more sruns ask nothing' '
    JOB_ENV="export SLURM_CONF=$STATE/etc/slurm-n4.conf" job 2 &&
    expect 0 0 0 &&
    ls "$CACHE" | grep -E "^nodes-[0-9a-f]{16}$"
'

test_expect_success 'a link in place of the cache file is replaced, not followed' '
    rm -rf "$CACHE" &&
    job 1 &&
    f=$(ls "$CACHE") &&
    echo keep >target &&
    ln -sf "$PWD/target" "$CACHE/$f" &&
    job 1 &&
    expect 0 0 1 &&
    test "$(cat target)" = keep &&
    test -f "$CACHE/$f" && ! test -L "$CACHE/$f"
'

test_expect_success 'a cache directory another user made is not used' '
    rm -rf "$CACHE" && mkdir -m 700 "$CACHE" && chown nobody "$CACHE" &&
    job 2 &&
    expect 0 0 2 &&
    test "$(stat -c %U "$CACHE")" = nobody &&
    test -z "$(ls -A "$CACHE")" &&
    rm -rf "$CACHE"
'

cluster_finish
test_done
