#!/usr/bin/env bash
# Starts and stops a throwaway single-node Slurm cluster for tests (Debian's Slurm 22.05 packages:
# slurmctld, slurmd, slurm-client, munge). Everything lives under DIR; /etc/slurm and /etc/munge
# are never read or touched, so it works next to (or without) a system cluster.
#
#   scripts/slurm-test-server.sh start DIR   generate a munge key, start munged, slurmctld and slurmd
#                                            (all as root) on 127.0.0.1 with free ports, wait for the
#                                            node to be idle, run a smoke job, write DIR/conf (path
#                                            of DIR/slurm.conf). If it cannot start, write the reason
#                                            to DIR/skip, print "SKIPPED: <reason>", stop what did
#                                            start and exit 0.
#   scripts/slurm-test-server.sh stop DIR    cancel every job, stop the daemons of DIR (and leftover
#                                            slurmstepd of that cluster), remove DIR. Exits 0.
#   scripts/slurm-test-server.sh conf DIR    print DIR/conf; exit 1 when there is none.
#
# Clients use it through the environment: export SLURM_CONF=$(scripts/slurm-test-server.sh conf DIR)
# The node is `hostname -s` with CPUs=$(nproc), one partition "debug" (default), no GRES.
#
# Layout of DIR: slurm.conf, plugstack.conf (empty: keeps /etc/slurm/plugstack.conf* out),
# cgroup.conf (Slurm 24+: no cgroup plugin),
# munge/ (0755; key 0400, socket, pid, seed), state/ (StateSaveLocation), spool/ (SlurmdSpoolDir),
# run/ (pid files), log/ (munged.log, slurmctld.log, slurmd.log; slurmstepd logs to slurmd.log),
# smoke.out, conf/skip (written by this script), .slurm-test-server (marker).
# Environment overrides: SLURM_TEST_TIMEOUT (seconds to wait for the node to be idle and for the
# smoke job, each; default 60).
set -Eeuo pipefail
# The servers are Debian's, not ours: scripts/leak-check.sh preloads LeakSanitizer into the
# tests and the fathom processes they start, never into a server.
unset LD_PRELOAD

timeout=${SLURM_TEST_TIMEOUT:-60}
marker=.slurm-test-server   # marks DIR as ours, so stop never removes a directory it did not create
me=$(basename "$0")
tag=FATHOM_SLURM_TEST_DIR   # exported to the daemons (and so to slurmstepd) to recognise them

usage() { echo "usage: $me start|stop|conf DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$2
[ -n "$dir" ] || usage
dir=$(realpath -m -- "$dir")   # absolute: the daemons chdir elsewhere
case $dir in /) echo "$me: refusing to use /" >&2; exit 2 ;; esac
conf=$dir/slurm.conf
msock=$dir/munge/munge.socket

# The caller may itself run inside a Slurm job (or have SBATCH_* defaults): none of that may leak
# into the clients or daemons of this cluster. Clients find it through SLURM_CONF.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SRUN|SALLOC|SQUEUE|SINFO|SCONTROL|SCANCEL)_' || true)
export SLURM_CONF=$conf

