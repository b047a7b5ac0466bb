#!/bin/sh
# demo.sh BUILD_DIR -- the clustermap demo (`make demo`).
#
# As root where network namespaces can be made: the cluster demo.  A
# virtual Slurm cluster (test/cluster: 4 nodes of 2 x 4 cores, two leaf
# switches) with the clustermap SPANK plugin; an MPI halo exchange whose
# ranks are scrambled against the nodes is submitted twice with
# `sbatch --mapping=cluster`: the first run is profiled, the second placed.
# Prints where every rank ran in both runs and the predicted communication
# cost (clustermap eval) of Slurm's default placement versus clustermap's
# and their run times simulated with SimGrid on a platform shaped like the
# cluster (sim_times), then takes the cluster down.
#
# CM_STACK=trixie|forky runs the cluster demo inside that stack's Debian
# root (test/stacks: Slurm 24.11 / Open MPI 5.0, Slurm 26.05 / Open MPI
# 6.0), built there; CM_LAUNCHER=mpirun starts the halo with mpirun instead
# of srun (placed and profiled through clustermap's mpirun), as it does by
# default where srun cannot start Open MPI programs (forky).  The demo prints the Slurm and Open MPI versions it ran with and
# says "demo: ok" only when the placed run's ranks ran where the plan said,
# with Slurm's default number of tasks on every node.
#
# Otherwise (or with CM_DEMO=offline): the offline planner demo -- real
# communication matrices of NAS and LAMMPS runs, a hierarchical machine
# described VieM-style, every baseline placement planned with `clustermap
# plan`, read back and costed with `clustermap eval`, and a table of J and
# J/J_block.  Exits non-zero as soon as any command fails.
set -eu

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in
/*) cm=$build/clustermap ;;
*) cm=$root/$build/clustermap ;;
esac
matrices=$root/test/data/matrices
distances=1:2:10:20
algorithms="block cyclic random scotch"
seed=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
    echo "demo: $*" >&2
    exit 1
}

# plan_and_eval MATRIX ALGORITHM MACHINE-OPTIONS...: plan a mapping into a
# file, evaluate that file, print its J.
plan_and_eval() {
    matrix=$1 algorithm=$2; shift 2
    map=$work/$(basename "$matrix" .mtx).$algorithm.map
    "$cm" plan --matrix "$matrix" "$@" --algorithm "$algorithm" --seed "$seed" \
        --output "$map" || fail "clustermap plan failed ($algorithm on $matrix)"
    "$cm" eval --matrix "$matrix" "$@" --mapping "$map" >"$map.eval" ||
        fail "clustermap eval failed ($algorithm on $matrix)"
    sed -n 's/^J=//p' "$map.eval"
}

print_header() {
    printf '%-20s %-9s %-9s %16s %10s\n' matrix machine algorithm J J/J_block
}

# run_case NAME HIERARCHY: one row per algorithm.
run_case() {
    name=$1 hierarchy=$2
    matrix=$matrices/$name.mtx
    [ -r "$matrix" ] || fail "missing matrix $matrix"
    jblock=
    for algorithm in $algorithms; do
        j=$(plan_and_eval "$matrix" "$algorithm" \
              --hierarchy "$hierarchy" --distances "$distances") || exit 1
        [ -n "$j" ] || fail "no J for $algorithm on $name"
        [ -n "$jblock" ] || jblock=$j
        awk -v n="$name" -v h="$hierarchy" -v a="$algorithm" -v j="$j" -v b="$jblock" \
            'BEGIN { printf "%-20s %-9s %-9s %16s %10.3f\n", n, h, a, j, (b > 0 ? j / b : 1) }'
    done
}

offline_demo() {
    [ -x "$cm" ] || fail "$cm not built (run make)"
    echo "clustermap demo: offline planning, distances $distances (socket:node:switch:cluster), seed $seed"
    print_header
    run_case cg.S.64 4:2:4:2
    run_case mg.S.64 4:2:4:2
    run_case lammps.peptide.64 4:2:4:2
    run_case ft.S.128 4:2:8:2
    echo "demo: ok"
}

# ---- the cluster demo ----

cluster_possible() {
    [ "$(id -u)" -eq 0 ] &&
    unshare --net --uts --mount --propagation private true 2>/dev/null &&
    command -v ip >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1
}

# sim_times SLURM-RANKS PLACED-RANKS J-SLURM J-PLACED: the simulated run
# time of the halo under both placements as they ran ("rank host" files),
# on a SimGrid platform shaped like the virtual cluster (bench/sim/platforms/
# vc4.spec: 4 nodes of 8 cores, 2 per leaf switch): the program is traced
# once, the trace replayed under each placement (bench/sim/README.md).
sim_times() {
    sim=$root/bench/sim
    pd=$work/vc4
    "$sim/mkplatform" "$sim/platforms/vc4.spec" "$pd" >/dev/null || fail "mkplatform failed"
    smpicc -O2 -I"$root/test/mpi" -o "$work/halo.smpi" "$root/test/mpi/halo_scrambled.c" \
        >"$work/smpicc.log" 2>&1 || { cat "$work/smpicc.log" >&2; fail "smpicc failed"; }
    # The virtual cluster's n1..n4 are the platform's n0..n3.
    for f in "$1" "$2"; do
        sort -n "$f" | awk '{ sub(/^n/, "", $2); print "n" ($2 - 1) }' >"$work/$f.hosts"
    done
    mkdir -p "$work/trace"
    (cd "$work/trace" && smpirun -np 16 -platform "$pd/platform.xml" -hostfile "$work/$1.hosts" \
        -trace-ti --cfg=tracing/filename:halo.ti --cfg=smpi/simulate-computation:no \
        --log=root.thres:warning "$work/halo.smpi" 20) >"$work/trace.log" 2>&1 ||
        { tail -n 5 "$work/trace.log" >&2; fail "tracing the halo under SimGrid failed"; }
    for f in "$1" "$2"; do
        for m in default eager; do
            "$sim/replay.sh" "$work/trace" halo.ti 16 "$work/$f.hosts" "$pd/platform.xml" \
                "$m" "$work/$f.$m" || fail "replay failed"
        done
    done
    echo
    echo "== simulated run time (SimGrid replay of the halo, 20 steps, on a platform like"
    echo "   this cluster: $(sed -n '2s/^# *//p' "$sim/platforms/vc4.spec" | sed 's/ -- .*//'))"
    printf '%-34s %14s %16s %16s\n' placement "predicted J" "time, SMPI model" "time, eager"
    printf '%-34s %14.4g %14.1f us %14.1f us\n' "Slurm's default (run 1)" "$3" \
        "$(awk '{ print $1 * 1e6 }' "$work/$1.default")" "$(awk '{ print $1 * 1e6 }' "$work/$1.eager")"
    printf '%-34s %14.4g %14.1f us %14.1f us\n' "clustermap (run 2)" "$4" \
        "$(awk '{ print $1 * 1e6 }' "$work/$2.default")" "$(awk '{ print $1 * 1e6 }' "$work/$2.eager")"
    awk -v a="$(cat "$work/$1.default")" -v b="$(cat "$work/$2.default")" \
        -v c="$(cat "$work/$1.eager")" -v d="$(cat "$work/$2.eager")" 'BEGIN {
        printf "clustermap / Slurm default: time %.3f (SMPI model), %.3f (eager)\n", b / a, d / c }'
}

