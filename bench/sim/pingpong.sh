#!/bin/sh
# pingpong.sh -- check a bench/sim/mkplatform platform against the costs it
# gives clustermap's engine.
#
# Usage: bench/sim/pingpong.sh OUTDIR [BUILDDIR]
#   OUTDIR    written by bench/sim/mkplatform (platform.xml, topology.conf,
#             costs, name)
#   BUILDDIR  where pingpong.c is built and the run files go (kept); by
#             default a temporary directory, removed at exit
#
# Builds bench/sim/pingpong.c with smpicc and runs it with smpirun on
# OUTDIR/platform.xml (smpi/simulate-computation:no: network only):
#
# 1. ping-pong: rank 0 and 1 on the first host, rank 2 on the second host
#    of the same leaf, rank 3 on the first host of another leaf of the same
#    cluster, rank 4 (multi-cluster) on the first host of another cluster;
#    one-way time of 8 B, bandwidth of 1 MiB and 16 MiB, next to the latency
#    and bandwidth OUTDIR/costs gives the engine for that class of pair
#    (same node: socket, same leaf: switch, across leaves: switch1, across
#    clusters: switch2).  The engine's bandwidths above a leaf are a node's
#    share when its neighbours talk too, so one pair alone gets more.
# 2. contention: every host of the first leaf streams to one host of
#    another leaf at once (and on multi-cluster machines the hosts of the
#    first cluster to those of another), one rank per host; the per-pair
#    bandwidth is set next to the engine's figure x 0.95 (the platform's
#    smpi/bw-factor).
#
# The classes are read from OUTDIR/topology.conf (leaves: switches with
# Nodes=; clusters: the switches above them), so classes the machine does
# not have (one host per leaf, a single cluster) are left out.
set -eu

prog=pingpong.sh
die() {
    echo "$prog: $*" >&2
    exit 1
}
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $prog OUTDIR [BUILDDIR]" >&2
    exit 2
fi
outdir=$1
for f in platform.xml topology.conf costs name; do
    [ -r "$outdir/$f" ] || die "$outdir/$f: missing (run bench/sim/mkplatform SPEC $outdir)"
done
command -v smpicc >/dev/null 2>&1 || die "smpicc not found (SimGrid)"
command -v smpirun >/dev/null 2>&1 || die "smpirun not found (SimGrid)"
here=$(cd "$(dirname "$0")" && pwd)
[ -r "$here/pingpong.c" ] || die "$here/pingpong.c: missing"
platform=$(cd "$outdir" && pwd)/platform.xml
name=$(cat "$outdir/name")

