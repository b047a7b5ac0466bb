#!/bin/sh
test_description='clustermap eval: output format, mapping files, and J checked
against an independent calculation (lib/jcost.pl)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

H64="--hierarchy 4:2:4:2 --distances 1:2:10:20"
CG64=$CM_MATRICES/cg.S.64.mtx

# check_jcost MATRIX MAPFILE HIERARCHY DISTANCES [EVAL OPTIONS]: eval's
# whole output equals jcost.pl's.
check_jcost() {
    matrix=$1 mapfile=$2 hier=$3 dist=$4; shift 4
    perl "$JCOST" "$matrix" "$mapfile" "$hier" "$dist" >expect.jcost &&
    cm_run eval --matrix "$matrix" --hierarchy "$hier" --distances "$dist" \
        --mapping "$mapfile" "$@" >actual.jcost &&
    test_cmp expect.jcost actual.jcost
}

test_expect_success 'eval prints J, one line per level root first, max_node_out, T_max' '
    cm_run eval --matrix $CG64 $H64 --mapping block >out &&
    sed "s/=.*//" out >keys &&
    cat >expect <<-EOF &&
	J
	level.group4
	level.switch
	level.node
	level.socket
	level.core
	max_node_out
	T_max
	EOF
    test_cmp expect keys &&
    grep -E "^J=[0-9]+$" out &&
    grep -E "^max_node_out=[0-9]+$" out &&
    grep -E "^T_max=[0-9]+$" out
'

test_expect_success 'the level bytes add up to the matrix total' '
    total=$(awk "!/^%/ && NF == 3 && seen++ { s += \$3 } END { printf \"%.0f\", s }" $CG64) &&
    sum=$(sed -n "s/^level\.[a-z0-9]*=//p" out | awk "{ s += \$1 } END { printf \"%.0f\", s }") &&
    test "$total" = "$sum"
'

test_expect_success 'block equals the identity mapping file on a hierarchy' '
    seq 0 63 >identity.map &&
    cm_run eval --matrix $CG64 $H64 --mapping identity.map >identity.out &&
    test_cmp out identity.out
'

test_expect_success '--verbose writes to stderr only' '
    cm_run eval --matrix $CG64 $H64 --mapping block --verbose >verbose.out 2>verbose.err &&
    test_cmp out verbose.out &&
    grep "^matrix .*cg.S.64.mtx: 64 ranks" verbose.err &&
    grep "^machine: 64 slots, 8 nodes: group4 1 > switch 2 > node 8 > socket 16 > core 64$" verbose.err
'

test_expect_success '--bound adds lower_bound, at most J of every mapping' '
    cm_run eval --matrix $CG64 $H64 --mapping block --bound >bound.out &&
    head -n 8 bound.out >bound.head &&
    test_cmp out bound.head &&
    lb=$(sed -n "s/^lower_bound=//p" bound.out) &&
    test -n "$lb" &&
    for a in block cyclic random scotch auto; do
        j=$(cm_run eval --matrix $CG64 $H64 --mapping $a | sed -n "s/^J=//p") &&
        awk -v lb="$lb" -v j="$j" "BEGIN { exit !(lb > 0 && lb <= j) }" || return 1
    done
'

test_expect_success '--bound is exact where every mapping costs the same (ft)' '
    cm_run eval --matrix $CM_MATRICES/ft.S.64.mtx $H64 --mapping random --bound >ft.out &&
    j=$(sed -n "s/^J=//p" ft.out) &&
    lb=$(sed -n "s/^lower_bound=//p" ft.out) &&
    test "$j" = "$lb"
'

# A hand-computed case.  Slots 0..3: sockets of 1 slot, nodes of 2 sockets,
# 2 nodes.  Ranks 0,1,2,3 on slots 0,3,1,2.
#   0->1 100 bytes: slots 0,3, different nodes  -> switch, 100 * 10
#   0->2   5 bytes: slots 0,1, same node        -> node,     5 * 3
#   3->1   7 bytes: slots 2,3, same node        -> node,     7 * 3
#   2->2  50 bytes: same slot                   -> core,    50 * 0
# J = 1000 + 15 + 21 = 1036; node 0 (slots 0,1) sends 100 bytes off-node.
# T_max: costs go to the receiver, bytes from another node to its node:
# rank 1 receives 21 on its node and its node 1 takes in 1000 -> 1021.
test_expect_success 'a hand-written mapping on a hand-computed example' '
    cat >hand.triplets <<-EOF &&
	# src dst bytes
	0 1 100
	0 2 5
	3 1 7
	2 2 50
	EOF
    printf "0\n3\n1\n2\n" >hand.map &&
    cm_run eval --matrix hand.triplets --hierarchy 1:2:2 --distances 1:3:10 \
        --mapping hand.map >actual &&
    cat >expect <<-EOF &&
	J=1036
	level.switch=100
	level.node=12
	level.socket=0
	level.core=50
	max_node_out=100
	T_max=1021
	EOF
    test_cmp expect actual
