#!/bin/sh
#
# Every step the plugin leaves to Slurm says why, once: exactly one
# "clustermap:" line on the job's stderr when the user asked for placement
# (with `verbose` always), none when the mode only comes from plugstack's
# default=, and exactly one info record in the slurmd log of the step's
# first node.  Cases: srun outside an allocation, -w, -m, -O, salloc -O
# (SLURM_OVERCOMMIT), mpirun's daemon launch, a step known not to call
# MPI_Init, a missing placement module.  The rollback switches: enabled=no
# and a bad plugstack argument keep --mapping jobs running with one line,
# and tell the administrator; with the plugin `optional` and its file
# missing, Slurm itself refuses --mapping.  And the thin plugin: what
# clustermap.so needs and exports.  Every job's exit code is checked.
#
# Own cluster (CM_CLUSTER_NAME=t0512), restarted once per plugstack line.

test_description='SPANK plugin: one line per fallback, rollback, thin plugin'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-t0512}
unset CM_CLUSTER_SLURM_EXTRA
CM_PLUGIN_PATHS_ONLY=1
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"
unset CM_PLUGIN_PATHS_ONLY

# ---- the thin plugin: no cluster needed --------------------------------

test_expect_success 'clustermap.so needs none of the engine libraries' '
    readelf -d "$PLUGIN" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p" >needed &&
    cat needed &&
    grep -q "^libc\.so" needed &&
    ! grep -iE "scotch|openblas|blas|lapack|gfortran|hwloc" needed
'

test_expect_success 'clustermap.so exports the SPANK symbols only' '
    nm -D --defined-only "$PLUGIN" | awk "{print \$3}" >exported &&
    grep -qx slurm_spank_init exported &&
    grep -qx spank_plugin_version exported &&
    ! grep -vE "^(slurm_spank_[a-z_]+|plugin_name|plugin_type|plugin_version|spank_plugin_version)$" exported
'

test_expect_success 'what clustermap.so leaves unresolved, Slurm provides' '
    # versioned symbols come from the libraries it needs, and so may
    # unversioned ones those libraries define (zlib has no versions); the
    # others must be libslurm'"'"'s, which the loading Slurm process has
    nm -D --undefined-only "$PLUGIN" | awk "\$1 == \"U\" && \$2 !~ /@/ {print \$2}" >unresolved &&
    ldd "$PLUGIN" | awk "\$2 == \"=>\" && \$3 ~ /^\// {print \$3}" >needed.paths &&
    test -s needed.paths &&
    for l in $(cat needed.paths); do nm -D --defined-only "$l"; done |
        awk "{print \$3}" | sed "s/@.*//" | sort -u >provided &&
    grep -vE "^(slurm|spank)_" unresolved | sort -u >others &&
    comm -23 others provided >missing &&
    test_must_be_empty missing
'

test_expect_success 'the placement module has the engine and one entry point' '
    readelf -d "$PLACELIB" | grep NEEDED >place.needed &&
    grep -q scotch place.needed &&
    nm -D --defined-only "$PLACELIB" | awk "{print \$3}" >place.exported &&
    test "$(cat place.exported)" = cmp_place_plan_v5
'

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null 2>&1 ||
   ! unshare --net --uts --mount --propagation private true 2>/dev/null; then
    say "# the virtual cluster part needs root and namespaces: not run here"
    test_done
fi
. "$SHARNESS_TEST_DIRECTORY/lib/plugin.sh"
command -v mpirun >/dev/null 2>&1 && test_set_prereq MPIRUN


FALLBACK="; using Slurm.s default placement$"

# admin_once JOB.STEP ERE: exactly one record of the step at info level in
# the nodes' slurmd logs (slurmstepd writes it before the tasks start; the
# loop only covers the log write's own delay), and it matches
admin_once() {
    for i in $(seq 20); do
        grep -hF "] clustermap: job $1 uid " "$STATE"/log/slurmd-n*.log >admin &&
            break
        sleep 0.1
    done
    test "$(wc -l <admin)" -eq 1 &&
    ! grep -q "error:" admin &&
    grep -E "$2" admin
}

