#!/usr/bin/env bash
# A throw-away single-node SLURM cluster on this machine, for tests/test_slurm.py and by hand:
#   tests/slurm/cluster.sh start DIR   write DIR/slurm.conf, start munged, slurmctld and slurmd
#   tests/slurm/cluster.sh stop DIR    stop the three daemons started from DIR
# then `export PATH=DIR/bin:$PATH` points sbatch, srun, squeue, scontrol, scancel and sacct at it.
# Everything (keys, sockets, state, logs, the job-completion record) lives in DIR; nothing is
# written under /etc or /var, and the ports are free ones, so it coexists with a real cluster.
# One node, this machine: its CPUs and memory as `slurmd -C` reports them. No accounting
# database: job states come from squeue (MinJobAge keeps finished jobs there for an hour) and
# each finished job's record (state, time limit, CPUs, memory) from the jobcomp/filetxt file
# DIR/jobcomp.txt. Needs root (slurmd starts job steps as the submitting user) and Debian's
# packages slurmctld, slurmd, slurm-client and munge.
set -euo pipefail

action=${1:?usage: cluster.sh start|stop DIR}
dir=${2:?usage: cluster.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_pid() {  # stop the daemon whose pid file is $1, waiting up to 10 s
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

case "$action" in
start)
  for cmd in munged slurmctld slurmd sbatch; do
    command -v "$cmd" >/dev/null || { echo "cluster.sh: $cmd not found" >&2; exit 3; }
  done
  mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool"
  chmod 700 "$dir/munge"
  [ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed"
  node=$(slurmd -C | head -1)   # NodeName=<host> CPUs=... RealMemory=...
  host=$(hostname -s)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=boostcm-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  # drop `slurmd -C`'s UpTime field, which is not a node parameter
  sed -i 's/ UpTime=[^ ]*//' "$dir/slurm.conf"
  # Client commands that find this cluster from any environment: the SLURM job-step plugin drops
  # SLURM_CONF before its inner `srun` (on a real cluster the config is /etc/slurm/slurm.conf), so
  # put DIR/bin first in PATH rather than exporting SLURM_CONF alone.
  mkdir -p "$dir/bin"
  for cmd in sbatch srun squeue scontrol scancel sinfo sacct; do
    printf '#!/bin/sh\nSLURM_CONF=%s exec %s "$@"\n' "$dir/slurm.conf" "$(command -v "$cmd")" \
      > "$dir/bin/$cmd"
    chmod +x "$dir/bin/$cmd"
  done
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -i
  nice -n 10 slurmd   # jobs inherit the niceness: a test cluster yields to interactive work
  for _ in $(seq 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qx idle; then
      echo "PATH=$dir/bin:\$PATH"
      exit 0
    fi
    sleep 0.5
  done
  echo "cluster.sh: the node did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
  exit 1
  ;;
stop)
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
  ;;
*)
  echo "usage: cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
