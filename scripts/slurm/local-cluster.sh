#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying and testing
# scripts/slurm/fairsight-array.sbatch (scripts/slurm/test.sh). GPL-3.0-or-later.
#
#   scripts/slurm/local-cluster.sh start    # write the config, start munged, slurmctld, slurmd; wait until the node is idle
#   scripts/slurm/local-cluster.sh status   # exit 0 if the cluster answers and its node is up
#   scripts/slurm/local-cluster.sh stop     # stop the daemons this script started
#
# Needs root and Debian's `slurm-wlm` and `munge` (scripts/install.sh installs them). No
# systemd or cgroups: the daemons are started by hand, processes tracked with
# proctrack/linuxproc, task/none, select/cons_tres over the machine's CPUs. The config is
# /etc/slurm/slurm.conf (the path every Slurm command reads by default, so plain `sbatch`
# and `sinfo` work); it is written only if it is absent or was written by this script (its
# first line says so): a cluster's own config is never overwritten. Logs in
# /var/log/slurm/, state in /var/lib/slurm/. `start` is idempotent (what runs is left
# running) and `stop` stops only the daemons `start` started, by the process ids in their
# pid files.
set -euo pipefail

conf=/etc/slurm/slurm.conf
marker="# Written by fairsight's scripts/slurm/local-cluster.sh: a single-node cluster on localhost."
# The daemons this script started, one name a line (for `stop`).
started=/run/fairsight-slurm.started

die() { echo "local-cluster: $*" >&2; exit 1; }

need_tools() {
  [ "$(id -u)" = 0 ] || die "must run as root (it starts munged, slurmctld and slurmd)"
  PATH=$PATH:/usr/sbin
  local t
  for t in munged munge mungekey slurmctld slurmd scontrol sinfo; do
    command -v "$t" >/dev/null \
      || die "$t not found: install Debian's slurm-wlm and munge (scripts/install.sh does)"
  done
}

write_conf() {
  if [ -f "$conf" ] && [ "$(head -n1 "$conf")" != "$marker" ]; then
    die "$conf exists and was not written by this script; not touching it"
  fi
  local host cpus new
  host=$(hostname -s)
  cpus=$(nproc)
  new=$(cat <<EOF
$marker
# Regenerated at every start (the host name and CPU count are read then).
ClusterName=fairsight
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
KillWait=5
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
)
  if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$new" ]; then
    mkdir -p "$(dirname "$conf")"
    printf '%s\n' "$new" >"$conf.tmp.$$"
    mv "$conf.tmp.$$" "$conf"
  fi
}

# The process named in a pid file, if it is alive and is that program.
pid_of() {
  local file=$1 name=$2 pid
  [ -f "$file" ] || return 1
  pid=$(cat "$file" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || return 1
  echo "$pid"
}

node_state() {
  sinfo -h -N -n "$(hostname -s)" -o %T 2>/dev/null | head -n1
}

start() {
  need_tools
  write_conf
  mkdir -p /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
  touch "$started"

  # munge: the key (the package makes one; a machine without it gets one), then munged as
  # the munge user, as its packaging does.
  if ! munge -n </dev/null >/dev/null 2>&1; then
    if [ ! -s /etc/munge/munge.key ]; then
      mkdir -p /etc/munge
      mungekey --create --keyfile=/etc/munge/munge.key
    fi
    chown -R munge:munge /etc/munge
    chmod 700 /etc/munge
    chmod 400 /etc/munge/munge.key
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge
    runuser -u munge -- munged
    echo munged >>"$started"
    for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
    munge -n </dev/null >/dev/null 2>&1 || die "munged did not start (see /var/log/munge/munged.log)"
  fi

  if ! pid_of /run/slurmctld.pid slurmctld >/dev/null; then
    slurmctld
    echo slurmctld >>"$started"
  fi
  if ! pid_of /run/slurmd.pid slurmd >/dev/null; then
    slurmd
    echo slurmd >>"$started"
  fi

  # Wait for the controller, then for the node to register and be idle (or busy).
  local state=""
  for _ in $(seq 300); do
    state=$(node_state || true)
    case $state in
      idle | mixed | allocated | completing) break ;;
      down* | drain* | fail*)
        # A node left down by an earlier run (e.g. the machine restarted): bring it back.
        scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.1
  done
  case $state in
    idle | mixed | allocated | completing) ;;
    *) die "the node is '${state:-not answering}' after 30 s (see /var/log/slurm/slurmctld.log and slurmd.log)" ;;
  esac
  echo "local-cluster: up: node $(hostname -s), $(nproc) CPUs, partition local ($state)"
}

status() {
  need_tools
  scontrol ping 2>/dev/null | grep -q 'UP' || { echo "local-cluster: slurmctld not answering"; return 1; }
  local state
  state=$(node_state || true)
  echo "local-cluster: node $(hostname -s) ${state:-unknown}"
  case $state in idle | mixed | allocated | completing) ;; *) return 1 ;; esac
}

# Send SIGTERM to the process in a pid file and wait (up to 10 s) for it to end.
stop_one() {
  local file=$1 name=$2 pid _
  pid=$(pid_of "$file" "$name") || return 0
  kill "$pid"
  for _ in $(seq 100); do [ -d "/proc/$pid" ] || return 0; sleep 0.1; done
  die "$name ($pid) still running 10 s after SIGTERM"
}

stop() {
  need_tools
  [ -f "$started" ] || { echo "local-cluster: nothing started by this script"; return 0; }
  # Slurm's daemons first (munged authenticates their last messages).
  if grep -qx slurmd "$started"; then stop_one /run/slurmd.pid slurmd; fi
  if grep -qx slurmctld "$started"; then stop_one /run/slurmctld.pid slurmctld; fi
  if grep -qx munged "$started"; then stop_one /run/munge/munged.pid munged; fi
  rm -f "$started"
  echo "local-cluster: stopped"
}

case ${1:-} in
  start) start ;;
  status) status ;;
  stop) stop ;;
  *) echo "usage: $0 start|status|stop" >&2; exit 2 ;;
esac
