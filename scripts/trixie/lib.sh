# Sourced by scripts/trixie/*.sh: a cached Debian 13 (trixie) root made with debootstrap, and
# running commands in it with the repository bind-mounted at its own path.
#
#   trixie_ensure KIND     make (or reuse) the root of KIND (cpu, cuda, gpu):
#                          $FATHOM_TRIXIE_CACHE/trixie-KIND with the packages of
#                          scripts/trixie/packages-KIND.txt; a root is trusted only when its
#                          stamp holds the hash of that list (else it is rebuilt)
#   trixie_enter KIND      bind-mount /proc, /sys, /dev, the repo (and ../shared) into it;
#                          everything is unmounted on exit (trap)
#   trixie_run CMD...      run CMD in the entered root (as root, in the repo)
#
# Environment: FATHOM_TRIXIE_CACHE (default /var/cache/fathom), FATHOM_TRIXIE_MIRROR (default:
# the Debian archive this machine's own apt sources use, read at run time -- no host is written
# here; http only, as apt in a minbase root speaks no https),
# FATHOM_TRIXIE_NEED_MB (the free space required before making a root).
# Never installs anything into the host system except the Debian 12 debootstrap package.

trixie_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
trixie_cache="$(realpath -m "${FATHOM_TRIXIE_CACHE:-/var/cache/fathom}")"  # /proc/PID/root is resolved
# The first Debian archive URI (not -security, not -updates) in this machine's apt sources:
# deb822 files (URIs:) first, then one-line sources.list entries (deb URI suite ...).
trixie_mirror_from_apt() {
  local uri
  uri="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' | grep -v -- '-security' | head -n1)"
  [ -n "$uri" ] || uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' |
    grep -v -- '-security' | head -n1)"
  echo "${uri%/}"
}
trixie_mirror="${FATHOM_TRIXIE_MIRROR:-$(trixie_mirror_from_apt)}"
trixie_components="main contrib non-free non-free-firmware"
trixie_root=""       # the entered root
trixie_partial=""    # a root being made: removed on any failure
trixie_lock_fd=""   # the last lock taken

trixie_die() {
  echo "trixie: error: $*" >&2
  exit 1
}

# --- checks ---------------------------------------------------------------------------------

trixie_require_root() {
  [ "$(id -u)" -eq 0 ] ||
    trixie_die "must run as root (debootstrap, chroot and bind mounts need it); try: sudo $0"
}

# An HTTP HEAD of the suite's Release file, with bash's /dev/tcp only (no curl on a fresh host).
trixie_network_ok() {
  local rest="${trixie_mirror#http://}" host path port
  host="${rest%%/*}"
  path="/${rest#*/}"
  [ "$path" = "/$rest" ] && path="/"
  port=80
  if [[ "$host" == *:* ]]; then port="${host##*:}"; host="${host%%:*}"; fi
  timeout 20 bash -c '
    exec 3<>"/dev/tcp/$1/$2" || exit 1
    printf "HEAD %s/dists/trixie/Release HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" "${3%/}" "$1" >&3
    head -n1 <&3 | grep -q " 200 "' _ "$host" "$port" "$path" 2>/dev/null
}

