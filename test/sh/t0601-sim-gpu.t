#!/bin/sh
test_description='the SimGrid judge on GPU machines (bench/sim): GPU
platforms (a host per GPU, NVSwitch, an uneven XGMI matrix, NICs per GPU
pair or per GPU, NVLink racks) and the engine'"'"'s view of them, spec errors,
Slurm'"'"'s layout of one task per GPU, and the judge rows: auto never more
than 1 % slower than Slurm'"'"'s layout, and a scrambled 3-D halo over two
NVLink racks at most half of it'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

SIM=$CM_ROOT/bench/sim
for c in smpicc smpirun mpicc mpirun; do
    command -v $c >/dev/null 2>&1 || error "$c not found (sh scripts/install-deps.sh)"
done
export OPENBLAS_NUM_THREADS=1
# smpirun cannot use paths with blanks, such as sharness's trash directory.
W=$(mktemp -d "${TMPDIR:-/tmp}/t0601.XXXXXX") || error "mktemp failed"

# route FILE SRC DST: the link_ctn ids of the route from SRC to DST, one a line
route() {
    grep -F "<route src=\"$2\" dst=\"$3\" " "$1" |
        sed 's/<link_ctn id="\([^"]*\)"[^>]*>/\n\1\n/g' | grep -v -e "[<>]" -e "^\$"
}

test_expect_success 'mkplatform: DGX-like, a host per GPU, NVSwitch inside, the NIC of each GPU pair outside' '
    "$SIM/mkplatform" "$SIM/platforms/gpu-dgx4.spec" dgx >/dev/null &&
    x=dgx/platform.xml &&
    test $(wc -l <dgx/hosts) = 32 && test $(sed -n 10p dgx/hosts) = n1-g1 &&
    test $(grep -c "<host " $x) = 32 && test $(grep -c "<route " $x) = 1024 &&
    printf "n0\nn1\nn2\nn3\n" >want && test_cmp want dgx/nodes &&
    printf "n0 4 2\nn1 4 2\nn2 4 2\nn3 4 2\n" >want && test_cmp want dgx/slots &&
    ! test -e dgx/platform-ns3.xml &&
    printf "n0-g3-nvl\nn0-g6-nvl\n" >want && route $x n0-g3 n0-g6 >got && test_cmp want got &&
    printf "n0-nic2\nn1-nic0\n" >want && route $x n0-g5 n1-g1 >got && test_cmp want got &&
    printf "n1-nic3\nleaf0-up\nleaf1-up\nn2-nic0\n" >want && route $x n1-g7 n2-g0 >got && test_cmp want got &&
    grep -F "<link id=\"leaf0-up\" bandwidth=\"100GBps\"" $x &&
    echo "--level-latency socket=1us,node=1us,switch=2us,switch1=4us --level-bandwidth socket=300GB/s,node=300GB/s,switch=25GB/s,switch1=12.5GB/s" >want &&
    test_cmp want dgx/costs
'

test_expect_success 'mkplatform: Frontier-like, the XGMI matrix: direct links, the host path, the engine sees the slowest' '
    "$SIM/mkplatform" "$SIM/platforms/gpu-frontier4.spec" fr >/dev/null &&
    x=fr/platform.xml &&
    grep -F "<link id=\"n0-x0-1\" bandwidth=\"200GBps\"" $x &&
    grep -F "<link id=\"n3-x1-3\" bandwidth=\"100GBps\"" $x &&
    grep -F "<link id=\"n2-x2-4\" bandwidth=\"50GBps\"" $x &&
    test $(grep -c "<link id=\"n0-x" $x) = 12 &&
    grep -F "<route src=\"n0-g1\" dst=\"n0-g0\" symmetrical=\"NO\"><link_ctn id=\"n0-x0-1\" direction=\"DOWN\"/></route>" $x &&
    printf "n0-g0-host\nn0-g3-host\n" >want && route $x n0-g0 n0-g3 >got && test_cmp want got &&
    echo "--level-latency socket=0.5us,node=1us,switch=2us,switch1=4us --level-bandwidth socket=200GB/s,node=36GB/s,switch=25GB/s,switch1=12.5GB/s" >want &&
    test_cmp want fr/costs
'

test_expect_success 'mkplatform: NVL72-like, NVLink across the nodes of a rack, the NIC of each GPU between racks' '
    "$SIM/mkplatform" "$SIM/platforms/gpu-nvl72x2.spec" nvl >/dev/null &&
    x=nvl/platform.xml &&
    test $(wc -l <nvl/hosts) = 144 &&
    printf "n3-g1-nvl\nn17-g3-nvl\n" >want && route $x n3-g1 n17-g3 >got && test_cmp want got &&
    printf "n17-nic3\nleaf0-up\nleaf1-up\nn18-nic0\n" >want && route $x n17-g3 n18-g0 >got && test_cmp want got &&
    grep -v "^#" nvl/topology.conf >got &&
    printf "SwitchName=nvl0 Nodes=n[0-17]\nSwitchName=nvl1 Nodes=n[18-35]\nSwitchName=spine0 Switches=nvl[0-1]\n" >want &&
    test_cmp want got &&
    echo "--level-latency socket=1us,node=1us,switch=1us,switch1=4us --level-bandwidth socket=900GB/s,node=900GB/s,switch=900GB/s,switch1=50GB/s" >want &&
    test_cmp want nvl/costs