# Command line of PID with spaces for NULs (empty when gone).
cmdline() { { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null || true; }

# PIDs of the processes whose name (comm) is NAME.
pids_named() { ps -e -o pid=,comm= 2>/dev/null | awk -v n="$1" '$2 == n { print $1 }'; }

# PIDs of the daemon NAME of this cluster: the one in PIDFILE and any other process called NAME
# whose command line mentions DIR/ (e.g. a daemon that died before writing its pid file).
daemon_pids() { # NAME PIDFILE
  local name=$1 pidfile=$2 pid p
  {
    pid=$(head -n1 "$pidfile" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] &&
       [[ $(cmdline "$pid") == *"$dir/"* ]]; then echo "$pid"; fi
    for p in $(pids_named "$name"); do
      [[ $(cmdline "$p") == *"$dir/"* ]] && echo "$p"
    done
  } | sort -u
}

# slurmstepd processes of this cluster. Their command line is just "slurmstepd: [job.step]", so
# recognise them by the tag in their environment (inherited from slurmd) or by an open file under
# DIR/ (they log to DIR/log/slurmd.log).
stepd_pids() {
  local p f
  for p in $(pids_named slurmstepd); do
    if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "$tag=$dir"; then echo "$p"; continue; fi
    for f in "/proc/$p"/fd/*; do
      if [[ $(readlink "$f" 2>/dev/null) == "$dir/"* ]]; then echo "$p"; break; fi
    done
  done
}

# PIDs given and all their descendants (job processes under a slurmstepd).
with_descendants() { # PID...
  [ $# -gt 0 ] || return 0
  ps -e -o pid=,ppid= 2>/dev/null | awk -v roots="$*" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2 }
    END { do { added = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; added = 1 } } while (added)
          for (p in keep) print p }'
}

# SIGTERM, wait up to ~10 s, then SIGKILL.
terminate() { # PID...
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local p alive
  for _ in $(seq 100); do
    alive=
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ -n "$alive" ] || return 0
    sleep 0.1
  done
  kill -KILL "$@" 2>/dev/null || true
}

ctld_alive() { [ -n "$(daemon_pids slurmctld "$dir/run/slurmctld.pid")" ]; }

# Cancels every job and stops all processes of this cluster. Never fails.
stop_cluster() {
  local ids pids
  if [ -f "$conf" ] && ctld_alive; then
    # Cancel while slurmd still runs, so the jobs end the normal way (their steps get signalled).
    ids=$(timeout 15 squeue -h -a -o %A 2>/dev/null | sort -u | tr '\n' ' ' || true)
    # shellcheck disable=SC2086
    [ -z "${ids// }" ] || timeout 15 scancel $ids >/dev/null 2>&1 || true
    for _ in $(seq 100); do [ -n "$(stepd_pids)" ] || break; sleep 0.1; done
  fi
  # shellcheck disable=SC2046
  terminate $(daemon_pids slurmd "$dir/run/slurmd.pid")
  # With slurmctld its child slurmscriptd, should that outlive it.
  # shellcheck disable=SC2046
  terminate $(with_descendants $(daemon_pids slurmctld "$dir/run/slurmctld.pid"))
  # Steps that outlived slurmd (and whatever they started): nothing is left to clean them up.
  pids=$(stepd_pids)
  # shellcheck disable=SC2046,SC2086
  [ -z "$pids" ] || kill -KILL $(with_descendants $pids) 2>/dev/null || true
  # shellcheck disable=SC2046
  terminate $(daemon_pids munged "$dir/munge/munged.pid")
  rm -f -- "$dir/run/"*.pid "$dir/munge/munged.pid" 2>/dev/null || true
}

# Removes DIR, but only if this script made it (marker) or it is empty.
remove_dir() {
  [ -d "$dir" ] || return 0
  if [ -e "$dir/$marker" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ]; then
    rm -rf -- "$dir"
  else
    echo "$me: not removing $dir: it was not created by $me" >&2
  fi
}

# Last lines of a log, on one line (for skip reasons).
log_tail() { # NAME (munged|slurmctld|slurmd)
  local f=$dir/log/$1.log
  [ -s "$f" ] || return 0
  printf ' (%s.log: %s)' "$1" "$(tail -n 4 "$f" | tr '\n' ' ' | sed 's/ *$//')"
}

# Gives up on starting: record why (tests read DIR/skip and skip), clean up, exit 0. The logs stay
# in DIR for a look by hand until stop.
skip() {
  trap - ERR
  set +e
  local reason=$1
  stop_cluster
  rm -f -- "$dir/conf"
  if [ -d "$dir" ] && [ -e "$dir/$marker" ]; then printf '%s\n' "$reason" >"$dir/skip"; chmod 644 "$dir/skip"; fi
  echo "SKIPPED: $reason"
  exit 0
}

# port_free PORT: nothing listens on it, on any address.
source "$(dirname "${BASH_SOURCE[0]}")/lib/port-free.sh"

# Prints two distinct free ports from a random start in 20000-59999; nothing if there are none
# (never fails: it runs in a command substitution, where a failure would fire the ERR trap).
free_ports() {
  local start i port found=()
  start=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
  for (( i = 0; i < 400 && ${#found[@]} < 2; i++ )); do
    port=$(( 20000 + (start - 20000 + i) % 40000 ))
    port_free "$port" && found+=("$port")
  done
  [ ${#found[@]} -ne 2 ] || echo "${found[@]}"
}

write_conf() { # HOST CTLD_PORT SLURMD_PORT CPUS MEM_MB
  local host=$1
  cat >"$conf" <<EOF
# Throwaway test cluster written by $me; removed by "$me stop $dir".
ClusterName=fathomtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$2
SlurmdPort=$3
SlurmUser=root
SlurmdUser=root
# Own munged (own key and socket), not the system one. cred_expire (default 120 s) is also how
# long a requeued job waits before it may start again: short, so requeue tests do not wait 2 min.
AuthType=auth/munge
AuthInfo=socket=$msock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
# No cgroups, no systemd, no accounting: works in containers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
# Several 1-cpu jobs side by side; memory is not a consumable resource.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
# A registering node is usable at once; ended jobs stay visible in scontrol for 10 minutes.
ReturnToService=2
MinJobAge=600
KillWait=5
MessageTimeout=10
SlurmdTimeout=60
InactiveLimit=0
Waittime=0
MaxArraySize=10001
MaxJobCount=100000
JobRequeue=1
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$4 RealMemory=$5 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  chmod 644 "$conf"
}

# Starts a daemon with our tag in its environment, detached from the caller's stdout/stderr (ctest
# would otherwise wait for them); what it prints before its log is open goes to DIR/log/NAME.out.
launch() { # NAME ARGS...
  local name=$1; shift
  (cd "$dir" && exec env "$tag=$dir" "$name" "$@" </dev/null >>"$dir/log/$name.out" 2>&1)
}

do_start() {
  # Any failure not handled below still ends in the skip path, never in a failed test run.
  trap 'skip "unexpected error (line $LINENO)"' ERR

  if [ -d "$dir" ] && [ ! -e "$dir/$marker" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    echo "SKIPPED: $dir exists, is not empty and was not created by $me"
    exit 0
  fi
  # Idempotent restart: stop a cluster left in DIR and drop what a previous start left there.
  if [ -e "$dir/$marker" ]; then
    stop_cluster
    find "$dir" -mindepth 1 -maxdepth 1 ! -name "$marker" -exec rm -rf -- {} +
  fi
  mkdir -p -- "$dir" 2>/dev/null || { echo "SKIPPED: cannot create $dir"; exit 0; }
  touch "$dir/$marker"
  chmod 755 "$dir"

  local b
  for b in munged munge unmunge slurmctld slurmd slurmstepd sbatch sinfo squeue scontrol scancel; do
    command -v "$b" >/dev/null 2>&1 || skip "Slurm/munge not installed: no $b (apt-get install slurmctld slurmd slurm-client munge)"
  done
  # munged's lock file is the socket path + ".lock"; unix socket paths are limited to 107 bytes.
  [ $(( ${#msock} + 5 )) -le 107 ] || skip "$dir is too long for a unix socket path"

  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
  # munged wants the socket directory searchable by all and writable by no one else; the key
  # itself is 0400.
  chmod 755 "$dir/munge"
  : >"$dir/plugstack.conf"
  # Slurm 24 (Debian 13) starts a cgroup plugin in slurmd whatever ProctrackType says and fails
  # where no cgroup filesystem is mounted (a chroot, some containers); cgroup.conf, read beside
  # slurm.conf, turns it off. 22.05 (Debian 12) needs none and knows no "disabled".
  local major
  major=$(slurmd -V 2>/dev/null | awk '{ split($2, v, "."); print v[1] + 0 }')
  if [ "${major:-0}" -ge 24 ]; then
    echo "CgroupPlugin=disabled" >"$dir/cgroup.conf"
    chmod 644 "$dir/cgroup.conf"
  fi

  # --- munged, with a fresh key of its own ---
  local key=$dir/munge/munge.key
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$key" >/dev/null 2>&1 || true
  fi
  [ -s "$key" ] || dd if=/dev/urandom of="$key" bs=1024 count=1 status=none 2>/dev/null || true
  [ -s "$key" ] || skip "cannot create a munge key in $dir/munge"
  chmod 400 "$key"
  local margs=(--socket="$msock" --key-file="$key" --pid-file="$dir/munge/munged.pid"
               --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed")
  # As root, or with a parent directory such as /tmp writable by others, munged may refuse without
  # --force: try plain first, then forced.
  if ! launch munged "${margs[@]}"; then
    launch munged --force "${margs[@]}" || skip "munged did not start$(log_tail munged)"
  fi
  local deadline=$(( SECONDS + 10 ))
  until munge -n -S "$msock" 2>/dev/null | unmunge -S "$msock" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || skip "munged does not answer on $msock$(log_tail munged)"
    sleep 0.1
  done

  # --- slurm.conf ---
  local host cpus mem
  host=$(hostname -s 2>/dev/null || uname -n)
  host=${host%%.*}
  [ -n "$host" ] || host=localhost
  cpus=$(nproc)
  # A little under MemTotal: slurmd drains a node that has less memory than configured.
  mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.95 }' /proc/meminfo)
  [ "${mem:-0}" -gt 0 ] || mem=1024

  # --- slurmctld + slurmd. If another process takes a port between the check and the bind, the
  # daemon dies with a bind error: then try again with other ports. ---
  local ports ctld_port slurmd_port started=
  for _ in 1 2 3; do
    ports=$(free_ports)
    [ -n "$ports" ] || skip "no free TCP ports found"
    read -r ctld_port slurmd_port <<<"$ports"
    write_conf "$host" "$ctld_port" "$slurmd_port" "$cpus" "$mem"
    rm -f "$dir/log/slurmctld.log" "$dir/log/slurmd.log"   # so the checks see this attempt only

    launch slurmctld -f "$conf" || skip "slurmctld did not start$(log_tail slurmctld)"
    deadline=$(( SECONDS + timeout ))
    until timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; do
      ctld_alive || break   # launch returns after it forked, so a missing process has exited
      [ $SECONDS -lt $deadline ] || skip "slurmctld not answering after ${timeout}s$(log_tail slurmctld)"
      sleep 0.2
    done
    if ! ctld_alive; then
      if grep -qi 'bind\|address already in use' "$dir/log/slurmctld.log" 2>/dev/null; then stop_cluster_keep_munge; continue; fi
      skip "slurmctld exited$(log_tail slurmctld)"
    fi

    launch slurmd -f "$conf" -N "$host" || skip "slurmd did not start$(log_tail slurmd)"
    sleep 0.5
    if [ -z "$(daemon_pids slurmd "$dir/run/slurmd.pid")" ]; then
      if grep -qi 'bind\|address already in use' "$dir/log/slurmd.log" 2>/dev/null; then stop_cluster_keep_munge; continue; fi
      skip "slurmd exited$(log_tail slurmd)"
    fi
    started=1
    break
  done
  [ -n "$started" ] || skip "slurmctld/slurmd could not bind their ports (3 attempts)$(log_tail slurmctld)"

  # --- wait for the node to be idle ---
  local state resumed=
  deadline=$(( SECONDS + timeout ))
  while :; do
    state=$(timeout 10 sinfo -h -n "$host" -o %T 2>/dev/null | head -n1 || true)
    case $state in
      idle|mixed|allocated) break ;;
      down*|drain*|fail*)
        # ReturnToService=2 should make this rare; resume once, then keep waiting.
        if [ -z "$resumed" ]; then
          timeout 10 scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
          resumed=1
        fi ;;
    esac
    [ -n "$(daemon_pids slurmd "$dir/run/slurmd.pid")" ] || skip "slurmd exited$(log_tail slurmd)"
    ctld_alive || skip "slurmctld exited$(log_tail slurmctld)"
    [ $SECONDS -lt $deadline ] ||
      skip "node $host not idle after ${timeout}s (state: ${state:-none})$(log_tail slurmd)$(log_tail slurmctld)"
    sleep 0.3
  done

  # --- smoke job: the whole path (submit, credential, slurmstepd, output file) works ---
  local out
  if ! out=$(timeout "$timeout" sbatch --wait -p debug -D "$dir" -o "$dir/smoke.out" -J smoke \
               --wrap 'echo ok' 2>&1); then
    skip "smoke job failed or timed out after ${timeout}s: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')$(log_tail slurmd)"
  fi
  [ "$(cat "$dir/smoke.out" 2>/dev/null)" = ok ] ||
    skip "smoke job output is not \"ok\": $(head -c 200 "$dir/smoke.out" 2>/dev/null | tr '\n' ' ')$(log_tail slurmd)"

  printf '%s\n' "$conf" >"$dir/conf"
  chmod 644 "$dir/conf" "$dir/log/"*.log 2>/dev/null || true   # for reading by hand as any user
  trap - ERR
  echo "slurm test cluster up: SLURM_CONF=$conf"
}

# Between port attempts: stop slurmd/slurmctld only, munged stays.
stop_cluster_keep_munge() {
  # shellcheck disable=SC2046
  terminate $(daemon_pids slurmd "$dir/run/slurmd.pid")
  # shellcheck disable=SC2046
  terminate $(with_descendants $(daemon_pids slurmctld "$dir/run/slurmctld.pid"))
  rm -f -- "$dir/run/"*.pid
  rm -rf -- "$dir/state" "$dir/spool"
  mkdir -p "$dir/state" "$dir/spool"
}

case $cmd in
  start) do_start ;;
  stop)
    # Never fails: a test run's cleanup should not turn into an error.
    set +e
    trap - ERR
    [ ! -d "$dir" ] || [ -e "$dir/$marker" ] || { echo "$me: $dir was not created by $me; leaving it alone" >&2; exit 0; }
    stop_cluster
    remove_dir
    exit 0 ;;
  conf)
    [ -s "$dir/conf" ] || exit 1
    cat "$dir/conf" ;;
  *) usage ;;
esac