trixie_require_network() {
  [ -n "$trixie_mirror" ] ||
    trixie_die "no Debian archive in /etc/apt/sources.list{,.d}: set FATHOM_TRIXIE_MIRROR"
  [[ "$trixie_mirror" == http://* ]] ||
    trixie_die "FATHOM_TRIXIE_MIRROR must be an http:// URL (got $trixie_mirror)"
  trixie_network_ok ||
    trixie_die "no network: cannot reach $trixie_mirror (dists/trixie/Release); making the root" \
      "needs the Debian mirror (set FATHOM_TRIXIE_MIRROR for another one)"
}

trixie_free_mb() { df -Pm "$1" | awk 'NR == 2 { print $4 }'; }

trixie_require_disk() {  # DIR NEED_MB
  local free
  free="$(trixie_free_mb "$1")"
  [ "$free" -ge "$2" ] ||
    trixie_die "disk full: $free MB free on the filesystem of $1, this root needs about $2 MB" \
      "(set FATHOM_TRIXIE_CACHE to a directory on a larger disk)"
}

# --- mounts ---------------------------------------------------------------------------------

# Every mount point at or below DIR, deepest first.
trixie_mounts_below() {
  awk -v d="$1" '{ gsub(/\\040/, " ", $2); if ($2 == d || index($2, d "/") == 1) print $2 }' \
    /proc/self/mounts | sort -r
}

# Processes whose root is DIR were started by these scripts (servers the tests start, a build
# interrupted by a signal): stop them, so the mounts can go.
trixie_stop_processes_in() {
  local dir="$1" pid pids=() i
  for pid in /proc/[0-9]*; do
    [ "$(readlink "$pid/root" 2>/dev/null)" = "$dir" ] && pids+=("${pid#/proc/}")
  done
  [ ${#pids[@]} -eq 0 ] && return 0
  echo "trixie: stopping ${#pids[@]} process(es) left in $dir" >&2
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for i in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 "${pids[@]}" 2>/dev/null || return 0
    sleep 1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

trixie_unmount_all() {
  local dir="$1" m
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  trixie_stop_processes_in "$dir"
  for m in $(trixie_mounts_below "$dir"); do
    umount "$m" 2>/dev/null || umount -l "$m" || echo "trixie: could not unmount $m" >&2
  done
}

# Removes a root directory, refusing while anything is still mounted below it (a bind-mounted
# repository would be deleted with it); --one-file-system as a second guard.
trixie_remove_root() {
  local dir="$1"
  [ -e "$dir" ] || return 0
  trixie_unmount_all "$dir"
  [ -z "$(trixie_mounts_below "$dir")" ] || trixie_die "still mounted below $dir; not removing it"
  rm -rf --one-file-system "$dir"
}

trixie_bind() {  # SRC DST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  [ "${3:-}" != ro ] || mount -o remount,bind,ro "$2"
}

# /proc, /sys, /dev (with /dev/pts and /dev/shm), the host's name resolution.
trixie_mount_system() {
  local r="$1"
  mount -t proc proc "$r/proc"
  trixie_bind /sys "$r/sys" ro
  mkdir -p "$r/dev"
  mount --rbind /dev "$r/dev"
  mount --make-rslave "$r/dev"  # unmounting it must never reach the host's /dev/pts
  cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
}

trixie_on_exit() {
  local status=$?
  if [ -n "$trixie_root" ]; then trixie_unmount_all "$trixie_root"; fi
  if [ -n "$trixie_partial" ]; then
    trixie_unmount_all "$trixie_partial"
    local free
    free="$(trixie_free_mb "$trixie_cache" 2>/dev/null || echo 0)"
    if [ "$status" -ne 0 ] && [ "${free:-0}" -lt 200 ]; then
      echo "trixie: error: disk full while making the root ($free MB left on $trixie_cache)" >&2
    elif [ "$status" -ne 0 ] && ! trixie_network_ok; then
      echo "trixie: error: the network went away while making the root ($trixie_mirror)" >&2
    fi
    echo "trixie: removing the unfinished root $trixie_partial" >&2
    rm -rf --one-file-system "$trixie_partial"
  fi
  return "$status"
}
trap trixie_on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the root -------------------------------------------------------------------------------

trixie_packages() {  # LIST: the package names of scripts/trixie/LIST (comments dropped)
  sed -e 's/#.*//' "$trixie_repo/scripts/trixie/$1" | tr -s ' \t' '\n' | sed '/^$/d'
}

# What a complete root is made of: the stamp holds its hash.
trixie_recipe_hash() {  # LIST [PREPARE]
  { echo "suite trixie variant minbase mirror $trixie_mirror components $trixie_components"
    trixie_packages "$1" | sort -u
    [ -z "${2:-}" ] || cat "$trixie_repo/scripts/trixie/$2"; } | sha256sum | cut -d' ' -f1
}

# One user of a root at a time (a second run waits): LOCK_NAME is the root's name, or "debs"
# for the package cache that the roots share while they are made.
trixie_lock() {  # LOCK_NAME
  local fd
  mkdir -p "$trixie_cache"
  exec {fd}> "$trixie_cache/$1.lock"
  flock -n "$fd" || {
    echo "trixie: waiting for another run using $trixie_cache/$1" >&2
    flock "$fd"
  }
  trixie_lock_fd="$fd"
}

# trixie_ensure_root NAME LIST NEED_MB [PREPARE]: PREPARE, a script in scripts/trixie/, runs in
# the root (with network) after debootstrap, before the list is installed.
trixie_ensure_root() {
  local name="$1" list="$2" need_mb="$3" prepare="${4:-}" root hash
  trixie_require_root
  [ -f "$trixie_repo/scripts/trixie/$list" ] || trixie_die "no package list scripts/trixie/$list"
  trixie_lock "$name"
  root="$trixie_cache/$name"
  hash="$(trixie_recipe_hash "$list" "$prepare")"
  if [ -f "$root/.fathom-root-complete" ] && [ "$(cat "$root/.fathom-root-complete")" = "$hash" ]; then
    echo "trixie: using the cached root $root"
    return 0
  fi
  if [ -e "$root" ]; then
    echo "trixie: $root is incomplete or its package list changed: rebuilding it"
  fi
  trixie_require_network
  trixie_require_disk "$trixie_cache" "$need_mb"
  command -v debootstrap >/dev/null || {
    echo "trixie: installing debootstrap (Debian 12 package) into this system"
    apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
      trixie_die "could not install debootstrap (apt-get install debootstrap)"
  }
  trixie_lock debs
  trixie_remove_root "$root"
  trixie_partial="$root.partial"
  trixie_remove_root "$trixie_partial"
  local t0=$SECONDS
  mkdir -p "$trixie_cache/debs"  # downloaded packages, shared by the roots
  echo "trixie: debootstrap trixie into $trixie_partial"
  debootstrap --variant=minbase --cache-dir="$trixie_cache/debs" trixie "$trixie_partial" \
    "$trixie_mirror" > "$trixie_cache/$name.debootstrap.log" 2>&1 || {
    tail -n 20 "$trixie_cache/$name.debootstrap.log" >&2
    trixie_die "debootstrap failed (log: $trixie_cache/$name.debootstrap.log)"
  }
  echo "trixie: debootstrap took $((SECONDS - t0)) s"
  echo "deb $trixie_mirror trixie $trixie_components" > "$trixie_partial/etc/apt/sources.list"
  # Installed services (PostgreSQL, munge, Slurm) must not start inside the root.
  printf '#!/bin/sh\nexit 101\n' > "$trixie_partial/usr/sbin/policy-rc.d"
  chmod +x "$trixie_partial/usr/sbin/policy-rc.d"
  mkdir -p "$trixie_partial/etc/postgresql-common"
  echo "create_main_cluster = false" > "$trixie_partial/etc/postgresql-common/createcluster.conf"
  cp /etc/hosts "$trixie_partial/etc/hosts"
  trixie_mount_system "$trixie_partial"
  trixie_bind "$trixie_cache/debs" "$trixie_partial/var/cache/apt/archives"
  t0=$SECONDS
  local env=(/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
    UCF_FORCE_CONFFOLD=1 LANG=C.UTF-8)
  chroot "$trixie_partial" "${env[@]}" apt-get update -q > "$trixie_cache/$name.apt.log" 2>&1 || {
    tail -n 20 "$trixie_cache/$name.apt.log" >&2
    trixie_die "apt-get update in the root failed (log: $trixie_cache/$name.apt.log)"
  }
  if [ -n "$prepare" ]; then
    cp "$trixie_repo/scripts/trixie/$prepare" "$trixie_partial/tmp/$prepare"
    chroot "$trixie_partial" "${env[@]}" sh "/tmp/$prepare" ||
      trixie_die "scripts/trixie/$prepare failed in the root"
  fi
  local packages
  mapfile -t packages < <(trixie_packages "$list")
  echo "trixie: apt-get install ${#packages[@]} packages (${packages[*]})"
  chroot "$trixie_partial" "${env[@]}" apt-get install -y -q --no-install-recommends \
    "${packages[@]}" >> "$trixie_cache/$name.apt.log" 2>&1 || {
    tail -n 20 "$trixie_cache/$name.apt.log" >&2
    trixie_die "apt-get in the root failed (log: $trixie_cache/$name.apt.log)"
  }
  echo "trixie: package install took $((SECONDS - t0)) s"
  trixie_unmount_all "$trixie_partial"
  exec {trixie_lock_fd}>&-  # the package cache is free again (the root's own lock stays)
  echo "$hash" > "$trixie_partial/.fathom-root-complete"  # the last step: now it is trusted
  mv "$trixie_partial" "$root"
  trixie_partial=""
  echo "trixie: root $root ready ($(du -sm "$root" | cut -f1) MB)"
}

# About what each root needs on disk (MB), checked before making it; FATHOM_TRIXIE_NEED_MB
# overrides the estimate (scripts/trixie/test-bad-input.sh fills a small disk with it).
trixie_need_mb() {
  [ -z "${FATHOM_TRIXIE_NEED_MB:-}" ] || { echo "$FATHOM_TRIXIE_NEED_MB"; return; }
  case "$1" in
    cpu) echo 6000 ;;
    cuda | gpu) echo 20000 ;;
    *) trixie_die "unknown root kind '$1' (cpu, cuda, gpu)" ;;
  esac
}

# The CUDA LibTorch's cuDNN comes from a host this machine cannot reach: cudnn-stub.sh.
trixie_prepare_script() {
  case "$1" in cuda | gpu) echo cudnn-stub.sh ;; *) echo "" ;; esac
}

