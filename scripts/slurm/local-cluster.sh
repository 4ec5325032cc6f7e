#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for testing the sbatch scripts for real.
#
#   scripts/slurm/local-cluster.sh run CMD [ARGS...]   start the cluster, run CMD with SLURM_CONF
#                                                      set, stop the cluster (also on failure)
#   scripts/slurm/local-cluster.sh start | stop        the same in two steps
#
# Needs root and Debian's packages (installs slurm-wlm and munge with apt-get when missing).
# Everything the cluster writes lives under $NIMSEQ_SLURM_DIR (default /tmp/nimseq-slurm): the
# configuration, state, spool and logs. Nothing in /etc/slurm is touched; clients find the
# cluster through SLURM_CONF. The configuration avoids cgroups on purpose (proctrack/linuxproc,
# task/none, jobacct_gather/none): it must work in containers and VMs where the cgroup
# hierarchy is not delegated. Ports: $NIMSEQ_SLURM_PORT (slurmctld, default 6817) and the next
# one (slurmd).
set -euo pipefail

DIR=${NIMSEQ_SLURM_DIR:-/tmp/nimseq-slurm}
PORT=${NIMSEQ_SLURM_PORT:-6817}
CONF=$DIR/slurm.conf
LOG() { echo "local-cluster: $*" >&2; }

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return
    fi
    LOG "installing slurm-wlm and munge from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
}

write_config() {
    mkdir -p "$DIR"/{state,spool,log,munge}
    local host cpus sockets cores threads mem_kib mem_mib
    host=$(hostname -s)
    # Topology as slurmd sees it: a node that claims more than the hardware has is drained.
    read -r cpus sockets cores threads < <(slurmd -C | head -1 | tr ' ' '\n' | awk -F= '
        $1=="CPUs"{c=$2} $1=="SocketsPerBoard"{s=$2} $1=="CoresPerSocket"{k=$2}
        $1=="ThreadsPerCore"{t=$2} END{print c, s, k, t}')
    mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
    # Leave 5% to the system, or slurmd finds less than configured and drains the node.
    mem_mib=$((mem_kib / 1024 * 95 / 100))
    cat >"$CONF" <<EOF
# One-node test cluster written by scripts/slurm/local-cluster.sh
ClusterName=nimseq-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Without a default, a job asks for the whole node's memory and array tasks run one at a time.
DefMemPerCPU=$((mem_mib / cpus))
ReturnToService=2
JobRequeue=1
MaxArraySize=10001
KillWait=30
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    # No cgroup.conf: nothing above loads the cgroup plugins.
}

start_munge() {
    local key=$DIR/munge/munge.key
    if [ ! -f "$key" ]; then
        if [ -r /etc/munge/munge.key ]; then
            cp /etc/munge/munge.key "$key"
        else
            dd if=/dev/urandom of="$key" bs=128 count=1 status=none
        fi
    fi
    chown -R munge:munge "$DIR/munge" 2>/dev/null || true
    chmod 755 "$DIR/munge"
    chmod 400 "$key"
    # Our own munged, on our own socket, so that a system munged (if any) is left alone.
    runuser -u munge -- /usr/sbin/munged \
        --key-file="$key" --socket="$DIR/munge/munge.socket" \
        --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munge/munged.log" \
        --seed-file="$DIR/munge/munged.seed"
    for _ in $(seq 50); do [ -S "$DIR/munge/munge.socket" ] && return; sleep 0.1; done
    LOG "munged did not start; see $DIR/munge/munged.log"
    return 1
}

wait_idle() {
    local host state
    host=$(hostname -s)
    for _ in $(seq 120); do
        state=$(SLURM_CONF=$CONF sinfo -h -N -n "$host" -o %t 2>/dev/null || true)
        case "$state" in
            idle*|mix*|alloc*) LOG "node $host is $state"; return 0 ;;
            drain*|down*|fail*)
                # A node that was down when slurmctld last saved its state: bring it back.
                SLURM_CONF=$CONF scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
        esac
        sleep 0.5
    done
    LOG "node $host did not become idle (state '$state'); logs in $DIR/log"
    SLURM_CONF=$CONF scontrol show node "$host" >&2 || true
    tail -20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
    return 1
}

start() {
    [ "$(id -u)" = 0 ] || { LOG "must run as root"; exit 1; }
    install_packages
    if [ -f "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; then
        LOG "already running (SLURM_CONF=$CONF)"
        return
    fi
    write_config
    start_munge
    export SLURM_CONF=$CONF
    # -i: ignore state from an earlier run (jobs, node states); each start is a fresh cluster.
    /usr/sbin/slurmctld -f "$CONF" -i
    /usr/sbin/slurmd -f "$CONF"
    wait_idle
    LOG "up: export SLURM_CONF=$CONF"
}

stop_pidfile() {
    local f=$1 pid
    [ -f "$f" ] || return 0
    pid=$(cat "$f")
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

stop() {
    # Jobs first, so that no job step outlives the cluster.
    SLURM_CONF=$CONF scancel --full --quiet --user=root 2>/dev/null || true
    stop_pidfile "$DIR/slurmd.pid"
    stop_pidfile "$DIR/slurmctld.pid"
    stop_pidfile "$DIR/munge/munged.pid"
    LOG "stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    run)
        shift
        [ $# -gt 0 ] || { LOG "usage: $0 run CMD [ARGS...]"; exit 2; }
        trap stop EXIT
        start
        SLURM_CONF=$CONF "$@"
        ;;
    *) echo "usage: $0 start | stop | run CMD [ARGS...]" >&2; exit 2 ;;
esac
