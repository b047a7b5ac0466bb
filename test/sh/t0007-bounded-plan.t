#!/bin/sh
test_description='bounded planning: a small step in a huge machine costs what
the step costs (time and memory follow the ranks, not the slots)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

# 1 GB of address space and 10 s: building the whole 16 M-slot machine
# alone took 1.25 GB and 7 s.
LIMIT_KB=1000000
export OPENBLAS_NUM_THREADS=1

# bounded OUT ARGS...: run the command under the limits, its stdout in OUT;
# fails unless it exits 0 within 2 s.
bounded() {
    out=$1 && shift &&
    start=$(date +%s.%N) &&
    (ulimit -v $LIMIT_KB && exec timeout 10 "$CLUSTERMAP" "$@") >"$out" &&
    end=$(date +%s.%N) &&
    awk -v s="$start" -v e="$end" 'BEGIN {
        printf "%.3f s\n", e - s; exit !(e - s < 2) }'
}

test_expect_success 'a 3-rank matrix' '
    printf "# ranks 3\n0 1 100\n1 2 50\n2 0 10\n" >m3.txt
'

H4096="--hierarchy 4096:4096 --distances 1:10"
for a in "" "--algorithm auto" "--algorithm scotch" "--algorithm scotch-ms" \
         "--algorithm cluster" "--algorithm treecut" "--algorithm block" \
         "--algorithm cyclic" "--algorithm random"; do
    test_expect_success "plan ${a:-(default)}: 3 ranks on 4096 x 4096 slots" "
        bounded map.out plan --matrix m3.txt $H4096 $a --output - &&
        valid_mapping map.out 3 16777216
    "
done

test_expect_success 'plan --verbose names the whole machine' '
    bounded map.out plan --matrix m3.txt $H4096 --output - --verbose 2>err &&
    grep -x "ranks=3 slots=16777216" err &&
    grep "^winner=" err
'

test_expect_success 'eval of an algorithm: 3 ranks on 4096 x 4096 slots' '
    bounded eval.out eval --matrix m3.txt $H4096 --mapping auto --bound &&
    test "$(cm_value J eval.out)" = 160 &&
    test "$(cm_value lower_bound eval.out)" = 160
'

test_expect_success 'eval and plan --initial of slots anywhere in the machine' '
    printf "16777215\n0\n8388608\n" >far.map &&
    bounded eval.out eval --matrix m3.txt $H4096 --mapping far.map &&
    test "$(cm_value J eval.out)" = 1600 &&
    test "$(cm_value level.node eval.out)" = 160 &&
    bounded map.out plan --matrix m3.txt $H4096 --initial far.map --output - &&
    valid_mapping map.out 3 16777216
'

test_expect_success 'a mapping file out of the machine is refused, naming the file' '
    printf "16777216\n0\n1\n" >out.map &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix m3.txt $H4096 \
        --mapping out.map 2>err &&
    grep "^clustermap eval: out.map: .*16777216, expected a slot in 0..16777215" err
'

H1024="--hierarchy 1024:1024 --distances 1:10"
for a in auto scotch; do
    test_expect_success "plan --algorithm $a: 64 ranks on 1024 x 1024 slots" "
        bounded map.out plan --matrix $CM_MATRICES/cg.S.64.mtx $H1024 \
            --algorithm $a --output - &&
        valid_mapping map.out 64 1048576 &&
        bounded eval.out eval --matrix $CM_MATRICES/cg.S.64.mtx $H1024 \
            --mapping block &&
        bounded plan.eval eval --matrix $CM_MATRICES/cg.S.64.mtx $H1024 \
            --mapping map.out &&
        test \"\$(cm_value J plan.eval)\" -le \"\$(cm_value J eval.out)\"
    "
done

test_expect_success 'plan: 3 ranks on half a million identical hwloc nodes' '
    bounded map.out plan --matrix m3.txt \
        --hwloc-xml "$CM_DATA/hwloc/2s-2numa-6c.xml" --nodes 500000 \
        --algorithm auto --output - &&
    valid_mapping map.out 3 12000000
'

test_done