'

test_expect_success 'mkplatform: racks below shared leaves make three switch levels' '
    sed -e "s/^nodes .*/nodes 8/" -e "s/^nvl_nodes .*/nvl_nodes 2/" -e "s/^per_leaf .*/per_leaf 4/" \
        -e "s/^oversub .*/oversub 2/" "$SIM/platforms/gpu-nvl72x2.spec" >racks.spec &&
    "$SIM/mkplatform" racks.spec racks >/dev/null &&
    grep -v "^#" racks/topology.conf >got &&
    printf "%s\n" "SwitchName=nvl0 Nodes=n[0-1]" "SwitchName=nvl1 Nodes=n[2-3]" \
        "SwitchName=nvl2 Nodes=n[4-5]" "SwitchName=nvl3 Nodes=n[6-7]" \
        "SwitchName=leaf0 Switches=nvl[0-1]" "SwitchName=leaf1 Switches=nvl[2-3]" \
        "SwitchName=spine0 Switches=leaf[0-1]" >want &&
    test_cmp want got &&
    grep -F "switch=1us,switch1=2us,switch2=4us" racks/costs &&
    grep -F "switch=900GB/s,switch1=50GB/s,switch2=25GB/s" racks/costs
'

# spec_err SED-EXPR WANT: the DGX spec edited by SED-EXPR is refused with
# WANT in the message (file, line and key), and nothing is written.
spec_err() {
    sed "$1" "$SIM/platforms/gpu-${3:-dgx4}.spec" >bad.spec &&
    test_must_fail "$SIM/mkplatform" bad.spec badout 2>err &&
    cat err && grep -F -- "$2" err && ! test -e badout
}
test_expect_success 'mkplatform: GPU spec errors name file, line and key' '
    spec_err "s/^speed .*/speed 20Tf\ncores 8/" "bad.spec:8: cores: not on a GPU machine" &&
    spec_err "s/^gpus_per_nic .*/gpus_per_nic 3/" "bad.spec:13: gpus_per_nic: 3 does not divide gpus (8)" &&
    spec_err "s/^gpu_link .*/gpu_link fast/" "bad.spec:10: gpu_link: expected a number and a unit" &&
    spec_err "/^gpu_link /d" "bad.spec:5: gpus: needs exactly one of gpu_link" &&
    spec_err "s/^gpu_lat .*/gpu_lat 1us\nnvl_nodes 3/" "bad.spec:12: nvl_nodes: 3 does not divide nodes (4)" &&
    spec_err "s/^link_bw .*/link_bw 400GB\/s/" "switch (the leaf (link_bw, hop_lat): 2us, 400GB/s) is faster than node" &&
    spec_err "s/^speed .*/speed 1Tf\ngpu_host_bw 1GB\/s/" "bad.spec:8: gpu_host_bw: only with gpu_matrix" &&
    spec_err "s/ 200GB\/s  100GB\/s  0 / 200GB\/s  90GB\/s   0 /" "bad.spec:12: gpu_matrix: not symmetric: (0, 2) and (2, 0) differ" frontier4 &&
    spec_err "s/^    0        50GB\/s   0        0        0        100GB\/s  200GB\/s  0\$/    0 50GB\/s 0 0 0 100GB\/s 200GB\/s/" \
        "bad.spec:12: gpu_matrix: expected 8 x 8 = 64 values (gpus 8), got 63" frontier4 &&
    spec_err "s/^    0        200GB\/s  100GB\/s/    0        200GB\/s  100Gbits/" "bad.spec:12: gpu_matrix: entry 3: unknown unit" frontier4 &&
    spec_err "s/^gpu_host_bw .*//" "bad.spec:12: gpu_matrix: some pairs have no direct link: gpu_host_bw" frontier4 &&
    sed "s/^cores .*/cores 8\ngpus 8\ngpu_lat 1us\ngpus_per_nic 1\ngpu_link 50GB\/s/" "$SIM/platforms/ft8-100g-2to1.spec" >cpu.spec &&
    test_must_fail "$SIM/mkplatform" cpu.spec badout 2>err && cat err &&
    grep -F "cpu.spec:" err && grep -F "cores: not on a GPU machine" err &&
    echo "gpu_lat 1us" >>"$PWD/cpu2.spec" && cat "$SIM/platforms/ft8-100g-2to1.spec" >>cpu2.spec &&
    test_must_fail "$SIM/mkplatform" cpu2.spec badout 2>err && cat err &&
    grep -F "cpu2.spec:1: gpu_lat: only for a GPU machine (no gpus line)" err
'

