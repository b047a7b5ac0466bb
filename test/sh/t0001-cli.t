#!/bin/sh
test_description='clustermap: --help, --version and usage errors (exit 2)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

M=$CM_MATRICES/cg.S.16.mtx
H="--hierarchy 4:2:2 --distances 1:2:10"

# expect_usage TEXT CMD...: CMD exits 2 and says TEXT on stderr, nothing on
# stdout.
expect_usage() {
    text=$1; shift
    test_expect_code 2 "$CLUSTERMAP" "$@" >out 2>err &&
    test_must_be_empty out &&
    grep -F -- "$text" err
}

test_expect_success '--version prints CM_VERSION' '
    version=$(sed -n "s/^#define CM_VERSION \"\(.*\)\"/\1/p" "$CM_ROOT/src/core/clustermap.h") &&
    test -n "$version" &&
    echo "clustermap $version" >expect &&
    cm_run --version >actual &&
    test_cmp expect actual
'

test_expect_success '--help lists every subcommand and exits 0' '
    cm_run --help >out &&
    grep "^Usage: clustermap" out &&
    grep "^  plan  *compute" out &&
    grep "^  eval  *print" out
'

test_expect_success 'no command is a usage error' '
    test_expect_code 2 "$CLUSTERMAP" 2>err &&
    grep "^clustermap: missing command" err &&
    grep "clustermap --help" err
'

test_expect_success 'unknown command is a usage error' '
    test_expect_code 2 "$CLUSTERMAP" frobnicate 2>err &&
    grep "^clustermap: unknown command .frobnicate." err
'

test_expect_success 'unknown top-level option is a usage error' '
    test_expect_code 2 "$CLUSTERMAP" --frob 2>err &&
    grep "^clustermap: unknown option .--frob." err
'

for cmd in eval plan; do
    test_expect_success "$cmd --help lists its options and an example" '
        cm_run $cmd --help >out &&
        grep "^Usage: clustermap $cmd" out &&
        for opt in --matrix --format --hierarchy --distances --hwloc-xml \
                   --hwloc-live --nodes --slurm-conf --topology-conf \
                   --nodelist --level-costs --level-latency --level-bandwidth \
                   --seed --weight --verbose --help; do
            grep -e "^ *$opt" -e "^ *-., $opt" out || return 1
        done &&
        grep "^Example" out &&
        grep "^  clustermap $cmd " out
    '

    test_expect_success "$cmd: unknown option" '
        expect_usage "clustermap $cmd: unknown option '"'"'--bogus'"'"'" $cmd --bogus &&
        grep "Try .clustermap $cmd --help." err
    '

    test_expect_success "$cmd: option without its argument" '
        expect_usage "clustermap $cmd: option '"'"'--matrix'"'"' needs an argument" $cmd --matrix
    '

    test_expect_success "$cmd: stray argument" '
        expect_usage "clustermap $cmd: unexpected argument '"'"'extra'"'"'" $cmd --matrix $M $H extra
    '

    test_expect_success "$cmd: no machine description" '
        expect_usage "clustermap $cmd: missing machine description" $cmd --matrix $M
    '

    test_expect_success "$cmd: two machine descriptions" '
        expect_usage "conflicting machine descriptions: --hierarchy and --hwloc-xml" \
            $cmd --matrix $M $H --hwloc-xml topo.xml &&
        expect_usage "conflicting machine descriptions: --hierarchy and --slurm-conf" \
            $cmd --matrix $M $H --slurm-conf slurm.conf --nodelist n1 &&
        expect_usage "conflicting machine descriptions: --hwloc-xml and --slurm-conf" \
            $cmd --matrix $M --hwloc-xml t.xml --slurm-conf s.conf &&
        expect_usage "conflicting machine descriptions: --hwloc-xml and --hwloc-live" \
            $cmd --matrix $M --hwloc-xml t.xml --hwloc-live
    '

    test_expect_success "$cmd: incomplete machine descriptions" '
        expect_usage "clustermap $cmd: --hierarchy needs --distances" \
            $cmd --matrix $M --hierarchy 4:2:2 &&
        expect_usage "clustermap $cmd: --distances needs --hierarchy" \
            $cmd --matrix $M --distances 1:2:10 &&
        expect_usage "clustermap $cmd: --nodes needs --hwloc-xml or --hwloc-live" \
            $cmd --matrix $M --nodes 2 &&
        expect_usage "clustermap $cmd: --topology-conf needs --slurm-conf" \
            $cmd --matrix $M --topology-conf topo.conf &&
        (unset SLURM_JOB_NODELIST;
         expect_usage "clustermap $cmd: --slurm-conf needs --nodelist" \
            $cmd --matrix $M --slurm-conf s.conf)
    '

    test_expect_success "$cmd: missing --matrix" '
        expect_usage "clustermap $cmd: missing --matrix FILE" $cmd $H
    '

    test_expect_success "$cmd: bad --format, --nodes, --seed" '
        expect_usage "--format expects auto, mtx, metis or triplets, got '"'"'csv'"'"'" \
            $cmd --matrix $M --format csv $H &&
        expect_usage "--nodes expects an integer from 1" \
            $cmd --matrix $M --hwloc-live --nodes 0 &&
        expect_usage "--nodes expects an integer from 1" \
            $cmd --matrix $M --hwloc-live --nodes 2x &&
        expect_usage "--seed expects a non-negative integer, got '"'"'-3'"'"'" \
            $cmd --matrix $M $H --seed -3
    '

    test_expect_success "$cmd: repeated option" '
        expect_usage "clustermap $cmd: --matrix given twice" \
            $cmd --matrix $M --matrix $M $H
    '
