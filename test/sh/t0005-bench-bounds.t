#!/bin/sh
test_description='the benchmark'"'"'s yardsticks: the exact solver against brute
force, and no measured J below the proven floor (lower bound or optimum)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

BENCH=$CM_ROOT/build/bench
test -x "$BENCH/mapbench" && test -x "$BENCH/exactcheck" &&
    test -x "$BENCH/threadbench" ||
    error "$BENCH/mapbench, exactcheck or threadbench not built (make benches)"
export OPENBLAS_NUM_THREADS=1

test_expect_success 'exact solver = brute force on random cases; real 16-rank optimum within block, Scotch and the bound' '
    "$BENCH/exactcheck" --real "$CM_MATRICES" >exact.out 2>&1 ||
    { cat exact.out; false; }
'

# floor_holds FILE: every instance row has its floor (LB/S) at or below each
# tool'"'"'s J/J_scotch (1.000 for Scotch itself), and auto/B <= 1.
floor_holds() {
    awk -F"|" "
        NF >= 6 && \$1 !~ /instance/ {
            split(\$2, a, \" \"); split(\$3, s, \" \"); split(\$4, ms, \" \");
            split(\$5, cl, \" \"); split(\$6, au, \" \");
            lb = s[3]; sub(/\\*/, \"\", lb);
            if (lb == \"nan\") next;
            rows++;
            n = split(a[1] \" \" a[2] \" \" a[3] \" 1 \" ms[1] \" \" cl[1] \" \" au[1], v, \" \");
            for (k = 1; k <= n; k++)
                if (v[k] != \"nan\" && lb > v[k] + 0.0005) { print \"floor above J: \" \$0; bad = 1 }
            if (au[2] > 1.0005) { print \"auto worse than block: \" \$0; bad = 1 }
        }
        END { if (!rows) { print \"no rows\"; bad = 1 } exit bad }" "$1"
}

test_expect_success 'generated patterns at 256 and 1024 ranks: floor below every tool' '
    "$BENCH/mapbench" --gen --sizes 256,1024 >gen.out 2>gen.err &&
    floor_holds gen.out &&
    test $(grep -c "^stencil2d\|^stencil3d\|^bintree\|^a2a64\|^fft2d" gen.out) = 10
'

test_expect_success 'fragmented allocation: floor below every tool' '
    "$BENCH/mapbench" --frag >frag.out 2>frag.err &&
    floor_holds frag.out
'

test_expect_success 'real matrices: floor below every tool, 16-rank optima marked' '
    "$BENCH/mapbench" --real --data "$CM_MATRICES" >real.out 2>real.err &&
    floor_holds real.out &&
    grep -q "^cg.S.16.mtx@4:2:4:2 .*\*" real.out
'

# cutbound (bench/README.md, "What no placement can do"): the minimum over
# down-sets is the minimum over all subsets (checked by brute force on
# small grids), and the figures the README quotes.
test_expect_success 'cutbound: down-sets reach the minimum boundary of all subsets' '
    "$BENCH/cutbound" --check 3 3 2 >cb1.out &&
    "$BENCH/cutbound" --check 6 4 1 >cb2.out &&
    "$BENCH/cutbound" --check 4 3 2 >cb3.out &&
    test "$(cat cb1.out cb2.out cb3.out | wc -l)" -eq $((19 + 25 + 25)) &&
    ! grep DIFFERS cb1.out cb2.out cb3.out &&
    test_must_fail "$BENCH/cutbound" --check 5 5 1 2>cb.err &&
    grep "at most 24 cells" cb.err
'

test_expect_success 'cutbound: the halo floors of bench/README.md' '
    for c in "4 4 4 32 16" "8 8 1 32 8" "8 4 4 8 12" "8 4 4 40 20" "8 4 4 32 16"; do
        set -- $c &&
        "$BENCH/cutbound" $1 $2 $3 $4 >cb.out &&
        grep "^grid=$1x$2x$3 cells=$4 min_boundary=$5$" cb.out || return 1
    done
'

# partbound (bench/README.md, "What no placement can do"): its slice bound
# on the busiest part never exceeds the exact minimum over every partition
# of small grids, and the multi-cluster floors the README quotes.
test_expect_success 'partbound: the slice bound is below the exact minimum' '
    for c in "4 3 1 4,4,4" "3 2 2 4,4,4" "7 2 1 5,5,4" "3 2 2 6,6" "2 7 1 5,5,4" "7 2 1 7,7" \
             "3 2 2 3,3,3,3"; do
        "$BENCH/partbound" --check $c >pb.out || { cat pb.out; return 1; }
        grep "^exact=[0-9]*$" pb.out || return 1
    done &&
    "$BENCH/partbound" --check 2 7 1 5,5,4 >pb.out &&
    grep "min_max_boundary>=3$" pb.out && grep -x "exact=4" pb.out &&
    test_must_fail "$BENCH/partbound" 4 4 4 10,10 2>pb.err &&
    grep "^usage: partbound" pb.err
'

test_expect_success 'partbound: the multi-cluster floors of bench/README.md' '
    "$BENCH/partbound" 8 4 4 48,40,40 >pb.out &&
    grep -x "grid=8x4x4 parts=48,40,40 min_max_boundary>=28" pb.out &&
    "$BENCH/partbound" 16 8 1 48,40,40 >pb.out &&
    grep -x "grid=16x8x1 parts=48,40,40 min_max_boundary>=14" pb.out &&
    "$BENCH/partbound" 8 4 4 32,32,32,32 >pb.out &&
    grep -x "grid=8x4x4 parts=32,32,32,32 min_max_boundary>=24" pb.out
'

# threadbench: the multisection, the spanning-tree placement and auto on 1,
# 2 and 3 threads give the same mapping (it exits 1 on a difference); 2048
# ranks have subtrees above the walk's hand-over grain, so tasks do move
# between threads.
test_expect_success 'threadbench: the same mappings on 1, 2 and 3 threads' '
    "$BENCH/threadbench" --sizes 2048 --threads 1,2,3 >thr.out 2>&1 ||
    { cat thr.out; false; } &&
    test "$(grep -c " same$" thr.out)" -eq 9 &&
    ! grep DIFFERENT thr.out
'

test_done
