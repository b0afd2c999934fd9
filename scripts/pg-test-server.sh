#!/usr/bin/env bash
# Starts and stops a throwaway PostgreSQL server for tests (Debian's postgresql-15 package on
# Debian 12; whichever major version is installed elsewhere, e.g. 17 in the Debian 13 root of
# scripts/trixie/).
#
#   scripts/pg-test-server.sh start DIR   initdb under DIR/data, start on 127.0.0.1:<free port>,
#                                         write DIR/url (postgresql://fathom:PW@127.0.0.1:PORT/postgres)
#                                         and DIR/port. If it cannot start, write the reason to
#                                         DIR/skip, print "SKIPPED: <reason>" and exit 0.
#   scripts/pg-test-server.sh stop DIR    stop that server (if running) and remove DIR. Exits 0.
#   scripts/pg-test-server.sh url DIR     print DIR/url; exit 1 when there is none.
#   scripts/pg-test-server.sh restart DIR stop that server (fast: sessions are cut) and start it
#                                         again on the same port and data; exit 1 if it fails.
#
# Layout: DIR (owned by the server user, 0755: the server writes its socket and log there) holds
# data/ (0700, required by postgres), server.log, the socket, url/port/skip (written by the caller).
# Environment overrides: PG_BINDIR (default /usr/lib/postgresql/15/bin, else the newest
# /usr/lib/postgresql/N/bin), PG_TEST_USER (server user when run as root; default postgres),
# PG_TEST_TIMEOUT (seconds to wait for the server; default 60).
# A test that reaches the server from a network namespace of its own (a veth pair it made, never
# an interface outside this machine) names that link: PG_TEST_PEER_ADDRESS (the server's end,
# e.g. 10.213.7.1, listened on besides 127.0.0.1) and PG_TEST_PEER_NETWORK (the link's clients,
# e.g. 10.213.7.0/30, allowed to log in with the password).
set -Eeuo pipefail
# The servers are Debian's, not ours: scripts/leak-check.sh preloads LeakSanitizer into the
# tests and the fathom processes they start, never into a server.
unset LD_PRELOAD

newest_bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n1)
  echo "${d:-/usr/lib/postgresql/15/bin}"
}
bindir=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
[ -n "${PG_BINDIR:-}" ] || [ -x "$bindir/postgres" ] || bindir=$(newest_bindir)
# A server starts in about a second; a start that times out makes the tests on it skip, so the
# limit leaves room for a machine whose cores are all busy (a full ctest run beside benchmarks).
timeout=${PG_TEST_TIMEOUT:-60}
marker=.pg-test-server   # marks DIR as ours, so stop never removes a directory it did not create
me=$(basename "$0")

usage() { echo "usage: $me start|stop|restart|url DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$2
[ -n "$dir" ] || usage
dir=$(realpath -m -- "$dir")   # absolute: postgres resolves paths relative to its own cwd
case $dir in /) echo "$me: refusing to use /" >&2; exit 2 ;; esac
data=$dir/data

# Runs a command as the user that owns the data directory / will run the server. PostgreSQL
# refuses to run as root, so root hands over to an unprivileged user; anyone else runs as self.
# cd to DIR first: the user may not be able to read the caller's cwd (e.g. /root).
as_user() { # USER CMD...
  local u=$1; shift
  if [ "$(id -u)" -eq 0 ] && [ "$u" != root ]; then
    (cd "$dir" 2>/dev/null || cd /; exec runuser -u "$u" -- "$@")
  else
    (cd "$dir" 2>/dev/null || cd /; exec "$@")
  fi
}