done

test_expect_success 'eval: missing --mapping names the choices' '
    expect_usage "clustermap eval: missing --mapping FILE|block|cyclic|random|scotch" \
        eval --matrix $M $H
'

test_expect_success 'plan: --algorithm defaults to auto; an unknown one is refused' '
    cm_run plan --matrix $M $H --output x --verbose 2>err &&
    grep "auto" err &&
    cm_run plan --matrix $M $H --output y --algorithm auto &&
    test_cmp x y &&
    expect_usage "clustermap plan: unknown algorithm '"'"'magic'"'"'" \
        plan --matrix $M $H --algorithm magic --output x
'

test_expect_success 'plan: missing --output' '
    expect_usage "clustermap plan: missing --output FILE" \
        plan --matrix $M $H --algorithm block
'

test_expect_success 'runtime errors exit 1 with the command name' '
    test_expect_code 1 "$CLUSTERMAP" eval --matrix nonexistent.mtx $H --mapping block 2>err &&
    grep "^clustermap eval: .*nonexistent.mtx" err &&
    test_expect_code 1 "$CLUSTERMAP" plan --matrix $M --hierarchy 4:2 --distances 1:2 \
        --algorithm block --output x 2>err &&
    grep "^clustermap plan: .*cg.S.16.mtx has 16 ranks but the machine has only 8 slots" err &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $M --hierarchy 4:0:2 --distances 1:2:3 \
        --mapping block 2>err &&
    grep "^clustermap eval: " err
'

test_expect_success '--level-costs with an unknown level is a runtime error naming it' '
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $M $H --level-costs nosuch=3 \
        --mapping block 2>err &&
    grep "^clustermap eval: --level-costs: .*nosuch" err
'

test_expect_success '--level-latency and --level-bandwidth: bad values name the option' '
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $M $H --level-latency node=1parsec \
        --mapping block 2>err &&
    grep "^clustermap eval: --level-latency: level latencies .node=1parsec.: expected a number (optionally with a unit: s, ms, us, ns) for node, got .1parsec." err &&
    test_expect_code 1 "$CLUSTERMAP" plan --matrix $M $H --level-bandwidth node=0GB/s \
        --algorithm block --output x 2>err &&
    grep "^clustermap plan: --level-bandwidth: .*value of node must be > 0" err
'

for cmd in eval plan; do
    test_expect_success "$cmd: --level-costs and --level-bandwidth together" '
        expect_usage "clustermap $cmd: --level-costs and --level-bandwidth both set per-byte costs: give one" \
            $cmd --matrix $M $H --level-costs node=1 --level-bandwidth node=1GB/s &&
        expect_usage "clustermap $cmd: --level-latency given twice" \
            $cmd --matrix $M $H --level-latency node=1us --level-latency node=2us
    '
done

test_done
