#!/usr/bin/env bash
# bare-debian.sh: the README's two quick-start commands on a bare Debian 12,
# as a newcomer would run them.  A fresh debootstrap "minbase" chroot of
# bookworm (nothing of the project installed) gets a fresh clone of the
# committed tree; inside it, as root, `scripts/setup.sh` and then
# `scripts/test.sh` run, and each command's exit status and time are printed.
#
# The machines a developer (or CI) uses have packages a newcomer lacks, so a
# green CI cannot prove the set-up: run this after any change to the
# dependencies (scripts/deps.sh), to setup.sh or test.sh, or to what a test
# needs.  It takes 10-20 minutes (packages are downloaded; the base system is
# cached as a tarball after the first run).
#
# Usage: sudo scripts/bare-debian.sh [--rev REV] [--keep] [--dir DIR]
#                                    [--mirror URL] [--fresh-base]
#   --rev REV      the commit to clone (default HEAD)
#   --keep         leave the chroot in place (its path is printed)
#   --dir DIR      where to build the chroot (default: a new directory in /var/tmp)
#   --mirror URL   Debian mirror (default http://deb.debian.org/debian)
#   --fresh-base   ignore the cached base tarball
# Exit status: 0 when both commands exit 0, 1 when either fails, 2 for a
# failure of the set-up itself (no root, no debootstrap, no mirror).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=HEAD keep=0 dir="" mirror=http://deb.debian.org/debian fresh=0
while [ $# -gt 0 ]; do
  case $1 in
    --rev) rev=$2; shift ;;
    --keep) keep=1 ;;
    --dir) dir=$2; shift ;;
    --mirror) mirror=$2; shift ;;
    --fresh-base) fresh=1 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bare-debian: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "bare-debian: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap and chroot)"
if ! command -v debootstrap >/dev/null; then
  apt-get install -y -qq debootstrap >/dev/null || die "cannot install debootstrap"
fi
commit=$(git -C "$root" rev-parse --verify "$rev^{commit}") || die "no commit '$rev'"
[ -n "$dir" ] || dir=$(mktemp -d /var/tmp/streamtp-bare.XXXXXX)
mkdir -p "$dir"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/streamtp/bookworm-minbase.tgz

mounted=()
cleanup() {
  local m
  for ((m = ${#mounted[@]} - 1; m >= 0; m--)); do
    umount -R "${mounted[m]}" 2>/dev/null || umount -lR "${mounted[m]}" 2>/dev/null
  done
  if [ "$keep" -eq 1 ]; then
    echo "bare-debian: the chroot stays in $dir"
  else
    rm -rf --one-file-system "$dir"
  fi
}
trap cleanup EXIT

# 1. The base system: debootstrap once, then from the cached tarball.
t0=$SECONDS
if [ "$fresh" -eq 0 ] && [ -s "$cache" ]; then
  debootstrap --variant=minbase --unpack-tarball="$cache" bookworm "$dir" "$mirror" \
    > "$dir.debootstrap.log" 2>&1 || die "debootstrap failed (see $dir.debootstrap.log)"
else
  mkdir -p "$(dirname "$cache")"
  debootstrap --variant=minbase --make-tarball="$cache" bookworm "$dir.tarball-work" "$mirror" \
    > "$dir.debootstrap.log" 2>&1 || die "debootstrap --make-tarball failed (see $dir.debootstrap.log)"
  rm -rf --one-file-system "$dir.tarball-work"
  debootstrap --variant=minbase --unpack-tarball="$cache" bookworm "$dir" "$mirror" \
    >> "$dir.debootstrap.log" 2>&1 || die "debootstrap failed (see $dir.debootstrap.log)"
fi
rm -f "$dir.debootstrap.log"
# The sources of an installed Debian 12: the release, its updates, security.
cat > "$dir/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
echo "bare-debian: Debian 12 minbase in $dir ($((SECONDS - t0)) s)"

# 2. A fresh clone of the committed tree, as a newcomer gets it.
git clone -q --no-local "$root" "$dir/root/streamtp" || die "git clone failed"
git -C "$dir/root/streamtp" checkout -q "$commit" || die "checkout $commit failed"
echo "bare-debian: clone of $(git -C "$root" log -1 --format='%h %s' "$commit" | cut -c1-70)"

for m in proc sys dev; do
  mount --rbind "/$m" "$dir/$m" && mount --make-rslave "$dir/$m" || die "cannot mount /$m"
  mounted+=("$dir/$m")
done

# 3. The README's two commands, each timed, in a root login shell's
# environment (no variable of this machine leaks in).
status=0 results=()
for cmd in scripts/setup.sh scripts/test.sh; do
  log=$dir/root/$(basename "$cmd" .sh).log
  t=$SECONDS
  chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/streamtp && $cmd" > "$log" 2>&1
  rc=$?
  results+=("$cmd: exit $rc, $((SECONDS - t)) s")
  [ "$rc" -eq 0 ] || status=1
  echo "---- $cmd: last lines of its output"
  tail -n 8 "$log"
  [ "$keep" -eq 1 ] && echo "(whole output: $log)"
done
echo "==== bare Debian 12 ($(cat "$dir/etc/debian_version")), commit ${commit:0:7}"
printf '%s\n' "${results[@]}"
exit "$status"
