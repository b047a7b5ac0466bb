# Shared definitions of the virtual Slurm test cluster (sourced by up.sh,
# down.sh and run; not executable on its own).  See README.md.
#
# One cluster is named by CM_CLUSTER_NAME (namespace prefix, default "cm")
# and lives in one state directory CM_CLUSTER_DIR (default
# /tmp/clustermap-cluster, or /tmp/clustermap-cluster-NAME for another name),
# so two clusters with different names can run side by side.

CM_NAME=${CM_CLUSTER_NAME:-cm}
case $CM_NAME in
    *[!a-z0-9]* | '') echo "cluster: CM_CLUSTER_NAME must be [a-z0-9]+, got '$CM_NAME'" >&2; exit 2 ;;
esac
[ ${#CM_NAME} -le 8 ] || { echo "cluster: CM_CLUSTER_NAME is longer than 8 characters" >&2; exit 2; }
if [ "$CM_NAME" = cm ]; then
    CM_STATE=${CM_CLUSTER_DIR:-/tmp/clustermap-cluster}
else
    CM_STATE=${CM_CLUSTER_DIR:-/tmp/clustermap-cluster-$CM_NAME}
fi
case $CM_STATE in
    /*) ;;
    *) CM_STATE=$(pwd)/$CM_STATE ;;
esac
CM_STATE=$(realpath -m "$CM_STATE")
case $CM_STATE in
    *[[:space:]]* | / | /tmp) echo "cluster: CM_CLUSTER_DIR must be a path without blanks, got '$CM_STATE'" >&2; exit 2 ;;
esac

# Directories every host must see at their own path although /tmp is
# node-local: the state directory and the source tree the harness belongs to
# (tests build programs and write job output there, and a CI checkout may
# well live under /tmp), plus CM_CLUSTER_SHARED (colon-separated).  Only
# those under /tmp need binding back; see cm_in_host.
CM_SRC=${here:+$(cd "$here/../.." && pwd)}
cm_shared_under_tmp() {
    printf '%s\n' "$CM_STATE" "$CM_SRC" $(echo "${CM_CLUSTER_SHARED:-}" | tr ':' ' ') |
        while read -r d; do
            [ -n "$d" ] || continue
            d=$(realpath -m "$d")
            case $d/ in /tmp/?*) echo "${d#/tmp/}" ;; esac
        done | sort -u
}

# Number of compute nodes (n1..nN, two per leaf switch).
CM_NODES=${CM_CLUSTER_NODES:-4}
case $CM_NODES in
    [2-9] | [1-9][0-9]) ;;
    *) echo "cluster: CM_CLUSTER_NODES must be 2..99, got '$CM_NODES'" >&2; exit 2 ;;
esac
[ $((CM_NODES % 2)) -eq 0 ] || { echo "cluster: CM_CLUSTER_NODES must be even (2 nodes per leaf switch)" >&2; exit 2; }

# Nodes in slurm.conf that never register (x00001..xN, for the controller's
# data only: bench/controller/); 0 adds nothing.
CM_EXTRA=${CM_CLUSTER_EXTRA_NODES:-0}
case $CM_EXTRA in
    [0-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9] | [1-9][0-9][0-9][0-9][0-9]) ;;
    *) echo "cluster: CM_CLUSTER_EXTRA_NODES must be 0..99999, got '$CM_EXTRA'" >&2; exit 2 ;;
esac
CM_EXTRA=$((CM_EXTRA + 0))
CM_EXTRA_SWITCH=32   # extra nodes per leaf switch

# GPUs per compute node (0: CPU nodes, the files exactly as without it) and
# the node type they come with (cm_node_xml).
CM_GPUS=${CM_CLUSTER_GPUS:-0}
case $CM_GPUS in
    [0-9] | [1-9][0-9]) ;;
    *) echo "cluster: CM_CLUSTER_GPUS must be 0..99 (GPUs per node), got '$CM_GPUS'" >&2; exit 2 ;;
esac
CM_GPUS=$((CM_GPUS + 0))

# The /24 used inside the cluster's own namespaces only (never routed).
CM_NET=10.250.0
CM_CTL_IP=$CM_NET.1
CM_LOGIN_IP=$CM_NET.2
cm_node_ip() { echo "$CM_NET.$((10 + $1))"; }

CM_NS_BR=$CM_NAME-br
CM_NS_CTL=$CM_NAME-ctl
CM_NS_LOGIN=$CM_NAME-login
cm_node_ns() { echo "$CM_NAME-n$1"; }

CM_ETC=$CM_STATE/etc
CM_LOG=$CM_STATE/log
CM_RUN=$CM_STATE/run
CM_SPOOL=$CM_STATE/spool
CM_TMP=$CM_STATE/tmp
CM_CONF=$CM_ETC/slurm.conf
CM_DEV=$CM_STATE/dev          # the stand-in GPU and NIC device files
CM_HOSTS=$CM_ETC/hosts
CM_SOCK=$CM_RUN/munge.sock
CM_MARK=.clustermap-cluster   # in a state directory up.sh created

cm_all_ns() {   # every namespace of this cluster, bridge last
    echo "$CM_NS_CTL $CM_NS_LOGIN"
    i=1; while [ "$i" -le "$CM_NODES" ]; do cm_node_ns "$i"; i=$((i + 1)); done
    echo "$CM_NS_BR"
}

cm_ns_exists() { [ -e "/run/netns/$1" ]; }

# The namespaces of this cluster that exist now (whatever node count they
# were made with), bridge last.
cm_existing_ns() {
    for f in /run/netns/"$CM_NAME"-*; do
        case ${f#/run/netns/} in
            "$CM_NS_CTL" | "$CM_NS_LOGIN") echo "${f#/run/netns/}" ;;
            "$CM_NAME"-n*[!0-9]* | "$CM_NAME"-n) ;;
            "$CM_NAME"-n*) echo "${f#/run/netns/}" ;;
        esac
    done
    if cm_ns_exists "$CM_NS_BR"; then echo "$CM_NS_BR"; fi
}

cm_log() { echo "cluster[$CM_NAME]: $*"; }
cm_die() { echo "cluster[$CM_NAME]: error: $*" >&2; exit 1; }

# pid_alive PIDFILE COMM: prints the pid if the file names a live process
# whose command is COMM (so a recycled pid is never mistaken for ours).
cm_pid_alive() {
    [ -s "$1" ] || return 1
    p=$(head -n 1 "$1" | tr -dc 0-9)
    [ -n "$p" ] && [ -r "/proc/$p/comm" ] || return 1
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] || return 1
    echo "$p"
}

# The daemons' pid files and their command names, one "FILE COMM" a line
# (with "all": every slurmd pid file present, whatever CM_CLUSTER_NODES says).
cm_daemons() {
    echo "$CM_RUN/munged.pid munged"
    echo "$CM_RUN/slurmctld.pid slurmctld"
    if [ "${1:-}" = all ]; then
        for f in "$CM_RUN"/slurmd-*.pid; do [ -e "$f" ] && echo "$f slurmd"; done
        return 0
    fi
    i=1; while [ "$i" -le "$CM_NODES" ]; do
        echo "$CM_RUN/slurmd-n$i.pid slurmd"; i=$((i + 1))
    done
}

# cm_in_host NS HOSTNAME TMPDIR CMD...: run CMD as if on host HOSTNAME: in
# network namespace NS, with new UTS and private mount namespaces, the
# cluster's hosts file over /etc/hosts and, when TMPDIR is not empty, TMPDIR
# over /tmp and a fresh tmpfs over /dev/shm.  The shared directories under /tmp (cm_shared_under_tmp) are
# bound back at their own paths, so the daemons still see their
# configuration, sockets and logs, and jobs see the source tree.  nsenter
# rather than `ip netns exec`, which remounts /sys.  CM_EXEC=exec: replace
# the calling shell; CM_DAEMON=1: close inherited descriptors (cm_nofds).
cm_in_host() {
    ns=$1 host=$2 tmpdir=$3; shift 3
    rels=$(cm_shared_under_tmp | tr '\n' ' ')
    if [ -n "$tmpdir" ]; then
        for rel in $rels; do mkdir -p "$tmpdir/$rel"; done
    fi
    set -- nsenter --net="/run/netns/$ns" -- unshare --uts --mount --propagation private -- \
        sh -c '
            set -e
            hosts=$1 host=$2 tmpdir=$3 rels=$4; shift 4
            mount --bind "$hosts" /etc/hosts
            if [ -n "$tmpdir" ]; then
                for rel in $rels; do mount --bind "/tmp/$rel" "$tmpdir/$rel"; done
                mount --rbind "$tmpdir" /tmp
                # A node-local /dev/shm too: Open MPI keeps shared-memory
                # segments there, and one node cleaning up must not pull
                # them from under another node of the same job.
                mount -t tmpfs -o mode=1777,size=512m cm-shm /dev/shm
            fi
            hostname "$host"
            exec "$@"' cm-host "$CM_HOSTS" "$host" "$tmpdir" "$rels" "$@"
    if [ "${CM_DAEMON:-0}" = 1 ]; then set -- cm_nofds "$@"; fi
    ${CM_EXEC:-} "$@" 9<&-
}

# cm_nofds CMD...: run CMD with no file descriptor above 2 open.  A daemon
# must not keep its starter's pipes (a test harness waiting for EOF would
# hang) nor the lock on fd 9; munged, unlike slurmd, keeps whatever it gets.
cm_nofds() {
    perl -e 'use POSIX ();
        opendir(my $d, "/proc/self/fd") or die "/proc/self/fd: $!\n";
        my @fds = grep { /^\d+$/ && $_ > 2 } readdir($d);
        closedir($d);
        POSIX::close($_) for @fds;
        exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n";' "$@"
}

CM_SLURM_PLUGINDIR=/usr/lib/x86_64-linux-gnu/slurm-wlm

# cm_has_pmix: this Slurm has the mpi/pmix plugin (Debian forky's 26.05.5
# has none), without which srun cannot start Open MPI 5 or 6 programs.
cm_has_pmix() { ls "$CM_SLURM_PLUGINDIR"/mpi_pmix*.so >/dev/null 2>&1; }

# cm_ompi_major: the major version of the Open MPI that mpicc builds with
# (its mpi.h), else of the installed runtime (ompi_info: a root with
# programs but no compiler, test/pkg/), empty when there is none.
cm_ompi_major() {
    for d in $(mpicc -showme:incdirs 2>/dev/null); do
        [ -r "$d/mpi.h" ] || continue
        sed -n 's/^#define OMPI_MAJOR_VERSION \([0-9]*\).*/\1/p' "$d/mpi.h"
        return 0
    done
    ompi_info --version 2>/dev/null | sed -n '1s/^Open MPI v\([0-9]*\)\..*/\1/p'
}

# cm_node_xml: the hwloc XML of the GPU nodes' type, CM_CLUSTER_NODE_XML:
# a type name (gpu4, the default; dgx, frontier, gh200: the files of
# test/data/nodes/) or the path of an XML file.
cm_node_xml() {
    t=${CM_CLUSTER_NODE_XML:-gpu4}
    case $t in
        */*) x=$t ;;
        *[!a-z0-9_-]* | '') cm_die "CM_CLUSTER_NODE_XML must be a node type (gpu4, dgx, frontier, gh200) or a file path, got '$t'" ;;
        *) x=$CM_SRC/test/data/nodes/$t.xml ;;
    esac
    [ -f "$x" ] && [ -r "$x" ] ||
        cm_die "CM_CLUSTER_NODE_XML=$t: no readable node description $x (expected an hwloc 2 XML file)"
    realpath "$x"
}

# cm_gres_config XML DIR: the GPU nodes' share of the configuration, from
# the one description of the node type (test/cluster/nodeinfo reads its
# cores, GPUs, NICs and GPU links): DIR/node.xml (a copy every host sees
# at the same path, for clustermap's hwloc_xml=), DIR/gres.conf (the
# first CM_CLUSTER_GPUS GPUs and every NIC, Cores= their locality, Links=
# relative GPU link bandwidth), and on its standard output the nodes'
# shape for slurm.conf: "SOCKETS CORES_PER_SOCKET GRES", Slurm's sockets
# being the node's locality domains (nodeinfo: Slurm 24.11 drains a node
# whose Cores= splits a socket).
cm_gres_config() {
    xml=$1 gd=$2
    info=$(perl "$CM_SRC/test/cluster/nodeinfo" "$xml") || cm_die "cannot read the node description $xml"
    ngpu=$(echo "$info" | grep -c '^gpu ')
    nnic=$(echo "$info" | grep -c '^nic ')
    [ "$CM_GPUS" -le "$ngpu" ] ||
        cm_die "CM_CLUSTER_GPUS=$CM_GPUS: node type $xml has $ngpu GPUs"
    cp "$xml" "$gd/node.xml"
    # Slurm 25.11 and later take a Cores= of exactly one socket or of the
    # whole node only (_check_core_range_matches_sock; 24.11 takes whole
    # sockets): a device whose locality spans some of the sockets (the
    # frontier type's NICs, one per NUMA node of two L3 sockets) gets no
    # Cores= there, and a comment saying so.
    one_socket=0
    if printf '25.11\n%s\n' "$(slurmd -V 2>/dev/null | awk '{ print $2 }')" | sort -V -C; then
        one_socket=1
    fi
    echo "$info" | awk -v gpus="$CM_GPUS" -v dev="$CM_DEV" -v src="$xml" -v one_socket="$one_socket" '
        function cores_arg(name, list,   n, i, part, ab, lo, hi, cnt) {
            if (!one_socket) return " Cores=" list
            n = split(list, part, ",")
            lo = -1; hi = -1; cnt = 0
            for (i = 1; i <= n; i++) {
                if (split(part[i], ab, "-") == 1) ab[2] = ab[1]
                if (lo < 0 || ab[1] + 0 < lo) lo = ab[1] + 0
                if (ab[2] + 0 > hi) hi = ab[2] + 0
                cnt += ab[2] - ab[1] + 1
            }
            if (cnt == ncores || (cnt == cps && lo % cps == 0 && hi == lo + cps - 1))
                return " Cores=" list
            dropped = dropped "# " name ": no Cores=" list " (spans " cnt / cps " of the sockets; Slurm 25.11 and later take one socket or all)\n"
            return ""
        }
        $1 == "slurm" { cps = $3; ncores = $2 * $3 }
        $1 == "gpu" && $2 < gpus { vendor[$2] = $4; cores[$2] = $5 }
        $1 == "nic" { nic[$2] = $3; niccores[$2] = $5; nnic = $2 + 1 }
        $1 == "link" && $2 < gpus && $3 < gpus {
            bw[$2 " " $3] = $4
            if (min == "" || $4 < min) min = $4
        }
        END {
            print "# Generated by test/cluster/up.sh from " src ":"
            print "# the GPUs and NICs of the virtual GPU nodes.  Every File= is one of the"
            print "# harness'"'"'s own character devices (major 42, kept for sample use), no"
            print "# real GPU or NIC; Cores= is the locality and Links= the GPU link"
            print "# bandwidth (relative to the slowest link) the XML describes."
            for (i = 0; i < gpus; i++) {
                if (vendor[i] == "amd" || vendor[i] == "intel") {
                    file = dev "/dri/renderD" (128 + i)
                    flag = vendor[i] == "amd" ? "amd_gpu_env" : "intel_gpu_env"
                } else {
                    file = dev "/nvidia" i
                    flag = "nvidia_gpu_env"
                }
                links = ""
                if (min != "") {
                    for (j = 0; j < gpus; j++) {
                        v = i == j ? -1 : (bw[i " " j] == "" ? 0 : int(bw[i " " j] / min + 0.5))
                        links = links (j ? "," : "") v
                    }
                    links = " Links=" links
                }
                line = line sprintf("Name=gpu File=%s%s%s Flags=%s\n", file, cores_arg("GPU " i, cores[i]), links, flag)
            }
            for (i = 0; i < nnic; i++)
                line = line sprintf("Name=nic File=%s/%s%s\n", dev, nic[i], cores_arg("NIC " nic[i], niccores[i]))
            printf "%sAutoDetect=off\n%s", dropped, line
        }' > "$gd/gres.conf" || cm_die "cannot write $gd/gres.conf"
    gres=gpu:$CM_GPUS
    [ "$nnic" -eq 0 ] || gres=$gres,nic:$nnic
    echo "$info" | awk -v gres="$gres" '$1 == "slurm" { print $2, $3, gres }'
}

# cm_gres_devices: the character devices gres.conf names (File=), made
# fresh under CM_DEV with major 42, which the kernel keeps for sample
# code and no driver takes: slurmd only stats them, and opening one
# fails (no such device), so nothing mistakes them for hardware.
cm_gres_devices() {
    [ -r "$CM_ETC/gres.conf" ] || return 0
    rm -rf "$CM_DEV"
    minor=0
    for f in $(sed -n 's/^Name=[a-z]* File=\([^ ]*\).*/\1/p' "$CM_ETC/gres.conf"); do
        case $f in "$CM_DEV"/*) ;; *) cm_die "gres.conf: File=$f is not under $CM_DEV" ;; esac
        mkdir -p "${f%/*}" && mknod "$f" c 42 "$minor" ||
            cm_die "cannot create the stand-in device $f (mknod c 42 $minor)"
        minor=$((minor + 1))
    done
}

# cm_write_config DIR: write slurm.conf, topology.conf, plugstack.conf and
# hosts into DIR, with CM_CLUSTER_GPUS gres.conf and node.xml too (and
# without, neither).  Only the environment and the node count shape them,
# so two runs with the same settings write identical files (up.sh compares
# them to decide whether a running cluster can be kept).
#   CM_CLUSTER_PLUGSTACK       lines for plugstack.conf (e.g. "required /x.so")
#   CM_CLUSTER_PLUGSTACK_FILE  a file whose lines go to plugstack.conf
#   CM_CLUSTER_SLURM_EXTRA     lines appended to slurm.conf (Epilog=, ...)
#   CM_CLUSTER_DEBUG           SlurmctldDebug/SlurmdDebug level (info)
#   CM_CLUSTER_EXTRA_NODES     nodes that never register (cm_extra_*)
#   CM_CLUSTER_GPUS, CM_CLUSTER_NODE_XML  GPU nodes (cm_gres_config)
cm_write_config() {
    d=$1
    mkdir -p "$d"
    mpi=none
    if cm_has_pmix; then mpi=pmix; fi
    dbg=${CM_CLUSTER_DEBUG:-info}
    # CPU nodes: 2 sockets x 4 cores; GPU nodes: the node type's shape.
    sockets=2 cps=4 gres_lines=
    rm -f "$d/gres.conf" "$d/node.xml"
    if [ "$CM_GPUS" -gt 0 ]; then
        xml=$(cm_node_xml) || exit 1
        shape=$(cm_gres_config "$xml" "$d") || exit 1
        # shellcheck disable=SC2086
        set -- $shape
        [ $# -eq 3 ] || cm_die "cannot read the node shape of $xml"
        sockets=$1 cps=$2
        gres_lines="GresTypes=gpu,nic
NodeName=DEFAULT Gres=$3"
    fi

    {
        echo "127.0.0.1 localhost"
        echo "$CM_CTL_IP ctl"
        echo "$CM_LOGIN_IP login"
        i=1; while [ "$i" -le "$CM_NODES" ]; do
            echo "$(cm_node_ip "$i") n$i"; i=$((i + 1))
        done
    } > "$d/hosts"

    topo=${CM_CLUSTER_TOPOLOGY:-tree}
    {
        echo "# Generated by test/cluster/up.sh; leaf switches (blocks) hold two nodes each."
        i=1; s=1; while [ "$i" -le "$CM_NODES" ]; do
            case $topo in
                block) echo "BlockName=b$s Nodes=n[$i-$((i + 1))]" ;;
                *) echo "SwitchName=s$s Nodes=n[$i-$((i + 1))]" ;;
            esac
            i=$((i + 2)); s=$((s + 1))
        done
        case $topo in
            block) echo "BlockSizes=2" ;;
            tree) cm_extra_switches "s[1-$((s - 1))]" ;;
            *) cm_die "CM_CLUSTER_TOPOLOGY must be tree or block, got '$topo'" ;;
        esac
    } > "$d/topology.conf"

    {
        echo "# SPANK plugins of the clustermap test cluster (generated by up.sh)."
        if [ -n "${CM_CLUSTER_PLUGSTACK_FILE:-}" ]; then
            [ -r "$CM_CLUSTER_PLUGSTACK_FILE" ] ||
                cm_die "CM_CLUSTER_PLUGSTACK_FILE=$CM_CLUSTER_PLUGSTACK_FILE is not readable"
            cat "$CM_CLUSTER_PLUGSTACK_FILE"
        fi
        if [ -n "${CM_CLUSTER_PLUGSTACK:-}" ]; then printf '%s\n' "$CM_CLUSTER_PLUGSTACK"; fi
    } > "$d/plugstack.conf"

    cat > "$d/slurm.conf" <<CONF
# Generated by test/cluster/up.sh: a virtual cluster in network namespaces.
ClusterName=cmtest
SlurmctldHost=ctl($CM_CTL_IP)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$CM_SOCK
CredType=cred/munge
CommunicationParameters=NoAddrCache

StateSaveLocation=$CM_SPOOL/ctl
SlurmdSpoolDir=$CM_SPOOL/%n
SlurmctldPidFile=$CM_RUN/slurmctld.pid
SlurmdPidFile=$CM_RUN/slurmd-%n.pid
SlurmctldLogFile=$CM_LOG/slurmctld.log
SlurmdLogFile=$CM_LOG/slurmd-%n.log
SlurmctldDebug=$dbg
SlurmdDebug=$dbg
TmpFS=/tmp

SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
TaskPluginParam=None
TopologyPlugin=topology/$topo
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=$mpi
PropagateResourceLimits=NONE
PlugStackConfig=$CM_ETC/plugstack.conf

JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true

# Short timeouts: the nodes are local, tests should not wait.
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
TCPTimeout=2
BatchStartTimeout=10
InactiveLimit=0
KillWait=2
WaitTime=0
MinJobAge=300
SchedulerParameters=batch_sched_delay=0
UnkillableStepTimeout=30

NodeName=DEFAULT Sockets=$sockets CoresPerSocket=$cps ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
CONF
    if [ -n "$gres_lines" ]; then
        printf '# CM_CLUSTER_GPUS=%s: GPU nodes (gres.conf, node.xml)\n%s\n' "$CM_GPUS" "$gres_lines" >> "$d/slurm.conf"
    fi
    i=1; while [ "$i" -le "$CM_NODES" ]; do
        echo "NodeName=n$i NodeAddr=$(cm_node_ip "$i")" >> "$d/slurm.conf"
        i=$((i + 1))
    done
    cat >> "$d/slurm.conf" <<CONF
# The login host is a node that never runs jobs: without it srun on a
# non-node host misses its wake-up in 22.05.8 and back-to-back steps stall.
NodeName=login NodeAddr=$CM_LOGIN_IP State=FUTURE
PartitionName=debug Nodes=n[1-$CM_NODES] Default=YES MaxTime=INFINITE State=UP
CONF
    cm_extra_nodes >> "$d/slurm.conf"
    if [ -n "${CM_CLUSTER_SLURM_EXTRA:-}" ]; then
        printf '# CM_CLUSTER_SLURM_EXTRA\n%s\n' "$CM_CLUSTER_SLURM_EXTRA" >> "$d/slurm.conf"
    fi
}

# The CM_CLUSTER_EXTRA_NODES nodes: x00001..xN (5 digits), in slurm.conf
# with an address where nothing listens (port 1 of the controller host's
# own loopback), State=CLOUD: powered down, so that slurmctld never
# contacts them (it sends DOWN nodes that never registered a registration
# request at every ping, which with thousands of them keeps half a core
# busy) and no job waits for them, yet they stay in its node table;
# PrivateData=cloud makes slurm_load_node, `scontrol show node` and sinfo
# return them (idle~).  A partition of their own ("extra", not the
# default) and, with topology/tree, leaf switches xs1.. of CM_EXTRA_SWITCH
# nodes under root.  With none (the default) both functions print what
# the files always held.
cm_extra_range() {   # FIRST LAST -> x[FIRST-LAST] (one node: xFIRST)
    if [ "$1" -eq "$2" ]; then printf 'x%05d\n' "$1"; else printf 'x[%05d-%05d]\n' "$1" "$2"; fi
}
cm_extra_switches() {   # LEAVES: the root switch over LEAVES and the extra leaves
    if [ "$CM_EXTRA" -eq 0 ]; then echo "SwitchName=root Switches=$1"; return 0; fi
    i=1 k=0
    while [ "$i" -le "$CM_EXTRA" ]; do
        last=$((i + CM_EXTRA_SWITCH - 1))
        [ "$last" -le "$CM_EXTRA" ] || last=$CM_EXTRA
        k=$((k + 1))
        echo "SwitchName=xs$k Nodes=$(cm_extra_range "$i" "$last")"
        i=$((last + 1))
    done
    if [ "$k" -eq 1 ]; then echo "SwitchName=root Switches=$1,xs1"
    else echo "SwitchName=root Switches=$1,xs[1-$k]"; fi
}
cm_extra_nodes() {
    [ "$CM_EXTRA" -gt 0 ] || return 0
    case ${CM_CLUSTER_TOPOLOGY:-tree} in
        tree) ;;
        *) cm_die "CM_CLUSTER_EXTRA_NODES needs CM_CLUSTER_TOPOLOGY=tree" ;;
    esac
    r=$(cm_extra_range 1 "$CM_EXTRA")
    cat <<CONF
# CM_CLUSTER_EXTRA_NODES=$CM_EXTRA: nodes that never register (nothing
# listens at their address), powered-down cloud nodes shown to everyone,
# in no default partition.
PrivateData=cloud
NodeName=$r NodeAddr=127.0.0.1 Port=1 State=CLOUD
PartitionName=extra Nodes=$r MaxTime=INFINITE State=UP
CONF
}

# cm_client CMD...: a Slurm client on the login host.  The only way the
# project runs Slurm clients: SLURM_CONF is always set (without it a client
# falls back to configless mode and asks DNS for SRV records).
cm_client() {
    if ! cm_ns_exists "$CM_NS_LOGIN" || [ ! -r "$CM_CONF" ]; then
        cm_die "cluster is not up (no namespace $CM_NS_LOGIN or no $CM_CONF): run test/cluster/up.sh"
    fi
    SLURM_CONF=$CM_CONF; export SLURM_CONF
    cm_in_host "$CM_NS_LOGIN" login "" "$@"
}

# Node states, one "NAME STATE" a line (STATE ends in * when not responding).
cm_node_states() {
    cm_client sinfo -h -N -p debug -o '%N %t' 2>/dev/null | sort -u
}

# cm_healthy: all daemons alive and every node responding (any job state).
cm_healthy() {
    cm_daemons | while read -r f c; do cm_pid_alive "$f" "$c" >/dev/null || exit 1; done || return 1
    for ns in $(cm_all_ns); do cm_ns_exists "$ns" || return 1; done
    st=$(cm_node_states) || return 1
    [ "$(echo "$st" | grep -c .)" -eq "$CM_NODES" ] || return 1
    ! echo "$st" | awk '{print $2}' | grep -qvE '^(idle|mix|alloc|comp)$'
}

# cm_lock: serialize up/down of one cluster (flock on the state directory,
# retried if the directory was replaced while we waited).  Fd 9 holds the
# lock: every process started under it must close fd 9 (9<&-), or a daemon
# would keep the lock for its whole life.
cm_lock() {
    mkdir -p "$CM_STATE"
    while :; do
        exec 9<"$CM_STATE"
        if ! flock -w 120 9; then
            [ "${1:-}" = force ] || cm_die "$CM_STATE stayed locked for 120 s (another up.sh/down.sh?)"
            cm_log "warning: $CM_STATE stayed locked for 120 s; going on without the lock"
            return 0
        fi
        if [ -d "$CM_STATE" ] &&
           [ "$(stat -L -c %d:%i /proc/self/fd/9)" = "$(stat -c %d:%i "$CM_STATE")" ]; then
            return 0
        fi
        exec 9<&-
        mkdir -p "$CM_STATE"
    done
}

# cm_ns_pids: the processes in this cluster's network namespaces (job
# steps, slurmstepd, a client still running), one pid a line.
cm_ns_pids() {
    inodes=
    for ns in $(cm_existing_ns); do
        cm_ns_exists "$ns" && inodes="$inodes $(stat -L -c %i "/run/netns/$ns")"
    done
    [ -n "$inodes" ] || return 0
    stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null | awk -v list="$inodes" '
        BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
        ($1 in want) { split($2, p, "/"); print p[3] }'
}

# cm_stop: stop everything this cluster started and remove its namespaces,
# mounts and (unless KEEP_LOGS=1) its state directory.  Safe on a partial or
# absent cluster.
cm_stop() {
    pids=
    for line in $(cm_daemons all | tr ' ' ':'); do
        p=$(cm_pid_alive "${line%%:*}" "${line#*:}") && pids="$pids $p"
    done
    # Daemons get 5 s to exit cleanly; what is left in the namespaces then
    # (slurmstepd ignores SIGTERM, job tasks) is killed.
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -TERM $pids 2>/dev/null || true
    n=0
    while [ "$n" -lt 50 ]; do
        left=
        for p in $pids; do [ -d "/proc/$p" ] && left="$left $p"; done
        [ -n "$left" ] || break
        sleep 0.1; n=$((n + 1))
    done
    n=0
    while [ "$n" -lt 20 ]; do
        left="$left $(cm_ns_pids | tr '\n' ' ')"
        case $left in *[0-9]*) ;; *) break ;; esac
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null || true
        sleep 0.1; n=$((n + 1)); left=
    done
    for ns in $(cm_existing_ns); do
        cm_ns_exists "$ns" && { ip netns delete "$ns" || cm_log "warning: cannot delete namespace $ns"; }
    done
    # ip netns add turned /run/netns into a mount point; undo that if it was
    # us and no other namespace is left there.
    if [ -e "$CM_RUN/netns-mount-created" ] && [ -d /run/netns ] &&
       [ -z "$(ls -A /run/netns)" ] && mountpoint -q /run/netns; then
        umount /run/netns 2>/dev/null && rmdir /run/netns 2>/dev/null
    fi
    # Remove only what up.sh made: a CM_CLUSTER_DIR pointing at a directory
    # of other files loses nothing but etc, log, run, spool and tmp.
    if [ "${KEEP_LOGS:-0}" = 1 ]; then
        rm -rf "$CM_ETC" "$CM_RUN" "$CM_SPOOL" "$CM_TMP" "${CM_STATE:?}/$CM_MARK"
    elif [ -e "$CM_STATE/$CM_MARK" ]; then
        rm -rf "$CM_STATE"
    else
        rm -rf "$CM_ETC" "$CM_LOG" "$CM_RUN" "$CM_SPOOL" "$CM_TMP"
        rmdir "$CM_STATE" 2>/dev/null || true
    fi
}

# cm_net_up: namespaces, a bridge in its own namespace, one veth per host.
# Interfaces are created directly inside the cluster's namespaces (ip -n), so
# the root network namespace never sees them.
cm_net_up() {
    if ! mountpoint -q /run/netns 2>/dev/null; then : > "$CM_RUN/netns-mount-created"; fi
    for ns in $(cm_all_ns); do
        ip netns add "$ns" || cm_die "ip netns add $ns failed (need root and CAP_SYS_ADMIN)"
        # No IPv6 and no default route: nothing can leave the cluster.
        nsenter --net="/run/netns/$ns" sh -c '
            for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 /proc/sys/net/ipv6/conf/default/disable_ipv6; do
                [ -w "$f" ] && echo 1 > "$f"
            done; true'
        ip -n "$ns" link set lo up
    done
    ip -n "$CM_NS_BR" link add br0 type bridge forward_delay 0 stp_state 0
    ip -n "$CM_NS_BR" link set br0 up
    cm_net_attach "$CM_NS_CTL" ctl "$CM_CTL_IP"
    cm_net_attach "$CM_NS_LOGIN" login "$CM_LOGIN_IP"
    i=1; while [ "$i" -le "$CM_NODES" ]; do
        cm_net_attach "$(cm_node_ns "$i")" "n$i" "$(cm_node_ip "$i")"; i=$((i + 1))
    done
}

cm_net_attach() {   # NS SHORTNAME IP
    ip -n "$CM_NS_BR" link add "v-$2" type veth peer name eth0 netns "$1" &&
    ip -n "$CM_NS_BR" link set "v-$2" master br0 up &&
    ip -n "$1" addr add "$3/24" dev eth0 &&
    ip -n "$1" link set eth0 up || cm_die "cannot attach $1 to the bridge"
}

# cm_daemons_up: munged (root namespaces: it only needs a Unix socket),
# slurmctld on host ctl, slurmd on hosts n1..nN.  The daemons fork into the
# background and write the pid files that down.sh uses.
cm_daemons_up() {
    [ -s "$CM_ETC/munge.key" ] || {
        dd if=/dev/urandom of="$CM_ETC/munge.key" bs=1024 count=1 status=none &&
        chmod 0400 "$CM_ETC/munge.key"
    } || cm_die "cannot create $CM_ETC/munge.key"
    cm_nofds munged --force --socket="$CM_SOCK" --key-file="$CM_ETC/munge.key" \
        --pid-file="$CM_RUN/munged.pid" --log-file="$CM_LOG/munged.log" \
        --seed-file="$CM_RUN/munged.seed" > "$CM_LOG/munged.out" 2>&1 9<&- ||
        { cat "$CM_LOG/munged.out" >&2; cm_die "munged failed to start"; }

    mkdir -p "$CM_TMP/ctl" "$CM_SPOOL/ctl" && chmod 1777 "$CM_TMP/ctl"
    CM_DAEMON=1 cm_in_host "$CM_NS_CTL" ctl "$CM_TMP/ctl" slurmctld -f "$CM_CONF" \
        > "$CM_LOG/slurmctld.out" 2>&1 ||
        { cat "$CM_LOG/slurmctld.out" >&2; cm_die "slurmctld failed to start"; }
    i=1; while [ "$i" -le "$CM_NODES" ]; do
        mkdir -p "$CM_TMP/n$i" "$CM_SPOOL/n$i" && chmod 1777 "$CM_TMP/n$i"
        CM_DAEMON=1 cm_in_host "$(cm_node_ns "$i")" "n$i" "$CM_TMP/n$i" slurmd -f "$CM_CONF" \
            > "$CM_LOG/slurmd-n$i.out" 2>&1 ||
            { cat "$CM_LOG/slurmd-n$i.out" >&2; cm_die "slurmd on n$i failed to start"; }
        i=$((i + 1))
    done
}

# cm_wait_idle SECONDS: until every node is idle; on timeout print the node
# states and the log tails and fail.
cm_wait_idle() {
    end=$(( $(date +%s) + $1 ))
    while :; do
        st=$(cm_node_states)
        if [ "$(echo "$st" | grep -c ' idle$')" -eq "$CM_NODES" ]; then return 0; fi
        if [ "$(date +%s)" -ge "$end" ]; then
            {
                echo "cluster[$CM_NAME]: error: nodes not idle after $1 s; sinfo says:"
                echo "${st:-  (no answer)}" | sed 's/^/  /'
                for f in "$CM_LOG"/munged.log "$CM_LOG"/slurmctld.log "$CM_LOG"/slurmd-*.log "$CM_LOG"/*.out; do
                    [ -s "$f" ] || continue
                    echo "--- tail $f"; tail -n 15 "$f"
                done
            } >&2
            return 1
        fi
        sleep 0.2
    done
}
