#!/bin/sh
# Bring up the virtual Slurm test cluster (see README.md); idempotent: a
# healthy cluster with the same configuration is left alone, a broken or
# differently configured one is replaced.  Returns when every node is idle.
#   CM_CLUSTER_DIR, CM_CLUSTER_NAME, CM_CLUSTER_NODES   which cluster (lib.sh)
#   CM_CLUSTER_PLUGSTACK[_FILE], CM_CLUSTER_SLURM_EXTRA  configuration (lib.sh)
#   CM_CLUSTER_GPUS, CM_CLUSTER_NODE_XML  GPU nodes and their type (lib.sh)
#   CM_CLUSTER_TIMEOUT   seconds to wait for idle nodes (60)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || cm_die "must run as root (network namespaces, bind mounts)"
timeout=${CM_CLUSTER_TIMEOUT:-60}

missing=
for c in slurmctld slurmd sinfo srun munged nsenter unshare ip flock mountpoint realpath; do
    command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
[ -e "$CM_SLURM_PLUGINDIR/topology_tree.so" ] || missing="$missing topology_tree.so"
if [ -n "$missing" ]; then
    cm_log "missing:$missing; installing the project's packages"
    "$here/../../scripts/install-deps.sh" || cm_die "scripts/install-deps.sh failed"
fi

# Never take over a directory of other files (down.sh would empty it).
if [ -d "$CM_STATE" ] && [ ! -e "$CM_STATE/$CM_MARK" ]; then
    for f in "$CM_STATE"/* "$CM_STATE"/.[!.]*; do
        case ${f##*/} in
            etc | log | run | spool | tmp | '*' | '.[!.]*' | .new-etc.*) ;;
            *) cm_die "$CM_STATE holds other files (${f##*/}): choose an empty or new CM_CLUSTER_DIR" ;;
        esac
    done
fi
cm_lock

# Keep a healthy cluster whose generated configuration is unchanged.
if [ -r "$CM_CONF" ]; then
    new=$(mktemp -d "$CM_STATE/.new-etc.XXXXXX")
    cm_write_config "$new"
    same=1
    for f in slurm.conf topology.conf plugstack.conf hosts gres.conf node.xml; do
        # gres.conf and node.xml exist with CM_CLUSTER_GPUS only
        [ -e "$new/$f" ] || [ -e "$CM_ETC/$f" ] || continue
        cmp -s "$new/$f" "$CM_ETC/$f" || same=0
    done
    rm -rf "$new"
    if [ "$same" = 1 ] && cm_healthy; then
        cm_log "already up ($CM_STATE)"
        exit 0
    fi
    if [ "$same" = 1 ]; then cm_log "not healthy: restarting"; else cm_log "configuration changed: restarting"; fi
fi
cm_stop    # whatever is left of an earlier run
cm_lock    # cm_stop removed the directory we held

start=$(date +%s)
# Mark the directory as ours: down.sh then removes it whole.
: > "$CM_STATE/$CM_MARK"
mkdir -p "$CM_ETC" "$CM_LOG" "$CM_RUN" "$CM_SPOOL" "$CM_TMP"
chmod 0755 "$CM_STATE" "$CM_ETC" "$CM_RUN"
cm_write_config "$CM_ETC"
cm_gres_devices
cm_net_up
cm_daemons_up
if ! cm_wait_idle "$timeout"; then
    cm_die "cluster did not come up; logs in $CM_LOG; test/cluster/down.sh cleans up"
fi
# slurmctld's first scheduling pass comes ~3 s after its start and batch
# jobs wait for it (sruns do not): wait for it here, once, instead of in the
# first sbatch of every test.  It logs its SchedulerParameters then.
n=0
while [ "$n" -lt 50 ] && ! grep -q 'SchedulerParameters=' "$CM_LOG/slurmctld.log" 2>/dev/null; do
    sleep 0.1; n=$((n + 1))
done
cm_log "up in $(( $(date +%s) - start )) s: $CM_NODES nodes idle ($CM_STATE)"