'

test_expect_success 'the same example with --level-costs switch=100' '
    cm_run eval --matrix hand.triplets --hierarchy 1:2:2 --distances 1:3:10 \
        --level-costs switch=100 --mapping hand.map >actual &&
    grep -x "J=10036" actual
'

test_expect_success 'fewer ranks than slots' '
    seq 15 -1 0 >rev16.map &&
    check_jcost $CM_MATRICES/cg.S.16.mtx rev16.map 4:2:4:2 1:2:10:20
'

test_expect_success 'malformed mapping file: error names file and line' '
    { seq 0 4; echo x; seq 6 63; } >bad.map &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $CG64 $H64 --mapping bad.map >out 2>err &&
    test_must_be_empty out &&
    grep "^clustermap eval: bad.map:6: " err
'

test_expect_success 'mapping file with too few lines: error names the file' '
    seq 0 62 >short.map &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $CG64 $H64 --mapping short.map 2>err &&
    grep "^clustermap eval: short.map.*64" err
'

test_expect_success 'mapping file with too many lines: error names the file' '
    seq 0 64 >long.map &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $CG64 $H64 --mapping long.map 2>err &&
    grep "^clustermap eval: long.map" err
'

test_expect_success 'two ranks on one slot, or a slot out of range, is refused' '
    { seq 0 62; echo 0; } >dup.map &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $CG64 $H64 --mapping dup.map 2>err &&
    grep "^clustermap eval: dup.map: .*slot 0" err &&
    { seq 0 62; echo 64; } >range.map &&
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $CG64 $H64 --mapping range.map 2>err &&
    grep "^clustermap eval: range.map: .*64" err
'

test_expect_success 'a missing mapping file is a runtime error naming it' '
    test_expect_code 1 "$CLUSTERMAP" eval --matrix $CG64 $H64 --mapping nosuch.map 2>err &&
    grep "^clustermap eval: nosuch.map" err
'

test_expect_success 'a file named like an algorithm is read with ./' '
    seq 0 63 | awk "{ print (\$1 * 17) % 64 }" >block &&
    cm_run eval --matrix $CG64 $H64 --mapping ./block >rev.out &&
    cm_run eval --matrix $CG64 $H64 --mapping block >blk.out &&
    ! test_cmp rev.out blk.out &&
    check_jcost $CG64 ./block 4:2:4:2 1:2:10:20
'

# --- the other machine sources describe the same machines -----------------

# The readers' default costs are seconds (docs/machine-costs.md); priced in
# bytes with the hierarchy's distances, the machines must agree exactly.
test_expect_success 'hwloc: 4 nodes of 2 sockets x 8 cores = hierarchy 8:2:4' '
    awk "{ print (\$1 * 17) % 64 }" identity.map >stride.map &&
    cm_run eval --matrix $CG64 --hwloc-xml $CM_DATA/hwloc/2s-8c-smt2.xml \
        --nodes 4 --level-costs switch=10,node=2,socket=1 --weight bytes \
        --mapping stride.map >hwloc.out &&
    cm_run eval --matrix $CG64 --hierarchy 8:2:4 --distances 1:2:10 \
        --mapping stride.map >hier.out &&
    test_cmp hier.out hwloc.out
'

test_expect_success 'slurm.conf + topology.conf = hierarchy 4:2:4:2 (values)' '
    cat >slurm.conf <<-EOF &&
	ClusterName=t
	NodeName=n[1-8] Sockets=2 CoresPerSocket=4 ThreadsPerCore=1
	EOF
    cat >topology.conf <<-EOF &&
	SwitchName=s1 Nodes=n[1-4]
	SwitchName=s2 Nodes=n[5-8]
	SwitchName=top Switches=s[1-2]
	EOF
    cm_run eval --matrix $CG64 --slurm-conf slurm.conf --topology-conf topology.conf \
        --nodelist "n[1-8]" --mapping stride.map >slurm.out &&
    root=$(sed -n "2s/^level\.\([a-z0-9_]*\)=.*/\1/p" slurm.out) &&
    test -n "$root" &&
    cm_run eval --matrix $CG64 --slurm-conf slurm.conf --topology-conf topology.conf \
        --nodelist "n[1-8]" --level-costs "$root=100,switch=10,node=5,socket=1" \
        --weight bytes --mapping stride.map >slurm.out &&
    cm_run eval --matrix $CG64 --hierarchy 4:2:4:2 --distances 1:5:10:100 \
        --mapping stride.map >hier.out &&
    sed "s/^.*=//" slurm.out >slurm.values &&
    sed "s/^.*=//" hier.out >hier.values &&
    test_cmp hier.values slurm.values