# The steps of one allocation, one srun per line of "name srun-args...";
# each srun's stderr in out/<name>.err and its exit code in codes.
steps_in() {   # steps_in SALLOC-ARGS -- (reads the steps on stdin)
    {
        echo "#!/bin/sh"
        echo 'echo "$SLURM_JOB_ID" >out/jobid'
        while read -r name args; do
            echo "srun $args >out/$name.out 2>out/$name.err; echo \"$name \$?\" >>out/codes"
        done
    } >steps.sh &&
    chmod +x steps.sh &&
    rm -f out/codes &&
    run salloc "$@" ./steps.sh >salloc.out 2>salloc.err &&
    ! grep -v " 0$" out/codes &&
    JOB=$(cat out/jobid)
}

test_expect_success 'cluster with the plugin (default=cluster) comes up' '
    plugin_cluster_up default=cluster &&
    grep -q "default=cluster" "$STATE/etc/plugstack.conf"
'

test_expect_success 'srun outside an allocation: one line with verbose, the admin record' '
    run srun -N2 -n4 --mapping=cluster,verbose printenv SLURM_JOB_ID >out/alone.out 2>out/alone.err &&
    one_line out/alone.err "^clustermap: srun outside an allocation \(it makes its own\)$FALLBACK" &&
    job=$(sort -u out/alone.out) &&
    admin_once "$job.0" "uid 0: srun outside an allocation \(it makes its own\)$FALLBACK"
'

test_expect_success 'srun outside an allocation without --mapping: no line, still the record' '
    run srun -N2 -n4 printenv SLURM_JOB_ID >out/alone2.out 2>out/alone2.err &&
    no_line out/alone2.err &&
    admin_once "$(sort -u out/alone2.out).0" "srun outside an allocation"
'

test_expect_success '-w, -m, -O, one task: one line each with verbose, none without' '
    steps_in -J layout -N2 -n4 <<-\EOF &&
	w -w n1 -n2 --mapping=cluster,verbose true
	m -m cyclic --mapping=cluster,verbose true
	o -O --mapping=cluster,verbose true
	one -n1 --mapping=cluster,verbose true
	w0 -w n1 -n2 true
	m0 -m cyclic true
	o0 -O true
	one0 -n1 --mapping=cluster true
	EOF
    one_line out/w.err "^clustermap: the step.s layout is given \(-w\)$FALLBACK" &&
    one_line out/m.err "^clustermap: the step.s layout is given \(-m\)$FALLBACK" &&
    one_line out/o.err "^clustermap: overcommitted step \(-O\)$FALLBACK" &&
    one_line out/one.err "^clustermap: one task: nothing to place$FALLBACK" &&
    for s in w0 m0 o0 one0; do no_line out/$s.err || return 1; done
'

test_expect_success '... and each fallback has its one record in the admin log' '
    admin_once "$JOB.0" "the step.s layout is given \(-w\)" &&
    admin_once "$JOB.1" "the step.s layout is given \(-m\)" &&
    admin_once "$JOB.2" "overcommitted step \(-O\)" &&
    ! grep -F "] clustermap: job $JOB.3 " "$STATE"/log/slurmd-n*.log &&
    admin_once "$JOB.4" "\(-w\)" &&
    admin_once "$JOB.6" "\(-O\)"
'

test_expect_success 'salloc -O: SLURM_OVERCOMMIT is an overcommitted step too' '
    steps_in -O -N2 -n4 <<-\EOF &&
	oc --mapping=cluster,verbose true
	oc0 true
	EOF
    one_line out/oc.err "^clustermap: overcommitted step \(SLURM_OVERCOMMIT\)$FALLBACK" &&
    no_line out/oc0.err &&
    admin_once "$JOB.0" "overcommitted step \(SLURM_OVERCOMMIT\)" &&
    admin_once "$JOB.1" "overcommitted step \(SLURM_OVERCOMMIT\)"
