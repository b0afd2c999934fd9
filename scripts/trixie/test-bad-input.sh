#!/usr/bin/env bash
# Checks that scripts/trixie/root.sh stops with a message naming the cause, and leaves no root
# that a later run would trust (no stamp, no .partial directory, nothing mounted), when run
#   1. without root,  2. without network (a fresh network namespace),  3. on a full disk (a
#   small tmpfs as the cache; this case downloads ~100 MB before the disk fills),
#   4. interrupted (SIGTERM while debootstrap runs).
# Run as root: scripts/trixie/test-bad-input.sh   (prints PASS/FAIL per case; exit 1 on a FAIL)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ "$(id -u)" -eq 0 ] || { echo "run as root (the cases drop privileges themselves)" >&2; exit 2; }
scratch="$(mktemp -d /tmp/trixie-bad-input.XXXXXX)"
chmod 755 "$scratch"
failures=0
cleanup() {
  mountpoint -q "$scratch/full" && umount "$scratch/full"
  rm -rf --one-file-system "$scratch"
}
trap cleanup EXIT

# CASE NAME, EXIT STATUS, OUTPUT, EXPECTED WORDS, CACHE DIR
check() {
  local name="$1" status="$2" output="$3" words="$4" cache="$5" ok=1
  [ "$status" -ne 0 ] || { echo "  exit status 0"; ok=""; }
  grep -q -- "$words" <<< "$output" || { echo "  no '$words' in the output"; ok=""; }
  if [ -n "$(find "$cache" -maxdepth 2 -name .fathom-root-complete 2>/dev/null)" ]; then
    echo "  a stamped (trusted) root was left"; ok=""
  fi
  if [ -n "$(find "$cache" -maxdepth 1 -name '*.partial' 2>/dev/null)" ]; then
    echo "  a .partial root was left"; ok=""
  fi
  if awk -v d="$cache/" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/self/mounts
  then echo "  something is still mounted below $cache"; ok=""; fi
  if [ -n "$ok" ]; then
    echo "PASS $name"
    grep -E "error|removing" <<< "$output" | sed 's/^/    /'
  else
    echo "FAIL $name; its output:"; sed 's/^/    /' <<< "$output"; failures=$((failures + 1))
  fi
}

mkdir -p "$scratch/c1"
out="$(setpriv --reuid=65534 --regid=65534 --clear-groups \
  env FATHOM_TRIXIE_CACHE="$scratch/c1" "$here/root.sh" cpu 2>&1)"
check "not root" $? "$out" "must run as root" "$scratch/c1"

out="$(FATHOM_TRIXIE_CACHE="$scratch/c2" unshare -n "$here/root.sh" cpu 2>&1)"
check "no network" $? "$out" "no network" "$scratch/c2"

# A disk too small for the estimate: stops before downloading anything.
mkdir -p "$scratch/full"
mount -t tmpfs -o size=160m tmpfs "$scratch/full"
out="$(FATHOM_TRIXIE_CACHE="$scratch/full" "$here/root.sh" cpu 2>&1)"
check "full disk (before)" $? "$out" "disk full" "$scratch/full"
# A disk that fills while the root is made (the estimate overridden): the root is removed.
out="$(FATHOM_TRIXIE_CACHE="$scratch/full" FATHOM_TRIXIE_NEED_MB=1 "$here/root.sh" cpu 2>&1)"
check "full disk (during)" $? "$out" "disk full" "$scratch/full"
umount "$scratch/full"

# Interrupted: SIGTERM to its process group (as a terminal's Ctrl+C reaches debootstrap too)
# once debootstrap has started; the partial root must go.
FATHOM_TRIXIE_CACHE="$scratch/c4" setsid "$here/root.sh" cpu > "$scratch/c4.out" 2>&1 &
pid=$!
for _ in $(seq 120); do
  [ -d "$scratch/c4/trixie-cpu.partial/etc" ] && break
  sleep 0.5
done
kill -TERM -- "-$pid"
wait "$pid"
check "interrupted" $? "$(cat "$scratch/c4.out")" "removing the unfinished root" "$scratch/c4"

[ "$failures" -eq 0 ] && echo "all cases pass" || echo "$failures case(s) failed"
[ "$failures" -eq 0 ]