'

test_expect_success 'slurm: the node list defaults to SLURM_JOB_NODELIST' '
    SLURM_JOB_NODELIST="n[1-8]" cm_run eval --matrix $CG64 --slurm-conf slurm.conf \
        --topology-conf topology.conf --level-costs "$root=100,switch=10,node=5,socket=1" \
        --weight bytes --mapping stride.map >env.out &&
    test_cmp slurm.out env.out
'

# --- default costs of hwloc and slurm.conf machines: seconds ---------------

# check_j FILE WANT: the J of eval output FILE is WANT (an awk expression)
# up to rounding (relative 1e-12).
check_j() {
    awk -v f="$1" "BEGIN { want = $2 }
        /^J=/ { j = substr(\$0, 3) + 0; found = 1 }
        END { d = j - want; if (d < 0) d = -d
              if (!found || d > 1e-12 * want) { print f \": J=\" j \", want \" want; exit 1 } }" "$1"
}

# A ring of 4 ranks with message counts on 2 nodes of 1 socket x 4 cores:
# 0-1 and 2-3 share a socket, 1-2 and 3-0 cross the switch.
test_expect_success 'hwloc defaults: J = messages x latency + bytes / bandwidth' '
    cat >ring.triplets <<-EOF &&
	0 1 1000 10
	1 2 2000 20
	2 3 3000 30
	3 0 4000 40
	EOF
    printf "0\n1\n4\n5\n" >ring.map &&
    cm_run eval --matrix ring.triplets --hwloc-xml $CM_DATA/hwloc/1s-4c.xml --nodes 2 \
        --mapping ring.map >ring.out &&
    grep -x "level.switch=6000" ring.out &&
    grep -x "level.socket=4000" ring.out &&
    check_j ring.out "40 * 0.3e-6 + 4000 / 16e9 + 60 * 1.05e-6 + 6000 / 12.5e9"
'

test_expect_success '--level-latency and --level-bandwidth take units' '
    cm_run eval --matrix ring.triplets --hwloc-xml $CM_DATA/hwloc/1s-4c.xml --nodes 2 \
        --level-bandwidth switch=100Gb/s,socket=16000MB/s --level-latency \
        switch=1050ns,socket=0.0003ms --mapping ring.map >units.out &&
    check_j units.out "40 * 0.3e-6 + 4000 / 16e9 + 60 * 1.05e-6 + 6000 / 12.5e9" &&
    cm_run eval --matrix ring.triplets --hwloc-xml $CM_DATA/hwloc/1s-4c.xml --nodes 2 \
        --level-bandwidth switch=1B/s,socket=inf --level-latency switch=1s,socket=0 \
        --mapping ring.map >one.out &&
    grep -x "J=6060" one.out
'

test_expect_success '--weight bytes drops the latencies, --weight msgs the bandwidths' '
    cm_run eval --matrix ring.triplets --hwloc-xml $CM_DATA/hwloc/1s-4c.xml --nodes 2 \
        --level-bandwidth switch=1B/s,socket=0.5B/s --level-latency switch=1s,socket=3s \
        --mapping ring.map --weight bytes >bytes.out &&
    grep -x "J=14000" bytes.out &&
    cm_run eval --matrix ring.triplets --hwloc-xml $CM_DATA/hwloc/1s-4c.xml --nodes 2 \
        --level-bandwidth switch=1B/s,socket=0.5B/s --level-latency switch=1s,socket=3s \
        --mapping ring.map --weight msgs >msgs.out &&
    grep -x "J=180" msgs.out
'

test_expect_success '--level-costs sets byte costs and keeps the latencies' '
    cm_run eval --matrix ring.triplets --hwloc-xml $CM_DATA/hwloc/1s-4c.xml --nodes 2 \
        --level-costs switch=1,socket=0 --level-latency switch=1s,socket=3s \
        --mapping ring.map >costs.out &&
    grep -x "J=6180" costs.out
'

test_expect_success 'slurm.conf defaults: the cluster level costs a switch level more' '
    cat >two-tops.conf <<-EOF &&
	SwitchName=s1 Nodes=n[1-4]
	SwitchName=s2 Nodes=n[5-8]
	EOF
    printf "0\n1\n8\n9\n" >tops.map &&
    cm_run eval --matrix ring.triplets --slurm-conf slurm.conf --topology-conf two-tops.conf \
        --nodelist "n[4-5]" --mapping tops.map >tops.out &&
    grep -x "level.cluster=6000" tops.out &&
    grep -x "level.socket=4000" tops.out &&
    check_j tops.out "40 * 0.3e-6 + 4000 / 16e9 + 60 * 2.1e-6 + 6000 / 6.25e9"
'

# --- independent check: jcost.pl on METIS graphs and real matrices --------

test_expect_success 'jcost.pl agrees on a hand-computed example' '
    cat >hand.graph <<-EOF &&
	% path 1-2-3-4 with weights 5, 7, 11
	4 3 1
	2 5
	1 5 3 7
	2 7 4 11
	3 11
	EOF
    printf "0\n2\n1\n3\n" >path.map &&
    perl "$JCOST" hand.graph path.map 2:2 1:10 >out &&
    grep -x "J=460" out &&
    grep -x "level.node=46" out &&
    grep -x "level.socket=0" out
'

for graph in torus8x8-vw.graph grid4x4.graph; do
    case $graph in
    grid4x4.graph) hier=4:2:2 dist=1:2:10 n=16 ;;
    *) hier=4:2:4:2 dist=1:2:10:20 n=64 ;;
    esac
    test_expect_success "jcost: METIS $graph, several mappings" '
        G=$CM_GRAPHS/$graph &&
        seq 0 $((n - 1)) >id.map &&
        awk "{ print (\$1 * 5) % $n }" id.map >stride.map &&
        check_jcost $G id.map $hier $dist &&
        check_jcost $G stride.map $hier $dist --format metis &&
        for a in cyclic random scotch; do
            cm_run plan --matrix $G --hierarchy $hier --distances $dist \
                --algorithm $a --seed 7 --output $a.map &&
            check_jcost $G $a.map $hier $dist || return 1
        done
    '