'

test_expect_success MPIRUN 'mpirun: its daemons launch says so on the job stderr, once' '
    printf "#!/bin/sh\nmpirun --allow-run-as-root --bind-to none -np 4 hostname\n" >mpi.sh &&
    sbw -N2 -n4 --mapping=cluster,verbose -o "$PWD/out/mpi.out" -e "$PWD/out/mpi.err" mpi.sh >sub.out &&
    test "$(wc -l <out/mpi.out)" -eq 4 &&
    one_line out/mpi.err "^clustermap: mpirun launch: mpirun decides the layout itself \(--bind-to\)$FALLBACK" &&
    job=$(sed -n "s/^Submitted batch job //p" sub.out) &&
    admin_once "$job.0" "mpirun launch"
'

test_expect_success MPIRUN 'mpirun without --mapping: no line' '
    sbw -N2 -n4 -o "$PWD/out/mpi0.out" -e "$PWD/out/mpi0.err" mpi.sh &&
    test "$(wc -l <out/mpi0.out)" -eq 4 &&
    no_line out/mpi0.err
'

# preloaded FILE: how many tasks of an `srun env` ran with the profiler
preloaded() { grep -c "^LD_PRELOAD=.*libclustermap-prof" "$1"; }

test_expect_success 'a step without MPI is profiled once, then neither profiled nor placed' '
    # The first run is profiled (default=cluster) and marked: it never
    # called MPI_Init.  The later ones keep Slurm default placement
    # without the profiler, silently unless verbose.  (env, not a shell:
    # dash leaves with _exit, before the profiler could say so.)
    cat >nompi.sh <<-EOF &&
	#!/bin/sh
	srun env >out/nm1.out 2>out/nm1.err || exit 1
	for i in \$(seq 50); do
	    ls "$STORE/0" | grep -q "^nompijob%40env-[0-9a-f]*[.]4[.]json[.]nompi\$" && break
	    sleep 0.1
	done
	srun env >out/nm2.out 2>out/nm2.err &&
	srun --mapping=cluster env >out/nm3.out 2>out/nm3.err &&
	srun --mapping=cluster,verbose env >out/nm4.out 2>out/nm4.err
	EOF
    chmod +x nompi.sh &&
    run salloc -J nompijob -N2 -n4 ./nompi.sh 2>salloc.err &&
    test "$(preloaded out/nm1.out)" -eq 4 &&
    no_line out/nm1.err &&
    ls "$STORE/0" | grep "^nompijob%40env-[0-9a-f]*[.]4[.]json[.]nompi$" &&
    for k in 2 3 4; do
        test "$(preloaded out/nm$k.out)" -eq 0 || return 1
    done &&
    no_line out/nm2.err && no_line out/nm3.err &&
    one_line out/nm4.err "^clustermap: job .nompijob. with 4 tasks did not call MPI_Init when it was profiled: neither placed nor profiled$FALLBACK"
'

test_expect_success 'the placement module is found next to clustermap.so' '
    steps_in -J nextto -N2 -n4 <<-\EOF &&
	blk --mapping=block,verbose true
	EOF
    cm_lines out/blk.err >lines &&
    grep "^clustermap: placed 4 tasks of job .nextto. block on 2 of 2 nodes" lines &&
    ! grep "placement module" lines
'

test_expect_success 'place_lib= pointing nowhere: jobs run, one line, one record' '
    plugin_cluster_up default=cluster place_lib=/nonexistent/clustermap-place.so &&
    steps_in -J noplace -N2 -n4 <<-\EOF &&
	blk --mapping=block,verbose true
	blk0 --mapping=block true
	EOF
    one_line out/blk.err "^clustermap: placement module /nonexistent/clustermap-place.so: .*cannot open shared object file: No such file or directory$FALLBACK" &&
    one_line out/blk0.err "^clustermap: placement module /nonexistent/" &&
    admin_once "$JOB.0" "placement module /nonexistent/clustermap-place.so: "
'

