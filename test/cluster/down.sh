#!/bin/sh
# Stop the virtual Slurm test cluster: the daemons it started (by their pid
# files), every process left in its namespaces, the namespaces themselves,
# and its state directory.  --keep-logs keeps <state>/log for post-mortems.
# Safe to run on a cluster that is partly or not at all up.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

KEEP_LOGS=0
case ${1:-} in
    --keep-logs) KEEP_LOGS=1 ;;
    '') ;;
    *) echo "usage: $0 [--keep-logs]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || cm_die "must run as root"

present=0
[ -d "$CM_STATE" ] && present=1
[ -z "$(cm_existing_ns)" ] || present=1
if [ "$present" = 0 ]; then cm_log "not running"; exit 0; fi

cm_lock force
cm_stop
cm_log "down"