trixie_ensure() {
  trixie_ensure_root "trixie-$1" "packages-$1.txt" "$(trixie_need_mb "$1")" \
    "$(trixie_prepare_script "$1")"
}

# trixie_enter KIND: mounts for using the root; the repo and ../shared at their own paths, so
# build directories hold the same paths inside and outside.
trixie_enter() {
  trixie_root="$trixie_cache/trixie-$1"
  [ -f "$trixie_root/.fathom-root-complete" ] || trixie_die "$trixie_root is not a complete root"
  [ -z "$(trixie_mounts_below "$trixie_root")" ] ||
    trixie_die "something is still mounted below $trixie_root (another run?)"
  # The root onto itself: inside, / is then a mount point, which `ip netns exec` needs (it
  # makes / a slave mount in its namespace; the network-partition test uses it).
  mount --bind "$trixie_root" "$trixie_root"
  trixie_mount_system "$trixie_root"
  trixie_bind "$trixie_repo" "$trixie_root$trixie_repo"
  if [ -d "$trixie_repo/../shared" ]; then
    local shared
    shared="$(cd "$trixie_repo/../shared" && pwd)"
    trixie_bind "$shared" "$trixie_root$shared" ro
  fi
}

trixie_run() {
  chroot "$trixie_root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c 'cd "$0" && exec "$@"' "$trixie_repo" "$@"
}