test_expect_success 'enabled=no: --mapping jobs run with one line, nothing else happens' '
    plugin_cluster_up default=cluster enabled=no &&
    printf "#!/bin/sh\nsrun env\n" >dis.sh &&
    sbw -J disjob -N2 -n4 --mapping=cluster,verbose -o "$PWD/out/dis.out" -e "$PWD/out/dis.err" dis.sh 2>sub.err &&
    one_line sub.err "^clustermap: disabled by the administrator; --mapping ignored$" &&
    one_line out/dis.err "^clustermap: disabled by the administrator; --mapping ignored$" &&
    test "$(grep -c "^SLURM_PROCID=" out/dis.out)" -eq 4 &&
    ! grep -E "^(SLURM_HOSTFILE|LD_PRELOAD|CLUSTERMAP_[A-Z_]*(CORES|PROFILE|HOSTFILE|FALLBACK|VERBOSE|DIR))=" out/dis.out &&
    ! ls "$STORE"/0/disjob.* 2>/dev/null
'

test_expect_success 'enabled=no: srun --mapping in an allocation, and without it' '
    steps_in -J disjob -N2 -n4 <<-\EOF &&
	d --mapping=cluster,verbose env
	d0 env
	EOF
    one_line out/d.err "^clustermap: disabled by the administrator; --mapping ignored$" &&
    no_line out/d0.err &&
    test "$(preloaded out/d.out)" -eq 0 && test "$(preloaded out/d0.out)" -eq 0 &&
    test_must_fail run srun --mapping=fast true 2>bad.err &&
    grep "clustermap: --mapping: expected a mode" bad.err
'

test_expect_success 'a bad plugstack argument: silence without --mapping' '
    plugin_cluster_up default=cluster colour=blue &&
    run srun -N2 -n4 true 2>out/bad0.err &&
    test_must_be_empty out/bad0.err &&
    printf "#!/bin/sh\nsrun true\n" >bad.sh &&
    sbw -N2 -n4 -o "$PWD/out/bad1.out" -e "$PWD/out/bad1.err" bad.sh 2>sub.err &&
    test_must_be_empty sub.err &&
    test_must_be_empty out/bad1.err
'

test_expect_success 'a bad plugstack argument: one line with --mapping' '
    run srun -N2 -n4 --mapping=cluster true 2>out/bad2.err &&
    one_line out/bad2.err "^clustermap: misconfigured \(see the administrator.s log\); --mapping ignored$" &&
    sbw -N2 -n4 --mapping=cluster -o "$PWD/out/bad3.out" -e "$PWD/out/bad3.err" bad.sh 2>sub.err &&
    one_line sub.err "^clustermap: misconfigured" &&
    one_line out/bad3.err "^clustermap: misconfigured"
'

test_expect_success '... and the error is in slurmd.s log' '
    grep "error: clustermap: plugstack.conf: unknown argument .colour=." "$STATE/log/slurmd-n1.log" >slurmd.err &&
    grep -v "\] \[" slurmd.err &&
    grep "\] \[[0-9]*\.0\] error: clustermap: plugstack.conf" slurmd.err
'

test_expect_success 'optional plugin whose file is missing: Slurm refuses --mapping itself' '
    # Slurm behaviour, not the plugin'"'"'s: why enabled=no is the way back
    CM_CLUSTER_PLUGSTACK="optional $PBUILD/missing/clustermap.so" &&
    export CM_CLUSTER_PLUGSTACK &&
    "$CLUSTER/up.sh" >up.out 2>&1 &&
    test_expect_code 255 run sbatch --mapping=cluster --wrap true 2>missing.err &&
    cat missing.err &&
    grep "^sbatch: unrecognized option .--mapping=cluster.$" missing.err &&
    run sbatch --wrap true >missing.out 2>missing2.err &&
    grep "^Submitted batch job" missing.out &&
    # 26.05 skips the missing optional plugin without a word
    { grep "Dlopen of plugin file failed" missing2.err || ! slurm_older_than 26.05; }
'

cluster_finish

test_done