done

for mtx in cg.S.64 lammps.peptide.64 ft.S.64; do
    test_expect_success "jcost: real matrix $mtx, several mappings" '
        M=$CM_MATRICES/$mtx.mtx &&
        seq 0 63 >id.map &&
        awk "{ print (\$1 * 17) % 64 }" id.map >stride.map &&
        check_jcost $M id.map 4:2:4:2 1:2:10:20 &&
        check_jcost $M stride.map 4:2:4:2 1:2:10:20 &&
        check_jcost $M stride.map 4:2:4:2 1:10:100:1000 &&
        for a in cyclic random scotch; do
            cm_run plan --matrix $M $H64 --algorithm $a --seed 3 --output $a.map &&
            check_jcost $M $a.map 4:2:4:2 1:2:10:20 || return 1
        done
    '
done

test_expect_success 'jcost: 128 ranks on 4:2:8:2' '
    M=$CM_MATRICES/ft.S.128.mtx &&
    cm_run plan --matrix $M --hierarchy 4:2:8:2 --distances 1:2:10:20 \
        --algorithm random --seed 11 --output r128.map &&
    check_jcost $M r128.map 4:2:8:2 1:2:10:20
'

# A hierarchy that names its levels says where the nodes are; the one-line
# tree in --verbose shows how any hierarchy was read.
test_expect_success 'named hierarchy: core=8,node=2,switch=4 is 8 nodes of 8 cores' '
    cm_run eval --matrix $CG64 --hierarchy core=8,node=2,switch=4 --distances 1:10:100 \
        --mapping block --verbose >named.out 2>named.err &&
    grep "^machine: 64 slots, 8 nodes: cluster 1 > switch 4 > node 8 > core 64$" named.err &&
    cm_run eval --matrix $CG64 --hierarchy 8:2:4 --distances 1:10:100 \
        --mapping block --verbose 2>pos.err >/dev/null &&
    grep "^machine: 64 slots, 4 nodes: switch 1 > node 4 > socket 8 > core 64$" pos.err &&
    test_must_fail "$CLUSTERMAP" eval --matrix $CG64 --hierarchy core=8,switch=8 \
        --distances 1:10 --mapping block 2>nonode.err &&
    grep "expected exactly one node=COUNT field" nonode.err &&
    test_must_fail "$CLUSTERMAP" eval --matrix $CG64 --hierarchy node=8,core=8 \
        --distances 1:10 --mapping block 2>first.err &&
    grep "field 1: expected core=N" first.err
'

test_done