# Stops the server of DIR/data if one is running (immediate: nothing in it is worth a checkpoint).
stop_server() {
  local pidfile=$data/postmaster.pid owner pid cmdline
  [ -f "$pidfile" ] || return 0
  owner=$(stat -c %U "$data" 2>/dev/null || echo root)
  if [ -x "$bindir/pg_ctl" ]; then
    as_user "$owner" "$bindir/pg_ctl" stop -D "$data" -m immediate -w -t 30 >/dev/null 2>&1 || true
  fi
  # Fallback (pg_ctl missing or failed): signal the postmaster named in the pid file, if it is
  # still a postgres process; SIGQUIT is an immediate shutdown, SIGKILL if that does not do it.
  pid=$(head -n1 "$pidfile" 2>/dev/null || true)
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
  if [[ $pid =~ ^[0-9]+$ ]] && [[ $cmdline == *"$data"* ]]; then
    kill -QUIT "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
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

# Gives up on starting: record why (tests read DIR/skip and skip), clean up, exit 0.
skip() {
  trap - ERR
  set +e
  local reason=$1
  stop_server
  [ -z "${own_data:-}" ] || rm -rf -- "$data"   # never a data directory this run did not create
  rm -f -- "$dir/url" "$dir/port" "$dir/.pwfile"
  if [ -d "$dir" ]; then printf '%s\n' "$reason" >"$dir/skip"; chmod 644 "$dir/skip"; fi
  echo "SKIPPED: $reason"
  exit 0
}

# Last lines of the server log, on one line (for skip reasons). The log never holds the password.
log_tail() {
  [ -s "$dir/server.log" ] || return 0
  printf ' (server.log: %s)' "$(tail -n 3 "$dir/server.log" | tr '\n' ' ' | sed 's/ *$//')"
}

# port_free PORT: nothing listens on it, on any address.
source "$(dirname "${BASH_SOURCE[0]}")/lib/port-free.sh"

do_start() {
  # Any failure not handled below still ends in the skip path, never in a failed test run.
  trap 'skip "unexpected error (line $LINENO)"' ERR

  # Idempotent restart: stop a server left in DIR and drop what a previous start left there.
  stop_server
  if [ -e "$dir/$marker" ]; then rm -rf -- "$data"; fi
  rm -f -- "$dir/url" "$dir/skip" "$dir/port" "$dir/server.log"

  mkdir -p -- "$dir" 2>/dev/null || { echo "SKIPPED: cannot create $dir"; exit 0; }
  touch "$dir/$marker"
  chmod 755 "$dir"

  local b
  for b in initdb pg_ctl pg_isready postgres; do
    [ -x "$bindir/$b" ] || skip "PostgreSQL not installed: no $bindir/$b (scripts/install-deps.sh --test)"
  done
  [ ! -e "$data" ] || skip "$data exists and was not created by $me"

  local user
  user=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then
    user=${PG_TEST_USER:-postgres}
    if ! getent passwd "$user" >/dev/null; then
      # No postgres user (package not installed the usual way): a dedicated system user.
      useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user" \
        >/dev/null 2>&1 || skip "cannot create system user $user"
    fi
    chown "$user:" "$dir" "$dir/$marker" || skip "cannot chown $dir to $user"
    as_user "$user" test -w "$dir" -a -x "$dir" ||
      skip "user $user cannot write $dir (a parent directory is not accessible to it)"
  fi

  # Unix socket paths are limited to 107 bytes (sun_path).
  [ $(( ${#dir} + 17 )) -le 107 ] || skip "$dir is too long for a unix socket path"

  # Random alphanumeric password; read a fixed amount so no pipe stage dies of SIGPIPE.
  local pw
  pw=$(head -c 1024 /dev/urandom | tr -dc 'A-Za-z0-9')
  pw=${pw:0:16}
  [ ${#pw} -eq 16 ] || skip "could not generate a password"

  own_data=1
  # initdb reads the superuser's password from a file the server user can read; removed right after.
  (umask 077; printf '%s\n' "$pw" >"$dir/.pwfile")
  [ "$user" = "$(id -un)" ] || chown "$user:" "$dir/.pwfile"
  local out
  if ! out=$(as_user "$user" "$bindir/initdb" -D "$data" -U fathom --pwfile="$dir/.pwfile" \
               --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C \
               --no-sync --no-instructions 2>&1); then
    rm -f "$dir/.pwfile"
    skip "initdb failed: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
  fi
  rm -f "$dir/.pwfile"

  # Only TCP from 127.0.0.1 with a password (tests check that a wrong one is refused); the socket
  # in DIR (trust) is for debugging by hand: psql -h DIR -p PORT -U fathom postgres.
  cat >"$data/pg_hba.conf" <<'EOF'
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  scram-sha-256
EOF
  local listen=127.0.0.1
  if [ -n "${PG_TEST_PEER_ADDRESS:-}" ]; then
    [[ $PG_TEST_PEER_ADDRESS =~ ^[0-9.]+$ && ${PG_TEST_PEER_NETWORK:-} =~ ^[0-9./]+$ ]] ||
      skip "PG_TEST_PEER_ADDRESS / PG_TEST_PEER_NETWORK must be an IPv4 address and network"
    listen="127.0.0.1,$PG_TEST_PEER_ADDRESS"
    printf 'host    all       all   %s  scram-sha-256\n' "$PG_TEST_PEER_NETWORK" >>"$data/pg_hba.conf"
  fi
  # Throwaway server: durability off for speed. The port is given to pg_ctl per attempt.
  cat >>"$data/postgresql.conf" <<EOF

# --- $me ---
listen_addresses = '$listen'
unix_socket_directories = '${dir//\'/\'\'}'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
# A standby that never connects: a session that turns synchronous_commit on waits in COMMIT
# after committing locally, which is how the store's lost-COMMIT test holds a COMMIT in
# flight. Sessions with the default (off) above never wait.
synchronous_standby_names = 'fathom_test_no_standby'
EOF
  [ "$user" = "$(id -un)" ] || chown "$user:" "$data/pg_hba.conf" "$data/postgresql.conf"

  # Pick a free port from a random start in 20000-59999; if another process takes it between the
  # check and the bind, the start fails quickly and the next free port is tried.
  local port start i attempts=0 started=
  start=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
  for (( i = 0; i < 400 && attempts < 5; i++ )); do
    port=$(( 20000 + (start - 20000 + i) % 40000 ))
    port_free "$port" || continue
    attempts=$((attempts + 1))
    rm -f -- "$dir/server.log"   # so the checks below see this attempt's log only
    if as_user "$user" "$bindir/pg_ctl" start -D "$data" -l "$dir/server.log" -o "-p $port" \
         -w -t "$timeout" >/dev/null 2>&1; then
      started=1
      break
    fi
    stop_server   # a timed-out start may still be coming up
    grep -q "could not bind\|could not create any TCP/IP sockets" "$dir/server.log" 2>/dev/null ||
      skip "pg_ctl start failed$(log_tail)"
  done
  [ -n "$started" ] || skip "no free TCP port found (tried $attempts starts)$(log_tail)"

  # pg_ctl -w waits for the postmaster; also confirm it answers on the TCP address tests use.
  local deadline=$(( SECONDS + timeout ))
  until "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U fathom -d postgres; do
    [ $SECONDS -lt $deadline ] || skip "server not ready on 127.0.0.1:$port after ${timeout}s$(log_tail)"
    sleep 0.2
  done

  # url holds the password: readable by the caller (tests run as root), not by the server user.
  printf '%s\n' "$port" >"$dir/port"
  (umask 077; printf 'postgresql://fathom:%s@127.0.0.1:%s/postgres\n' "$pw" "$port" >"$dir/url")
  chmod 644 "$dir/port"
  chmod 644 "$dir/server.log" 2>/dev/null || true   # for reading by hand as any user
  trap - ERR
  echo "PostgreSQL $("$bindir/postgres" --version | awk '{print $NF}') test server listening on 127.0.0.1:$port (data $data, log $dir/server.log, url in $dir/url)"
}

do_restart() {
  [ -f "$data/postmaster.pid" ] || { echo "$me: no server running in $dir" >&2; exit 1; }
  local owner port
  owner=$(stat -c %U "$data")
  port=$(cat "$dir/port")
  as_user "$owner" "$bindir/pg_ctl" restart -D "$data" -m fast -l "$dir/server.log" \
    -o "-p $port" -w -t "$timeout" >/dev/null 2>&1 ||
    { echo "$me: restart failed$(log_tail)" >&2; exit 1; }
  echo "PostgreSQL 15 test server restarted on 127.0.0.1:$port"
}

case $cmd in
  start) do_start ;;
  restart) do_restart ;;
  stop)
    # Never fails: a test run's cleanup should not turn into an error.
    set +e
    stop_server
    remove_dir
    exit 0 ;;
  url)
    [ -s "$dir/url" ] || exit 1
    cat "$dir/url" ;;
  *) usage ;;
esac
