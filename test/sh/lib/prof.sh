# prof.sh -- sourced by the t0100-prof-*.t tests after sharness.sh.
# shellcheck shell=sh disable=SC2034
#
# Sets CM_ROOT, PROF_SO (the profiling library: $CLUSTERMAP_BUILD, default
# <root>/build, /libclustermap-prof.so) and MPI_SRC (test/mpi), and defines
#   prof_cc NAME        build test/mpi/NAME.c into ./NAME
#   mpi_run NP CMD...   run CMD on NP ranks (CMD may start with mpirun
#                       options), without the library
#   prof_run NP DIR CMD...
#                       the same with the library preloaded and
#                       CLUSTERMAP_PROFILE_DIR=DIR (DIR "" = unset)
#   prof_check DIR EXPECTED
#                       DIR holds one part per rank (part.<rank>.txt, format
#                       2) and nothing else; together their p2p/coll lines
#                       equal EXPECTED (any order), each header names the
#                       rank count and its rank, each end count is right.

CM_ROOT=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
PROF_BUILD=${CLUSTERMAP_BUILD:-$CM_ROOT/build}
case $PROF_BUILD in
/*) ;;
*) PROF_BUILD=$CM_ROOT/$PROF_BUILD ;;
esac
PROF_SO=$PROF_BUILD/libclustermap-prof.so
MPI_SRC=$CM_ROOT/test/mpi
test -f "$PROF_SO" || error "$PROF_SO not built (run make, or set CLUSTERMAP_BUILD)"
# Open MPI refuses root without these; CI runs as root.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
unset SLURM_JOB_ID SLURM_STEP_ID CLUSTERMAP_PROFILE_DIR CLUSTERMAP_PROF_DENSE_MAX \
    CLUSTERMAP_OVERLAY CLUSTERMAP_OVERLAY_VERBOSE \
    CLUSTERMAP_OVERLAY_TRACE CLUSTERMAP_OVERLAY_PRIO

prof_cc() {
    mpicc -O -Wall -I"$MPI_SRC" -o "$1" "$MPI_SRC/$1.c"
}

mpi_run() {
    np=$1
    shift
    # self,vader: shared memory only, no network interfaces needed
    mpirun --oversubscribe --allow-run-as-root --mca btl self,vader \
        --mca btl_vader_single_copy_mechanism none -np "$np" "$@"
}

prof_run() {
    np=$1 dir=$2
    shift 2
    if test -n "$dir"; then
        set -- -x CLUSTERMAP_PROFILE_DIR="$dir" "$@"
    fi
    mpi_run "$np" -x LD_PRELOAD="$PROF_SO" "$@"
}

prof_check() {
    dir=$1 expected=$2
    np=$(sed -n 's/^ranks //p' "$dir"/part.0.txt) &&
    ls -A "$dir" | sort >"$dir.list" &&
    i=0 && : >"$dir.want" &&
    while test "$i" -lt "$np"; do echo "part.$i.txt" >>"$dir.want"; i=$((i + 1)); done &&
    sort "$dir.want" | test_cmp - "$dir.list" &&
    for f in "$dir"/part.*.txt; do
        sed -n 1p "$f" | grep -x 'clustermap-raw 2' &&
        sed -n 2p "$f" | grep -x "ranks $np" &&
        r=${f##*/part.} && r=${r%.txt} &&
        sed -n 3p "$f" | grep -x "rank $r" &&
        sed -n 4p "$f" | grep -x 'job nojob nostep' &&
        n=$(grep -c -E '^(p2p|coll) ' "$f") &&
        tail -n 1 "$f" | grep -x "end $n" || return 1
    done &&
    cat "$dir"/part.*.txt | grep -E '^(p2p|coll) ' | sort >"$dir.actual" &&
    sort "$expected" >"$dir.expected" &&
    test_cmp "$dir.expected" "$dir.actual"
}
