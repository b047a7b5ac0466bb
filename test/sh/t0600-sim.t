#!/bin/sh
test_description='the SimGrid judge (bench/sim): a smoke case end to end, the
hostfile seen from inside the simulated program, a replay against an online
run, the ping-pong, refusals of bad input, a jittered trace, and the ns-3
platform'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

SIM=$CM_ROOT/bench/sim
for c in smpicc smpirun mpicc mpirun; do
    command -v $c >/dev/null 2>&1 || error "$c not found (sh scripts/install-deps.sh)"
done
export OPENBLAS_NUM_THREADS=1
P=ft8-25g-2to1
# smpirun cannot use paths with blanks, such as sharness's trash directory.
W=$(mktemp -d "${TMPDIR:-/tmp}/t0600.XXXXXX") || error "mktemp failed"

# One app, two placements, one platform, one model: the smoke case
# (32 ranks = 4 nodes of 8 cores under 2 leaf switches).
test_expect_success 'judge: scrambled 3-D halo, block and auto, CSV rows' '
    "$SIM/judge" --app "$SIM/apps/halo3d.c" --args "--scramble 1" --np 32 \
        --platform $P --model default --placements block,auto --no-pingpong \
        --work "$W" --csv sim.csv >judge.out 2>&1 || { cat judge.out; false; } &&
    echo app,np,platform,model,placement,total_s,comm_s,J,J_ratio_block,time_ratio_block >want &&
    head -n 1 sim.csv >got && test_cmp want got &&
    test $(wc -l <sim.csv) = 3 &&
    awk -F, -v p=$P "NR > 1 {
            if (\$1 != \"halo3d\" || \$2 != 32 || \$3 != p || \$4 != \"default\") bad = 1
            if (!(\$6 > 0) || !(\$7 > 0) || !(\$7 <= \$6) || !(\$8 > 0)) bad = 1
            if (\$5 == \"block\" && (\$9 != 1 || \$10 != 1)) bad = 1
            if (\$5 == \"auto\") auto = 1
        } END { exit bad || !auto }" sim.csv
'

# The engine cut J, so the rows must differ: a judge that replayed the same
# hostfile twice would pass the test above.
test_expect_success 'judge: auto is a different placement with a lower J' '
    ! cmp -s "$W/plat/$P/block.hosts" "$W/plat/$P/auto.hosts" &&
    awk -F, "\$5 == \"auto\" { exit !(\$9 < 1) }" sim.csv &&
    grep "^  auto " judge.out
'

# Every rank prints the host it was given: line r of the hostfile.
test_expect_success 'hostfile seen from inside the simulated program' '
    smpirun -np 32 -platform "$W/plat/$P/platform.xml" -hostfile "$W/plat/$P/auto.hosts" \
        --log=root.thres:warning --cfg=smpi/simulate-computation:no \
        "$W/bin/halo3d.smpi" --scramble 1 --iters 1 --print-hosts >hosts.out 2>&1 &&
    sed -n "s/^rank \([0-9]*\) host \([^ ]*\)$/\1 \2/p" hosts.out | sort -n |
        cut -d" " -f2 >got &&
    test $(wc -l <got) = 32 &&
    test_cmp "$W/plat/$P/auto.hosts" got
'

# The trace was recorded under block; its replay under auto's hostfile must
# give the time of an online run under that hostfile.
test_expect_success 'replay of the block trace = online run, non-block placement (4 digits)' '
    smpirun -np 32 -platform "$W/plat/$P/platform.xml" -hostfile "$W/plat/$P/auto.hosts" \
        --log=root.thres:warning --log=smpi_utils.thres:info \
        --cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:yes \
        "$W/bin/halo3d.smpi" --scramble 1 >online.out 2>&1 &&
    online=$(sed -n "s/.*Simulated time: \([0-9.eE+-]*\) seconds.*/\1/p" online.out) &&
    replay=$(cat "$W/plat/$P/auto.default.total") &&
    echo "online $online replay $replay" &&
    awk -v a="$online" -v b="$replay" "BEGIN {
        exit !(a > 0 && sprintf(\"%.4g\", a) == sprintf(\"%.4g\", b)) }"
'

test_expect_success 'ping-pong: the three distance classes, nearer is faster' '
    "$SIM/pingpong.sh" "$W/plat/$P" >pp.out 2>&1 || { cat pp.out; false; } &&
    cat pp.out &&
    awk "\$1 ~ /^(same-node|same-leaf|across-leaves)\$/ { n++; us[n] = \$3 }
         END { exit !(n == 3 && us[1] > 0 && us[1] < us[2] && us[2] < us[3]) }" pp.out
'

test_expect_success 'judge: usage errors exit 2 and name the problem' '
    test_expect_code 2 "$SIM/judge" --np 4 2>err && grep "missing --app FILE" err &&
    test_expect_code 2 "$SIM/judge" --app "$SIM/apps/halo2d.c" --np 0 2>err &&
    grep "np expects a positive integer" err &&
    test_expect_code 2 "$SIM/judge" --app "$SIM/apps/halo2d.c" --platform nosuch 2>err &&
    grep "no .*platforms/nosuch.spec" err &&
    test_expect_code 2 "$SIM/judge" --app "$SIM/apps/halo2d.c" --model fast 2>err &&
    grep "model expects default, eager or both" err &&
    test_expect_code 2 "$SIM/judge" --app "$SIM/apps/halo2d.c" --placements block,best 2>err &&
    grep "unknown placement .best." err
'

test_expect_success 'judge: more ranks than the platform has cores is an error' '
    test_expect_code 1 "$SIM/judge" --app "$SIM/apps/halo2d.c" --np 65 --platform ft8-100g-2to1 \
        --no-pingpong 2>err &&
    grep "65 ranks need 9 nodes of 8 cores, it has 8" err
'

test_expect_success 'mkplatform: a bad spec names file and line, writes nothing' '
    sed "s/^cores .*/cores eight/" "$SIM/platforms/$P.spec" >bad.spec &&
    test_must_fail "$SIM/mkplatform" bad.spec out 2>err &&
    grep "bad.spec:[0-9]*:" err &&
    ! test -e out/platform.xml
'

test_expect_success 'judge: a --work path with blanks is refused' '
    test_expect_code 1 "$SIM/judge" --app "$SIM/apps/halo2d.c" --np 8 --platform $P \
        --work "$PWD/a b" 2>err &&
    grep "smpirun cannot use a path with blanks" err
'

# jitter: the smoke case's trace with its computations varied per rank and
# step (bench/README.md, the natural halos' floors), everything else as it
# was, the same copy from the same seed; the copy replays.
test_expect_success 'jitter: computations within the fraction, the rest unchanged, deterministic, replayed' '
    "$SIM/jitter" "$W/trace" "$W/j0" 0 1 && diff -r "$W/trace" "$W/j0" &&
    "$SIM/jitter" "$W/trace" "$W/j1" 0.5 7 && "$SIM/jitter" "$W/trace" "$W/j2" 0.5 7 &&
    diff -r "$W/j1" "$W/j2" &&
    for f in $(cat "$W/trace/app.ti"); do
        grep -v " compute " "$W/trace/$f" >a && grep -v " compute " "$W/j1/$f" >b && test_cmp a b &&
        paste -d" " "$W/trace/$f" "$W/j1/$f" | awk "\$2 == \"compute\" { n++; r = \$NF / \$3
                if (r < 0.5 || r > 1.5) bad = 1; if (r != 1) moved++ }
            END { exit bad || !n || !moved }" || return 1
    done &&
    "$SIM/replay.sh" "$W/j1" app.ti 32 "$W/plat/$P/block.hosts" "$W/plat/$P/platform.xml" default jr.out &&
    awk "{ exit !(\$1 > 0) }" jr.out &&
    test_expect_code 1 "$SIM/jitter" "$W/trace" "$W/j1" 0.5 7 2>err && grep "j1 exists" err &&
    test_expect_code 1 "$SIM/jitter" "$W/trace" "$W/j3" 2 7 2>err &&
    grep "FRACTION: expected a number from 0 to 1, got .2." err &&
    ! test -e "$W/j3"
'

# SimGrid's packet-level ns-3 model on the same switches (bench/sim/README.md,
# "A packet-level network"): one route of one link per host and per leaf,
# and css/run.sh runs an exchange on it with its data checked.
test_expect_success 'mkplatform: platform-ns3.xml, hosts and routers joined by one-link routes' '
    "$SIM/mkplatform" "$SIM/platforms/ft8-25g-4to1.spec" ns3plat >/dev/null &&
    x=ns3plat/platform-ns3.xml &&
    test $(grep -c "<host " $x) = 8 && test $(grep -c "<router id=\"leaf" $x) = 4 &&
    test $(grep -c "<route " $x) = 12 &&
    test $(grep "<route " $x | grep -vc "^    <route src=\"[^\"]*\" dst=\"[^\"]*\"><link_ctn id=\"[^\"]*\"/></route>\$") = 0 &&
    grep -F "<route src=\"n3\" dst=\"leaf1\"><link_ctn id=\"n3-nic\"/></route>" $x &&
    grep -F "<route src=\"leaf3\" dst=\"spine0\"><link_ctn id=\"leaf3-up\"/></route>" $x
'

test_expect_success 'css/run.sh NETWORK=ns3: the exchange under ns-3, data checked, its own times' '
    for net in ns3 fluid; do
        NETWORK=$net PAIR=16K P64=ft8-25g-4to1 P128=" " MODELS=default EXCHANGES=cyclic4-cyclic6 \
            JOBS=1 CSS_BUILD="$W/css" "$SIM/css/run.sh" "$W/$net" >$net.out 2>&1 ||
        { cat $net.out; return 1; }
        grep "network $net, messages 16K" $net.out &&
        test $(wc -l <"$W/$net/css.csv") = 2 || return 1
    done &&
    grep -q "res_ns3" "$W/ns3/logs/cyclic4-cyclic6.64.ft8-25g-4to1.default.log" &&
    ! grep -q "res_ns3" "$W/fluid/logs/cyclic4-cyclic6.64.ft8-25g-4to1.default.log" &&
    a=$(sed -n 2p "$W/ns3/css.csv" | cut -d, -f5) && b=$(sed -n 2p "$W/fluid/css.csv" | cut -d, -f5) &&
    echo "library: ns-3 $a s, fluid $b s" &&
    awk -v a="$a" -v b="$b" "BEGIN { exit !(a > 0 && b > 0 && a != b) }" &&
    test_expect_code 1 env NETWORK=ethernet "$SIM/css/run.sh" "$W/bad" 2>err &&
    grep "NETWORK: expected fluid or ns3, got .ethernet." err
'

rm -rf "$W"
test_done