if [ $# -eq 2 ]; then
    build=$2
    mkdir -p "$build" || die "$build: cannot create"
else
    build=$(mktemp -d "${TMPDIR:-/tmp}/pingpong.XXXXXX") || die "cannot create a temporary directory"
    trap 'rm -rf "$build"' EXIT
    trap 'exit 1' INT TERM HUP
fi

smpicc -O2 -o "$build/pingpong" "$here/pingpong.c" >"$build/build.log" 2>&1 || {
    cat "$build/build.log" >&2
    die "smpicc failed on $here/pingpong.c"
}

# The hosts of each class, from topology.conf: writes $build/hf.pp (rank i's
# host on line i), $build/classes ("rank class host-pair" for ranks >= 1) and
# for each contention test $build/hf.st.K (senders, then receivers) with a
# line "K description" in $build/streams.
awk -v b="$build" -v topo="$outdir/topology.conf" '
function fail(msg) { print "pingpong.sh: " topo ":" FNR ": " msg | "cat 1>&2"; bad = 1; exit 1 }
# expand a Slurm hostlist: name, prefix[a-b,c], comma lists of those
function expand(s, out,    n, i, c, depth, item, m, parts, j, k, lo, hi, pre, w) {
    n = 0; item = ""; depth = 0; m = 0
    for (i = 1; i <= length(s) + 1; i++) {
        c = i <= length(s) ? substr(s, i, 1) : ","
        if (c == "[") depth++
        if (c == "]") depth--
        if (c == "," && depth == 0) { parts[++m] = item; item = "" } else item = item c
    }
    for (j = 1; j <= m; j++) {
        item = parts[j]
        if (item !~ /\[/) { out[++n] = item; continue }
        if (item !~ /^[^\[]*\[[0-9,-]+\]$/) fail("cannot read hostlist \"" item "\"")
        pre = substr(item, 1, index(item, "[") - 1)
        w = substr(item, index(item, "[") + 1)
        w = substr(w, 1, length(w) - 1)
        k = split(w, r, ",")
        for (i = 1; i <= k; i++) {
            if (split(r[i], q, "-") == 2) { lo = q[1]; hi = q[2] } else { lo = r[i]; hi = r[i] }
            for (c = lo + 0; c <= hi + 0; c++)
                out[++n] = pre sprintf("%0" length(lo) "d", c)
        }
    }
    return n
}
{
    sub(/#.*/, "")
    if ($0 ~ /^[ \t]*$/) next
    sw = ""; nodes = ""; subs = ""
    for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (tolower(kv[1]) == "switchname") sw = kv[2]
        else if (tolower(kv[1]) == "nodes") nodes = kv[2]
        else if (tolower(kv[1]) == "switches") subs = kv[2]
    }
    if (sw == "") fail("expected SwitchName=")
    if (nodes != "") {
        leaf[++nl] = sw
        nh[nl] = expand(nodes, H)
        for (i = 1; i <= nh[nl]; i++) host[nl, i] = H[i]
        idx[sw] = nl
    } else if (subs != "") {
        k = expand(subs, H)
        for (i = 1; i <= k; i++) parent[H[i]] = sw
    }
}
END {
    if (bad) exit 1
    if (nl < 1) { FNR = 0; fail("no switch with Nodes=") }
    # cluster of a leaf: the switch above it (or itself without one)
    for (l = 1; l <= nl; l++) cl[l] = (leaf[l] in parent) ? parent[leaf[l]] : leaf[l]
    h0 = host[1, 1]
    np = 1; print h0 > (b "/hf.pp")
    np++; print h0 > (b "/hf.pp"); print np - 1, "same-node", h0 "-" h0 > (b "/classes")
    if (nh[1] >= 2) {
        np++; print host[1, 2] > (b "/hf.pp"); print np - 1, "same-leaf", h0 "-" host[1, 2] > (b "/classes")
    }
    for (l = 2; l <= nl; l++) if (cl[l] == cl[1]) break
    if (l <= nl) {
        np++; print host[l, 1] > (b "/hf.pp"); print np - 1, "across-leaves", h0 "-" host[l, 1] > (b "/classes")
        k = nh[1] < nh[l] ? nh[1] : nh[l]
        f = b "/hf.st.leaf"
        for (i = 1; i <= k; i++) print host[1, i] > f
        for (i = 1; i <= k; i++) print host[l, i] > f
        print "leaf", "switch1", k, leaf[1] "->" leaf[l] > (b "/streams")
    }
    for (m = 2; m <= nl; m++) if (cl[m] != cl[1]) break
    if (m <= nl) {
        np++; print host[m, 1] > (b "/hf.pp"); print np - 1, "across-clusters", h0 "-" host[m, 1] > (b "/classes")
        # all hosts of the first cluster, all hosts of the other one
        n1 = 0; n2 = 0
        for (l = 1; l <= nl; l++)
            for (i = 1; i <= nh[l]; i++)
                if (cl[l] == cl[1]) a[++n1] = host[l, i]
                else if (cl[l] == cl[m]) z[++n2] = host[l, i]
        k = n1 < n2 ? n1 : n2
        f = b "/hf.st.cluster"
        for (i = 1; i <= k; i++) print a[i] > f
        for (i = 1; i <= k; i++) print z[i] > f
        print "cluster", "switch2", k, cl[1] "->" cl[m] > (b "/streams")
    }
    print np > (b "/np")
}' "$outdir/topology.conf"
[ -s "$build/classes" ] || die "$outdir/topology.conf: found no pair of hosts to measure"
: >>"$build/streams"

now() { date +%s.%N 2>/dev/null || date +%s; }
run() { # run LOG NP HOSTFILE EXPECT ARGS...: EXPECT result lines
    log=$1 n=$2 hf=$3 expect=$4
    shift 4
    smpirun -np "$n" -platform "$platform" -hostfile "$hf" \
        --cfg=smpi/simulate-computation:no "$build/pingpong" "$@" >"$log" 2>"$log.err" || {
        cat "$log.err" >&2
        die "smpirun failed on $platform (log: $log.err)"
    }
    # an MPI_Abort in SMPI leaves smpirun's exit status at 0: count results
    got=$(grep -c -E '^(pp|st) ' "$log" || :)
    [ "$got" -eq "$expect" ] || {
        cat "$log.err" >&2
        die "smpirun on $platform printed $got result lines, expected $expect (log: $log.err)"
    }
}

np=$(cat "$build/np")
t0=$(now)
run "$build/pp.out" "$np" "$build/hf.pp" $((3 * (np - 1))) 1000 20
t1=$(now)
while read -r kind _level k _what; do
    run "$build/st.$kind.out" $((2 * k)) "$build/hf.st.$kind" "$k" stream 16 4
done <"$build/streams"

awk -v name="$name" -v platform="$platform" -v costs="$(cat "$outdir/costs")" \
    -v t0="$t0" -v t1="$t1" -v b="$build" '
BEGIN {
    n = split(costs, w, " ")
    for (i = 1; i < n; i++)
        if (w[i] == "--level-latency" || w[i] == "--level-bandwidth") {
            m = split(w[i + 1], kv, ",")
            for (j = 1; j <= m; j++) {
                split(kv[j], p, "=")
                if (w[i] == "--level-latency") LAT[p[1]] = p[2]; else BW[p[1]] = p[2]
            }
        }
    LEVEL["same-node"] = "socket"; LEVEL["same-leaf"] = "switch"
    LEVEL["across-leaves"] = "switch1"; LEVEL["across-clusters"] = "switch2"
    while ((getline line < (b "/classes")) > 0) {
        split(line, c, " "); CLASS[c[1]] = c[2]; PAIR[c[1]] = c[3]; nr = c[1]
    }
    while ((getline line < (b "/pp.out")) > 0) {
        split(line, c, " ")
        if (c[1] != "pp") continue
        if (c[3] == 8) L8[c[2]] = c[4]
        else if (c[3] == 1048576) B1[c[2]] = c[5]
        else B16[c[2]] = c[5]
    }
    wall = (t1 ~ /^[0-9]+\.[0-9]+$/) ? sprintf(", %.2f s wall", t1 - t0) : ""
    printf "%s: %s (smpirun ping-pong%s)\n", name, platform, wall
    printf "%-16s %-10s %10s %10s %11s %11s %11s\n", "class", "hosts", "8B us", "engine", "1MiB GB/s", "16MiB GB/s", "engine"
    for (r = 1; r <= nr; r++) {
        lv = LEVEL[CLASS[r]]
        printf "%-16s %-10s %10.4f %10s %11.3f %11.3f %11s\n", CLASS[r], PAIR[r], L8[r],
               (lv in LAT) ? LAT[lv] : "-", B1[r], B16[r], (lv in BW) ? BW[lv] : "-"
    }
    while ((getline line < (b "/streams")) > 0) {
        split(line, s, " ")
        f = b "/st." s[1] ".out"
        k = 0; lo = 0; hi = 0
        while ((getline l2 < f) > 0) {
            split(l2, c, " ")
            if (c[1] != "st") continue
            k++; v = c[6] + 0
            if (k == 1 || v < lo) lo = v
            if (k == 1 || v > hi) hi = v
        }
        e = BW[s[2]]; ev = e; sub(/GB\/s$/, "", ev)
        printf "contention %-13s %d pairs at once, 16MiB x4 each: per pair %.3f-%.3f GB/s; engine %s %s x 0.95 = %.3f GB/s\n",
               s[4], k, lo, hi, s[2], e, ev * 0.95
    }
    print "(engine bandwidths above a leaf are the share of one node when its neighbours talk too: compare"
    print " them with the contention lines; the platform delivers 0.95 of every nominal rate)"
}'