# The judge rows.  Slurm's layout of one task per GPU (`--gpus-per-task=1`,
# block distribution: tasks in node order, GPU order within a node) is the
# judge's block; its time is the yardstick.
#
# rows CSV MAX: every auto row of CSV at most MAX x block's total and
# communication time, in each platform and model of the CSV, and both
# models there; prints the ratios.
rows() {
    awk -F, -v max="$2" "NR > 1 {
            if (\$5 == \"block\") { bt[\$3 \"/\" \$4] = \$6; bc[\$3 \"/\" \$4] = \$7 }
            if (\$5 == \"auto\") { at[\$3 \"/\" \$4] = \$6; ac[\$3 \"/\" \$4] = \$7 }
            m[\$4] = 1
        } END {
            for (k in bt) {
                n++
                printf \"%s %s auto/block total %.4f comm %.4f\n\", \$1, k, at[k] / bt[k], ac[k] / bc[k]
                if (!(k in at) || at[k] > max * bt[k] || ac[k] > max * bc[k]) bad = 1
            }
            exit bad || !n || !(\"default\" in m) || !(\"eager\" in m)
        }" "$1"
}

test_expect_success 'judge: the mixture-of-experts layer on the DGX-like and Frontier-like platforms, 32 GPUs' '
    "$SIM/judge" --app "$SIM/apps/moe.c" --np 32 --platform gpu-dgx4,gpu-frontier4 \
        --model both --placements block,auto --no-pingpong --work "$W/moe" \
        --csv moe.csv >moe.out 2>&1 || { cat moe.out; false; } &&
    test $(wc -l <moe.csv) = 9 &&
    for p in gpu-dgx4 gpu-frontier4; do
        head -n 32 "$W/moe/plat/$p/hosts" >want &&
        test_cmp want "$W/moe/plat/$p/block.hosts" &&
        printf "NodeName=n%d CPUs=8 Sockets=4 CoresPerSocket=2 ThreadsPerCore=1\n" 0 1 2 3 >want &&
        echo ClusterName=judge >>want && test_cmp want "$W/moe/plat/$p/slurm.conf" || return 1
    done
'

test_expect_success 'judge row: moe, auto at most 1 % slower than Slurm'"'"'s layout on gpu-frontier4' '
    grep -e "^app," -e ",gpu-frontier4," moe.csv >fr.csv && rows fr.csv 1.01
'

# Before auto had a minimum gain (AUTO_MIN_GAIN, src/core/plan.c), on
# gpu-dgx4 auto (scotch-ms, J 0.995 of block's) simulated 1.010 (default
# model) and 1.011 (eager) of block's time, while cluster, at the same J,
# was 0.968: at nearly equal J the placements' times spread by several
# per cent, from each iteration's hot spots that the summed profile cannot
# show (bench/sim/README.md, "GPU platforms").  Now auto keeps block there.
test_expect_success 'judge row: moe, auto at most 1 % slower than Slurm'"'"'s layout on gpu-dgx4' '
    grep -e "^app," -e ",gpu-dgx4," moe.csv >dgx.csv && rows dgx.csv 1.01
'

test_expect_success 'judge rows: scrambled 3-D halo over 2 NVLink racks (144 GPUs): auto at most 0.5 of Slurm'"'"'s layout, never slower' '
    "$SIM/judge" --app "$SIM/apps/halo3d.c" --name halo3d-scrambled --args "--scramble 1" \
        --np 144 --platform gpu-nvl72x2 --model both --placements block,auto \
        --no-pingpong --work "$W/h3" \
        --csv h3.csv >h3.out 2>&1 || { cat h3.out; false; } &&
    head -n 144 "$W/h3/plat/gpu-nvl72x2/hosts" >want &&
    test_cmp want "$W/h3/plat/gpu-nvl72x2/block.hosts" &&
    ! cmp -s "$W/h3/plat/gpu-nvl72x2/block.hosts" "$W/h3/plat/gpu-nvl72x2/auto.hosts" &&
    rows h3.csv 0.5
'

# Before the minimum gain: auto (cluster, J 0.9996 of block's) 1.013
# (default model) and 1.019 (eager) of block's time; the same with
# --iters 5 gave 0.975 and 0.951 (bench/sim/README.md, "GPU platforms").
test_expect_success 'judge row: moe over 2 NVLink racks (144 GPUs), auto at most 1 % slower than Slurm'"'"'s layout' '
    "$SIM/judge" --app "$SIM/apps/moe.c" --np 144 --platform gpu-nvl72x2 --model both \
        --placements block,auto --no-pingpong --work "$W/moe144" \
        --csv moe144.csv >moe144.out 2>&1 || { cat moe144.out; false; } &&
    rows moe144.csv 1.01
'

test_expect_success 'judge: a GPU platform takes whole nodes of GPUs' '
    test_expect_code 1 "$SIM/judge" --app "$SIM/apps/halo2d.c" --np 12 --platform gpu-dgx4 \
        --no-pingpong 2>err &&
    grep "gpu-dgx4: 12 ranks do not fill whole nodes of 8 GPUs" err &&
    test_expect_code 1 "$SIM/judge" --app "$SIM/apps/halo2d.c" --np 40 --platform gpu-dgx4 \
        --no-pingpong 2>err &&
    grep "40 ranks need 5 nodes of 8 GPUs, it has 4" err
'

rm -rf "$W"
test_done
