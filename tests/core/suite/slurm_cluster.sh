#!/bin/bash
# SPDX-License-Identifier: MIT
# A single-node Slurm cluster (munged + slurmctld + slurmd, one CPU partition "cpu") in a folder,
# for the Slurm backend's tests.
#   slurm_cluster.sh start DIR   writes DIR/slurm.conf, starts the daemons, waits for the node;
#                                prints "SLURM_CONF=DIR/slurm.conf" when the cluster takes jobs.
#                                Exit 77 with a reason on stderr when it cannot run here (not root,
#                                binaries missing); 1 when it should have started and did not.
#   slurm_cluster.sh stop DIR    stops whatever it started (pid files in DIR); safe to repeat.
set -u
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
    for d in slurmd slurmctld munged; do
        pidfile="$dir/$d.pid"
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile" 2>/dev/null)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null
        fi
        rm -f "$pidfile"
    done
    # Job steps slurmd left behind (slurmstepd of this cluster only: they hold our spool dir).
    for p in $(pgrep -f "slurmstepd.*" 2>/dev/null); do
        if tr '\0' ' ' < /proc/$p/environ 2>/dev/null | grep -q "SLURM_CONF=$dir/slurm.conf"; then kill -9 "$p" 2>/dev/null; fi
    done
    return 0
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

if [ "$(id -u)" != 0 ]; then echo "skip: the test cluster's slurmd must run as root (this is uid $(id -u))" >&2; exit 77; fi
for b in munged mungekey slurmctld slurmd sbatch squeue scancel; do
    command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || { echo "skip: $b not installed (apt-get install slurm-wlm munge)" >&2; exit 77; }
done
PATH=$PATH:/usr/sbin
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctl_port=$(free_port); d_port=$(free_port)
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2/1024/2)}' /proc/meminfo)

mungekey --create --keyfile="$dir/munge/munge.key" --force >/dev/null 2>&1 ||
    { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null; }
chmod 600 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" ||
    { echo "munged did not start:" >&2; cat "$dir/munged.log" >&2; stop; exit 1; }

cat > "$dir/slurm.conf" <<CONF
ClusterName=kwbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE OverSubscribe=YES State=UP
CONF
# No cgroup.conf: proctrack/linuxproc and task/none need no cgroups.
rm -f "$dir/cgroup.conf"
export SLURM_CONF=$dir/slurm.conf
slurmctld -i -f "$SLURM_CONF" || { echo "slurmctld did not start:" >&2; tail -20 "$dir/slurmctld.log" >&2; stop; exit 1; }
slurmd -f "$SLURM_CONF" || { echo "slurmd did not start:" >&2; tail -20 "$dir/slurmd.log" >&2; stop; exit 1; }
for _ in $(seq 300); do
    state=$(sinfo -h -o %t 2>/dev/null | head -1)
    case "$state" in idle*|mix*|alloc*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
    sleep 0.1
done
echo "the node did not come up (state '${state:-none}'):" >&2
tail -20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2
stop
exit 1
