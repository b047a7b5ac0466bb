#!/bin/sh
test_description='clustermap plan: every baseline writes a valid mapping that
eval reads back to the same cost'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

H64="--hierarchy 4:2:4:2 --distances 1:2:10:20"
CG64=$CM_MATRICES/cg.S.64.mtx
CG16=$CM_MATRICES/cg.S.16.mtx

for a in block cyclic random scotch; do
    test_expect_success "plan $a: 64 ranks on 64 slots, a permutation" '
        cm_run plan --matrix $CG64 $H64 --algorithm $a --output $a.map &&
        valid_mapping $a.map 64 64
    '

    test_expect_success "plan $a: 16 ranks on 64 slots" '
        cm_run plan --matrix $CG16 $H64 --algorithm $a --output $a.16.map &&
        valid_mapping $a.16.map 16 64
    '

    test_expect_success "plan $a + eval FILE = eval --mapping $a (same seed)" '
        cm_run plan --matrix $CG64 $H64 --algorithm $a --seed 42 --output s42.map &&
        cm_run eval --matrix $CG64 $H64 --mapping s42.map >from-file &&
        cm_run eval --matrix $CG64 $H64 --mapping $a --seed 42 >direct &&
        test_cmp direct from-file
    '

    test_expect_success "plan $a is reproducible" '
        cm_run plan --matrix $CG64 $H64 --algorithm $a --seed 42 --output again.map &&
        test_cmp s42.map again.map
    '
done

test_expect_success 'block on a hierarchy is the identity' '
    seq 0 63 >expect &&
    test_cmp expect block.map
'

test_expect_success 'cyclic deals ranks round robin over the 8 nodes' '
    head -n 9 cyclic.map >first9 &&
    printf "0\n8\n16\n24\n32\n40\n48\n56\n1\n" >expect &&
    test_cmp expect first9
'

test_expect_success 'random depends on the seed' '
    cm_run plan --matrix $CG64 $H64 --algorithm random --seed 1 --output r1.map &&
    cm_run plan --matrix $CG64 $H64 --algorithm random --seed 2 --output r2.map &&
    ! test_cmp r1.map r2.map
'

test_expect_success 'default seed is 1' '
    cm_run plan --matrix $CG64 $H64 --algorithm random --output rdef.map &&
    test_cmp r1.map rdef.map
'

test_expect_success 'scotch beats random and cyclic on cg.S.64' '
    for a in random cyclic scotch; do
        cm_run eval --matrix $CG64 $H64 --mapping $a >$a.eval || return 1
    done &&
    js=$(cm_value J scotch.eval) && jr=$(cm_value J random.eval) &&
    jc=$(cm_value J cyclic.eval) &&
    test "$js" -lt "$jr" && test "$js" -lt "$jc"
'

test_expect_success '--output - writes the mapping to stdout' '
    cm_run plan --matrix $CG64 $H64 --algorithm cyclic --output - >stdout.map &&
    test_cmp cyclic.map stdout.map
'

test_expect_success '--output - appends to a redirected file' '
    echo first >appended &&
    cm_run plan --matrix $CG64 $H64 --algorithm block -o - >>appended &&
    test "$(wc -l <appended)" -eq 65 &&
    test "$(head -n 1 appended)" = first
'

test_expect_success '--verbose reports algorithm, J and time on stderr' '
    cm_run plan --matrix $CG64 $H64 --algorithm scotch --output v.map \
        --verbose >out 2>err &&
    test_must_be_empty out &&
    grep -x "algorithm=scotch" err &&
    grep -x "J=$(cm_value J scotch.eval)" err &&
    grep -E "^time=[0-9]+\.[0-9]+ s$" err
'

test_expect_success 'an unwritable --output is a runtime error naming it' '
    test_expect_code 1 "$CLUSTERMAP" plan --matrix $CG64 $H64 --algorithm block \
        --output no/such/dir/x.map 2>err &&
    grep "^clustermap plan: .*no/such/dir/x.map" err
'

test_expect_success 'plan reads METIS graphs' '
    cm_run plan --matrix $CM_GRAPHS/torus8x8-vw.graph $H64 --algorithm scotch \
        --output torus.map &&
    valid_mapping torus.map 64 64
'

SC="--slurm-conf $CM_DATA/slurm/slurm.conf --topology-conf $CM_DATA/slurm/topology.conf"

test_expect_success '--hostfile: block fills the nodes in allocation order (n5, n6: 16 cores)' '
    cm_run plan --matrix $CG64 $SC --nodelist "n[1-8]" --algorithm block \
        --hostfile block.hosts &&
    test $(wc -l <block.hosts) = 64 &&
    for n in 1 2 3 4 5 6; do echo n$n; done >want &&
    uniq block.hosts >got && test_cmp want got &&
    test $(grep -c "^n5$" block.hosts) = 16
'

test_expect_success '--hostfile: cyclic deals ranks over the nodes in order' '
    cm_run plan --matrix $CG16 $SC --nodelist "n[1-4]" --algorithm cyclic \
        --hostfile cyclic.hosts --output cyclic.map &&
    for r in 1 2 3 4; do printf "n1\nn2\nn3\nn4\n"; done >want &&
    test_cmp want cyclic.hosts
'

# The node of each rank in the hostfile is the node of its slot in the
# mapping: slots are numbered depth-first over topology.conf (odd nodes on
# s1 first), 8 per node of n[1-4].
test_expect_success '--hostfile agrees with the mapping of the same plan' '
    cm_run plan --matrix $CG16 $SC --nodelist "n[1-4]" --algorithm auto \
        --hostfile auto.hosts --output auto.map &&
    awk "{ print \"n\" substr(\"1324\", int(\$1 / 8) + 1, 1) }" auto.map >want &&
    test_cmp want auto.hosts
'

test_expect_success '--hostfile on a machine without node names: an error, no file' '
    test_expect_code 1 "$CLUSTERMAP" plan --matrix $CG64 $H64 --algorithm block \
        --hostfile x.hosts 2>err &&
    grep "^clustermap plan: x.hosts: rank 0.* not on a named node" err &&
    ! test -e x.hosts
'

# 4096 ranks of a scrambled 3-D stencil: the multisection and the
# spanning-tree placement hand subtrees to other threads at this size.
test_expect_success '--threads: the same mapping on 1, 2 and 4 threads' '
    "$CM_ROOT/build/bench/largegen" stencil3d 4096 st.trip &&
    for th in 1 2 4; do
        cm_run plan --matrix st.trip --hierarchy 4:16:64 --distances 1:10:100 \
            --threads $th --output th$th.map || return 1
    done &&
    test_cmp th1.map th2.map &&
    test_cmp th1.map th4.map
'

test_expect_success '--threads takes 1 to 1024' '
    for bad in 0 -1 x 1025 2.5; do
        test_expect_code 2 "$CLUSTERMAP" plan --matrix $CG64 $H64 --threads "$bad" \
            --output t.map 2>err &&
        grep "^clustermap plan: --threads expects a number from 1 to 1024, got .$bad." err &&
        ! test -e t.map || return 1
    done
'

test_expect_success 'plan needs --output or --hostfile' '
    test_expect_code 2 "$CLUSTERMAP" plan --matrix $CG64 $H64 2>err &&
    grep "missing --output FILE .* or --hostfile FILE" err
'

test_done
