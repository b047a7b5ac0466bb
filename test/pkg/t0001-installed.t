#!/bin/sh
#
# clustermap as Debian installed it: run by test/pkg/check inside a fresh
# root of the machine's release into which the packages built from this
# tree were installed with dpkg, with every build tree of the source hidden.
# The command, the plugin (found by Slurm in its own plugin directory from
# plugstack.conf's bare "clustermap.so"), its placement module, the
# profiler the plugin preloads by default and clustermap's mpirun are the
# installed files; the virtual cluster and these tests are the only things
# taken from the source tree.  Ends with the packages purged: nothing they
# installed is left.

test_description='the Debian packages, installed: a profiled and a placed job'

SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh

REPO=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
PACKAGES="libclustermap0 libclustermap-dev clustermap clustermap-profiler slurm-wlm-clustermap-plugin"
if ! dpkg-query -W slurm-wlm-clustermap-plugin >/dev/null 2>&1; then
    skip_all='the clustermap packages are not installed (test/pkg/check installs them)'
    test_done
fi
CM_CLUSTER_NAME=${CM_CLUSTER_NAME:-p0001}
unset CM_CLUSTER_PLUGSTACK CM_CLUSTER_PLUGSTACK_FILE CM_CLUSTER_SLURM_EXTRA CM_CLUSTER_NODES
unset SLURM_HOSTFILE SLURM_JOB_ID CLUSTERMAP_STORE
. "$REPO/test/sh/lib/cluster.sh"
STATE=$CM_CLUSTER_STATE
STORE=$STATE/store
# `clustermap profile` and `explain` find the plugin's store from the
# plugstack.conf next to SLURM_CONF, as on a real login node.
SLURM_CONF=$STATE/etc/slurm.conf
export SLURM_CONF

PLUGIN=$(dpkg -L slurm-wlm-clustermap-plugin | grep '/slurm-wlm/clustermap\.so$')
PLACE=$(dpkg -L slurm-wlm-clustermap-plugin | grep '/slurm-wlm/clustermap-place\.so$')
PROF=$(dpkg -L clustermap-profiler | grep '/libclustermap-prof\.so$')
PC=$(dpkg -L libclustermap-dev | grep '/pkgconfig/clustermap\.pc$')
PINGPONG=/usr/libexec/clustermap/pingpong

