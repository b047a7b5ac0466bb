#!/bin/sh
test_description='clustermap plan: the placement engine (auto, scotch-ms,
cluster), --verbose candidates, --weight, --time-budget, --initial'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

H64="--hierarchy 4:2:4:2 --distances 1:2:10:20"
H128="--hierarchy 4:2:8:2 --distances 1:2:10:20"
CG64=$CM_MATRICES/cg.S.64.mtx
MG64=$CM_MATRICES/mg.S.64.mtx

for a in auto scotch-ms; do
    test_expect_success "plan $a writes a valid mapping, reproducibly" '
        cm_run plan --matrix $MG64 $H64 --algorithm $a --output $a.map &&
        valid_mapping $a.map 64 64 &&
        cm_run plan --matrix $MG64 $H64 --algorithm $a --output $a.again &&
        test_cmp $a.map $a.again
    '
    test_expect_success "eval --mapping $a = eval of plan $a's file" '
        cm_run eval --matrix $MG64 $H64 --mapping $a >direct &&
        cm_run eval --matrix $MG64 $H64 --mapping $a.map >from-file &&
        test_cmp direct from-file
    '
done

test_expect_success 'plan cluster: a mapping or a clear error' '
    if cm_run plan --matrix $MG64 $H64 --algorithm cluster --output c.map 2>err
    then
        valid_mapping c.map 64 64
    else
        grep "^clustermap plan: cluster: " err
    fi
'

test_expect_success 'plan --verbose lists the winner and every candidate' '
    cm_run plan --matrix $MG64 $H64 --algorithm auto --output v.map \
        --verbose 2>err &&
    grep -x "algorithm=auto" err &&
    grep "^winner=" err &&
    grep "^candidate block  *J=" err &&
    grep "^candidate scotch-ms  *J=" err &&
    winner=$(sed -n "s/^winner=//p" err) &&
    grep "^candidate ${winner%+links} " err
'

test_expect_success 'auto J <= block J on every real matrix' '
    for f in "$CM_MATRICES"/*.mtx; do
        n=$(awk "!/^%/ { print \$1; exit }" "$f") &&
        if test "$n" -le 64; then h="$H64"; else h="$H128"; fi &&
        cm_run eval --matrix "$f" $h --mapping auto >auto.eval &&
        cm_run eval --matrix "$f" $h --mapping block >block.eval &&
        ja=$(cm_value J auto.eval) && jb=$(cm_value J block.eval) &&
        awk -v a="$ja" -v b="$jb" -v f="$f" \
            "BEGIN { if (a + 0 > b + 0) { print f \": \" a \" > \" b; exit 1 } }" ||
        return 1
    done
'

test_expect_success 'auto beats block on mg.S.64' '
    cm_run eval --matrix $MG64 $H64 --mapping auto >a.eval &&
    cm_run eval --matrix $MG64 $H64 --mapping block >b.eval &&
    test "$(cm_value J a.eval)" -lt "$(cm_value J b.eval)"
'

test_expect_success '--time-budget 0 runs block only' '
    cm_run plan --matrix $MG64 $H64 --algorithm auto --time-budget 0 \
        --output b0.map --verbose 2>err &&
    seq 0 63 >expect && test_cmp expect b0.map &&
    grep -x "winner=block" err
'

test_expect_success '--initial: an optimal incoming mapping is kept or bettered' '
    cm_run eval --matrix $MG64 $H64 --mapping auto.map >init.eval &&
    cm_run plan --matrix $MG64 $H64 --algorithm auto --initial auto.map \
        --output i.map --verbose 2>err &&
    grep "^candidate initial+refine  *J=" err &&
    cm_run eval --matrix $MG64 $H64 --mapping i.map >i.eval &&
    test "$(cm_value J i.eval)" -le "$(cm_value J init.eval)"
'

test_expect_success '--weight and --time-budget are checked' '
    test_expect_code 2 "$CLUSTERMAP" plan --matrix $CG64 $H64 --algorithm auto \
        --output x --weight latency 2>err &&
    grep "weight expects mixed, bytes or msgs" err &&
    test_expect_code 2 "$CLUSTERMAP" plan --matrix $CG64 $H64 --algorithm auto \
        --output x --time-budget -1 2>err &&
    grep "time-budget expects seconds" err
'

test_expect_success 'eval --weight: bytes = the default on a bytes-only matrix' '
    cm_run eval --matrix $CG64 $H64 --mapping block >plain &&
    cm_run eval --matrix $CG64 $H64 --mapping block --weight bytes >bytes &&
    test_cmp plain bytes
'

# Ranks 0-1 share a socket (cost 1), 2 is across (10).  msgs: the tree has
# no message costs, so its distances price messages: 2 x 1 + 200 x 10.
# bytes: 2000 x 1 + 2 x 10.
test_expect_success 'eval --weight msgs prices the messages of a triplet file' '
    printf "0 1 1000 1\n1 0 1000 1\n0 2 1 100\n2 0 1 100\n" >t.txt &&
    cm_run eval --matrix t.txt --format triplets --hierarchy 2:2 \
        --distances 1:10 --mapping block --weight msgs >m.eval &&
    test "$(cm_value J m.eval)" = 2002 &&
    cm_run eval --matrix t.txt --format triplets --hierarchy 2:2 \
        --distances 1:10 --mapping block --weight bytes >b.eval &&
    test "$(cm_value J b.eval)" = 2020
'

test_done