# "rank host" of the halo's output, as a table with the cores the plugin chose.
cluster_demo() {
    for f in clustermap clustermap.so libclustermap-prof.so; do
        [ -e "$bdir/$f" ] || fail "$bdir/$f not built (run make)"
    done
    CM_CLUSTER_NAME=demo
    export CM_CLUSTER_NAME
    unset CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_PLUGSTACK_FILE
    state=$(. "$root/test/cluster/lib.sh" && echo "$CM_STATE")
    store=$state/store
    CM_CLUSTER_PLUGSTACK="required $bdir/clustermap.so store=$store prof_lib=$bdir/libclustermap-prof.so mpirun_dir=$bdir/bin"
    export CM_CLUSTER_PLUGSTACK
    echo "clustermap demo: a virtual Slurm cluster of 4 nodes (2 sockets x 4 cores),"
    echo "two leaf switches (n1,n2 | n3,n4), with the clustermap SPANK plugin"
    # srun by default; mpirun where this Slurm cannot start Open MPI
    # programs (forky: no mpi/pmix) unless CM_LAUNCHER says srun
    launcher=${CM_LAUNCHER:-srun}
    if [ -z "${CM_LAUNCHER:-}" ] && ! (. "$root/test/cluster/lib.sh" && cm_has_pmix); then
        launcher=mpirun
    fi
    echo "stack: ${CM_STACK:-host}: $(slurmd -V), $(mpirun --version 2>/dev/null | head -n 1)," \
         "launcher $launcher"
    [ "$launcher" = "${CM_LAUNCHER:-srun}" ] ||
        echo "(this Slurm has no mpi/pmix plugin, so srun cannot start Open MPI programs: mpirun starts the halo)"
    "$root/test/cluster/up.sh" || fail "test/cluster/up.sh failed"
    jobdir=$(mktemp -d /var/tmp/clustermap-demo.XXXXXX)
    trap 'rm -rf "$work" "$jobdir"; "$root/test/cluster/down.sh" >/dev/null 2>&1' EXIT INT TERM
    chmod 755 "$jobdir"
    mpicc -O2 -o "$jobdir/halo" "$root/test/mpi/halo_scrambled.c" || fail "mpicc failed"
    if [ "$launcher" = srun ] && ! (. "$root/test/cluster/lib.sh" && cm_has_pmix); then
        fail "this stack's Slurm has no mpi/pmix plugin, so srun cannot start Open MPI programs (CM_LAUNCHER=mpirun starts them)"
    fi
    case $launcher in
        srun) printf '#!/bin/sh\nsrun --mpi=pmix ./halo 20\n' >"$jobdir/job.sh" ;;
        mpirun) printf '#!/bin/sh\nmpirun --allow-run-as-root ./halo 20\n' >"$jobdir/job.sh" ;;
        *) fail "CM_LAUNCHER must be srun or mpirun, got '$CM_LAUNCHER'" ;;
    esac
    chmod 755 "$jobdir/job.sh"
    cd "$jobdir"
    for run in 1 2; do
        echo
        echo "== run $run: sbatch -J halo -N4 -n16 --exclusive --mapping=cluster,verbose job.sh"
        submit() {
            "$root/test/cluster/sbatch-wait" -J halo -N4 -n16 --exclusive --mapping=cluster,verbose \
                -o "run$run.out" -e "run$run.err" job.sh
        }
        # Open MPI 4.1.4's TCP transport now and then kills a rank at start-up
        # ("Failing at address: (nil)"; test/sh/lib/cluster.sh): once more then.
        if ! submit || grep -q "Failing at address: (nil)" "run$run.err"; then
            if grep -q "Failing at address: (nil)" "run$run.err"; then
                echo "(Open MPI start-up race; submitting once more)"
                submit || { cat "run$run.err" >&2; fail "job $run failed"; }
            else
                cat "run$run.err" >&2; fail "job $run failed"
            fi
        fi
        grep '^clustermap: \(no profile\|placed\)' "run$run.err" || true
        if [ "$run" = 1 ]; then   # the profile is stored when the step has ended
            i=0
            while [ $i -lt 50 ] && ! "$cm" profile --store "$store" list 2>/dev/null |
                    grep -q '^halo  *16 '; do
                sleep 0.1; i=$((i + 1))
            done
            "$cm" profile --store "$store" list
        fi
    done
    echo
    echo "== where the ranks ran (halo neighbours are far apart in rank order)"
    awk '$1 == "rank" {print $2, $6}' run1.out >r1
    awk '$1 == "rank" {print $2, $6}' run2.out >r2
    printf '%-6s %-16s %-16s\n' rank "Slurm's default" clustermap
    sort -k1,1 r1 >r1s; sort -k1,1 r2 >r2s
    join r1s r2s | sort -n | awk '{printf "%-6s %-16s %-16s\n", $1, $2, $3}'
    # The placed run must be the plan, with Slurm's tasks per node.
    sed -n 's/^clustermap: rank \([0-9]*\) -> \([^ ]*\) core [0-9]*$/\1 \2/p' run2.err |
        sort -n >plan.hosts
    [ -s plan.hosts ] || { grep '^clustermap:' run2.err >&2 || true
        fail "run 2 was not placed (its clustermap line is above)"; }
    sort -n r2 | cmp -s - plan.hosts || fail "run 2's ranks did not run where the plan said"
    for r in r1 r2; do awk '{print $2}' "$r" | sort | uniq -c >"$r.counts"; done
    cmp -s r1.counts r2.counts || fail "run 2 changed the number of tasks per node"
    echo "(run 2 ran where the plan said, with Slurm's default tasks per node)"
    # Mappings (slot = node index x 8 + core) of both runs for eval.
    awk '{ sub(/^n/, "", $2); print ($2 - 1) * 8 + seen[$2]++ }' r1 >slurm.map
    sed -n 's/^clustermap: rank [0-9]* -> n\([0-9]*\) core \([0-9]*\)$/\1 \2/p' run2.err |
        awk '{print ($1 - 1) * 8 + $2}' >placed.map
    "$cm" profile --store "$store" show halo --ntasks 16 --format triplets >halo.trip
    machine="--slurm-conf $state/etc/slurm.conf --topology-conf $state/etc/topology.conf --nodelist n[1-4]"
    echo
    echo "== predicted communication cost J (clustermap eval, seconds of transfer)"
    for m in slurm.map placed.map; do
        # shellcheck disable=SC2086
        j=$("$cm" eval --matrix halo.trip $machine --mapping "$m" | sed -n 's/^J=//p') ||
            fail "clustermap eval failed"
        case $m in
            slurm.map) label="Slurm's default (run 1, as it ran)"; js=$j ;;
            placed.map) label="clustermap (run 2, as it ran)"; jc=$j ;;
        esac
        printf '%-40s J=%s\n' "$label" "$j"
    done
    awk -v s="$js" -v c="$jc" 'BEGIN { printf "clustermap / Slurm default = %.3f\n", c / s }'
    if command -v smpicc >/dev/null 2>&1; then
        sim_times r1 r2 "$js" "$jc"
    else
        echo
        echo "(no SimGrid in this stack: simulated run times are shown on the host stack)"
    fi
    cd "$root"
    "$root/test/cluster/down.sh" >/dev/null
    echo "demo: ok"
}

case $build in
/*) bdir=$build ;;
*) bdir=$root/$build ;;
esac
case ${CM_STACK:-host} in
    host) ;;
    trixie | forky)
        # Outside the stack: build there and run this demo inside it.
        if [ ! -f /.clustermap-stack ]; then
            exec "$root/test/stacks/enter" "$CM_STACK" sh -c \
                'make -s -j2 BUILD="build-$CM_STACK" all && scripts/demo.sh "build-$CM_STACK"'
        fi ;;
    *) fail "CM_STACK must be host, trixie or forky, got '$CM_STACK'" ;;
esac
if [ "${CM_DEMO:-}" = offline ]; then
    offline_demo
elif cluster_possible; then
    cluster_demo
else
    echo "demo: the cluster demo needs root and network namespaces; running the offline demo" >&2
    offline_demo
fi