. "$REPO/test/sh/lib/diag.sh"
cm_lines() { grep '^clustermap:' "$@" || true; }
jobid_of() { sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$1"; }
# "rank host" as pingpong ran them, and as the plan put them
ran_hosts() { awk '$1 == "host" {print $2, $3}' "$1" | sort -n; }
plan_hosts() { sed -n 's/^clustermap: rank \([0-9]*\) -> \([^ ]*\) core [0-9]*$/\1 \2/p' "$1" | sort -n; }

test_expect_success 'the packages are installed where Debian puts them; no build tree is in sight' '
    for p in $PACKAGES; do
        dpkg-query -W -f "\${Status}\n" "$p" | grep -qx "install ok installed" || return 1
    done &&
    test "$(command -v clustermap)" = /usr/bin/clustermap &&
    case $PLUGIN in /usr/lib/*/slurm-wlm/clustermap.so) ;; *) false ;; esac &&
    test -f "$PLACE" && test -f "$PROF" && test -x "$PINGPONG" &&
    test -x /usr/libexec/clustermap/bin/mpirun &&
    test -f /usr/share/man/man1/clustermap.1.gz &&
    test -f /usr/share/man/man8/clustermap_spank.8.gz &&
    ! test -e "$REPO/build/clustermap" && ! test -e "$REPO/build/clustermap.so"
'

test_expect_success 'every installed program and library finds its libraries' '
    ldd /usr/bin/clustermap "$PLUGIN" "$PLACE" "$PROF" "$PINGPONG" \
        /usr/libexec/clustermap/bin/mpirun $(dpkg -L libclustermap0 | grep "\.so\.0$") >ldd.out 2>&1 &&
    ! grep "not found" ldd.out
'

test_expect_success 'the command runs: --version, --help, a plan offline' '
    clustermap --version >version.out &&
    grep -x "clustermap $(dpkg-query -W -f "\${Version}" clustermap)" version.out &&
    clustermap --help >help.out &&
    grep -q "explain" help.out &&
    printf "0 1 100\n1 0 100\n2 3 100\n3 2 100\n" >pairs.trip &&
    clustermap plan --matrix pairs.trip --hierarchy core=2,node=2 --distances 1:10 \
        --quiet --output - >plan.out &&
    test "$(wc -l <plan.out)" -eq 4
'

test_expect_success 'clustermap.pc names the installed library and header' '
    grep -x "Version: $(dpkg-query -W -f "\${Version}" libclustermap-dev)" "$PC" &&
    libdir=$(sed -n "s/^libdir=//p" "$PC") &&
    test -f "$libdir/libclustermap.so" && test -f "$libdir/libclustermap.a" &&
    test -f "$(sed -n "s/^includedir=//p" "$PC")/clustermap.h"
'

test_expect_success 'the virtual cluster comes up with plugstack.conf naming the bare clustermap.so' '
    CM_CLUSTER_PLUGSTACK="required clustermap.so store=$STORE guard=no" &&
    export CM_CLUSTER_PLUGSTACK &&
    "$CM_CLUSTER_BIN/up.sh" >up.out 2>&1 || diag up.out
'

test_expect_success 'sbatch knows --mapping (the plugin is loaded from Slurm.s plugin directory)' '
    run sbatch --mapping=help --wrap true >mhelp.out 2>&1 &&
    grep -q "^Usage: --mapping=<mode>" mhelp.out || diag mhelp.out
'

test_expect_success 'first run: no profile, Slurm.s default, profiled by the installed profiler' '
    printf "#!/bin/sh\nsrun --mpi=pmix %s --reps 3\n" "$PINGPONG" >job.sh &&
    sbatch_mpi -J pp -N2 -n8 --exclusive --mapping=cluster -o "$PWD/r1.out" -e "$PWD/r1.err" \
        job.sh >r1.sub || diag r1.sub r1.err &&
    cm_lines r1.err >r1.lines &&
    grep -x "clustermap: no profile for job .pp. with 8 tasks; using Slurm.s default placement (profiling this run)" r1.lines ||
        diag r1.err
'

test_expect_success 'clustermap profile list finds the plugin.s store without --store' '
    clustermap profile list >list.out &&
    grep -E "^pp +8 +1 " list.out || diag list.out
'

test_expect_success 'second run is placed by the installed placement module; ranks run where the plan says' '
    cluster_idle &&
    sbatch_mpi -J pp -N2 -n8 --exclusive --mapping=cluster,verbose -o "$PWD/r2.out" -e "$PWD/r2.err" \
        job.sh >r2.sub || diag r2.sub r2.err &&
    grep "^clustermap: placed 8 tasks of job .pp. on 2 of 2 nodes" r2.err &&
    plan_hosts r2.err >plan.hosts && test "$(wc -l <plan.hosts)" -eq 8 &&
    ran_hosts r2.out >ran.hosts &&
    test_cmp plan.hosts ran.hosts || diag r2.err r2.out
'

test_expect_success 'clustermap explain shows the placed step' '
    j=$(jobid_of r2.sub) && test -n "$j" &&
    clustermap explain "$j" >explain.out &&
    grep -x "== step $j.0" explain.out &&
    grep -x "job=pp" explain.out || diag explain.out
'

test_expect_success 'mpirun in a mapped job is the installed clustermap mpirun, and it places' '
    cat >mjob.sh <<-EOF &&
	#!/bin/sh
	echo "launcher \$(command -v mpirun)"
	mpirun --allow-run-as-root $PINGPONG --reps 3
	EOF
    sbatch_mpi -J pp -N2 -n8 --exclusive --mapping=cluster,verbose -o "$PWD/m.out" -e "$PWD/m.err" \
        mjob.sh >m.sub || diag m.sub m.err &&
    grep -x "launcher /usr/libexec/clustermap/bin/mpirun" m.out &&
    grep "^clustermap: placed 8 tasks of job .pp. on 2 of 2 nodes" m.err &&
    plan_hosts m.err >mplan.hosts && ran_hosts m.out >mran.hosts &&
    test_cmp mplan.hosts mran.hosts || diag m.out m.err
'

test_expect_success 'rollback: plugin package removed, an "optional" line, plain jobs still run' '
    dpkg -r slurm-wlm-clustermap-plugin >remove.out 2>&1 &&
    ! test -e "$PLUGIN" &&
    echo "optional clustermap.so store=$STORE" >"$STATE/etc/plugstack.conf" &&
    sbatch_mpi -N2 -n8 -o "$PWD/plain.out" -e "$PWD/plain.err" job.sh >plain.sub ||
        diag remove.out plain.sub plain.err
'

test_expect_success 'purging the packages leaves none of their files' '
    for p in $PACKAGES; do dpkg -L "$p" 2>/dev/null; done | sort -u >files &&
    dpkg --purge $PACKAGES >purge.out 2>&1 &&
    while read -r f; do
        test -d "$f" || ! test -e "$f" || { echo "left: $f"; false; } || return 1
    done <files || diag purge.out
'

cluster_finish
test_done
