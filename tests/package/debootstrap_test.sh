#!/usr/bin/env bash
# The package in a fresh Debian 12: debootstraps bookworm into a temporary root, installs Debian's nagios4
# and the .deb there, verifies /etc/nagios4/nagios.cfg unchanged, runs the daemon as `naemon` on a Naemon
# layout and then in place of Nagios 4 on nagios4's own configuration, and purges the package, which must
# leave no file behind. Needs root and the Debian mirror (`make package-test`).
#   tests/package/debootstrap_test.sh [path/to/vedette_*.deb]    (default: builds it first)
# KEEP_ROOT=1 leaves the root in /tmp for a look after a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

deb=${1:-}
if [ -z "$deb" ]; then
  scripts/build-package.sh build/package >/dev/null
  deb=$(ls build/package/vedette_*.deb)
fi
deb=$(realpath "$deb")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/vedette-package-test.XXXXXX)
chmod 755 "$root"  # the root directory of the users in it
cleanup() {
  for m in proc dev/pts dev; do umount -l "$root/$m" 2>/dev/null || true; done
  if [ -n "${KEEP_ROOT:-}" ]; then echo "root kept: $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

step "debootstrap bookworm ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log"; fail "debootstrap"; }
rm -f "$root.debootstrap.log"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
# Nothing a package installs is started in the root (as in a container).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

step "Debian's nagios4 and the plugins (msmtp-mta: the mail transport its bsd-mailx asks for, which configures in a chroot)"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  msmtp-mta nagios4-core monitoring-plugins-basic procps >"$root/tmp/apt.log" 2>&1 || { tail -30 "$root/tmp/apt.log"; fail "apt-get install nagios4-core"; }

# (Owners are looked up inside the root: its users' ids are not the host's.)
# Every path in the root but the ones apt, dpkg and the test itself change.
snapshot() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp -o -path ./var/cache/apt \
     -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/log -o -path ./run \) -prune -o -print) |
    sort
}
snapshot >"$root/tmp/before.txt"

step "install $(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "/tmp/$(basename "$deb")" >/dev/null
for f in /usr/bin/vedette /usr/bin/vedettestats /usr/bin/vedette-worker /lib/systemd/system/vedette.service \
         /etc/logrotate.d/vedette /usr/share/man/man8/vedette.8.gz /usr/lib/tmpfiles.d/vedette.conf; do
  [ -e "$root$f" ] || fail "$f is not installed"
done
in_root getent passwd naemon >/dev/null || fail "no naemon user"
for d in /var/lib/naemon /var/log/naemon /var/log/naemon/archives /var/cache/naemon; do
  [ "$(in_root stat -c %U "$d")" = naemon ] || fail "$d is owned by $(in_root stat -c %U:%G "$d"), not naemon"
done
grep -q '^ExecStart=/usr/bin/vedette --daemon /etc/naemon/naemon.cfg$' "$root/lib/systemd/system/vedette.service" ||
  fail "the unit does not name /usr/bin/vedette"
# `man vedette`: the installed pages render without a warning (the host's groff; minbase has no man-db).
for page in vedette vedettestats vedette-worker; do
  warnings=$(zcat "$root/usr/share/man/man8/$page.8.gz" | groff -man -ww -Tutf8 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "$page(8): $warnings"
done

step "vedette -v on Debian's /etc/nagios4/nagios.cfg, unchanged"
cmp -s "$root/etc/nagios4/nagios.cfg" <(dpkg-deb --fsys-tarfile "$(ls "$root"/var/cache/apt/archives/nagios4-common_*.deb)" |
  tar -xO ./etc/nagios4/nagios.cfg) || fail "nagios.cfg differs from the one nagios4-common ships"
in_root vedette -v /etc/nagios4/nagios.cfg >"$root/tmp/verify.txt" || { cat "$root/tmp/verify.txt"; fail "vedette -v"; }
grep -q "Things look okay" "$root/tmp/verify.txt" || fail "no 'Things look okay'"
tail -3 "$root/tmp/verify.txt"

# Waits for a line in a log inside the root.
wait_for() {
  local file=$1 pattern=$2
  for _ in $(seq 200); do grep -q "$pattern" "$root$file" 2>/dev/null && return 0; sleep 0.1; done
  echo "--- $file"; cat "$root$file" 2>/dev/null; fail "'$pattern' not in $file"
}
# Stops the daemon whose PID is in a lock file and waits for it to go.
stop_daemon() {
  local pid=$1
  kill -TERM "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  fail "the daemon did not stop"
}

step "the daemon as naemon, on a Naemon layout"
mkdir -p "$root/etc/naemon/conf.d"
cat >"$root/etc/naemon/naemon.cfg" <<'CFG'
cfg_dir=/etc/naemon/conf.d
log_file=/var/log/naemon/naemon.log
lock_file=/run/naemon/naemon.pid
command_file=/var/lib/naemon/naemon.cmd
status_file=/var/lib/naemon/status.dat
state_retention_file=/var/lib/naemon/retention.dat
object_cache_file=/var/lib/naemon/objects.cache
broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o /var/lib/naemon/live
retain_state_information=1
interval_length=1
CFG
cat >"$root/etc/naemon/conf.d/localhost.cfg" <<'CFG'
define command {
  command_name check_dummy
  command_line /usr/lib/nagios/plugins/check_dummy $ARG1$ "$ARG2$"
}
define host {
  host_name localhost
  address 127.0.0.1
  check_command check_dummy!0!up
  max_check_attempts 1
  check_interval 1
}
CFG
# What RuntimeDirectory= (the unit) or tmpfiles.d (at boot) make.
in_root sh -c 'mkdir -p /run/naemon && chown naemon:naemon /run/naemon'
in_root setpriv --reuid=naemon --regid=naemon --init-groups vedette -d /etc/naemon/naemon.cfg || fail "vedette -d as naemon"
pid=$(cat "$root/run/naemon/naemon.pid")
[ "$(in_root stat -c %U "/proc/$pid")" = naemon ] || fail "the daemon does not run as naemon"
wait_for /var/log/naemon/naemon.log "HOST ALERT: localhost;UP\|INITIAL HOST STATE\|starting"
wait_for /var/lib/naemon/status.dat "host_name=localhost"
in_root vedettestats -c /etc/naemon/naemon.cfg -m -d NUMHOSTS | grep -qx 1 || fail "vedettestats"
stop_daemon "$pid"
wait_for /var/log/naemon/naemon.log "Successfully shutdown"
[ -e "$root/var/lib/naemon/retention.dat" ] || fail "no retention.dat"

step "in place of Nagios 4, on /etc/nagios4/nagios.cfg (as its user, nagios)"
lock=$(sed -n 's/^lock_file=//p' "$root/etc/nagios4/nagios.cfg")
in_root sh -c "mkdir -p $(dirname "$lock") && chown nagios:nagios $(dirname "$lock")"
in_root vedette -d /etc/nagios4/nagios.cfg || fail "vedette -d on nagios.cfg"
pid=$(in_root cat "$lock")  # /var/run is a link to /run, which outside the root is the host's
[ "$(in_root stat -c %U "/proc/$pid")" = nagios ] || fail "the daemon does not run as nagios"
wait_for /var/lib/nagios4/status.dat "host_name=localhost"
wait_for /var/log/nagios4/nagios.log "starting"
stop_daemon "$pid"
wait_for /var/log/nagios4/nagios.log "Successfully shutdown"

step "purge (with the libraries it alone pulled in)"
rm -rf "$root/etc/naemon" "$root/var/lib/nagios4/status.dat" "$root/var/lib/nagios4/retention.dat" \
  "$root/var/lib/nagios4/objects.cache" "$root/var/log/nagios4" "$root/run/nagios4"
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge --autoremove -y -qq vedette >/dev/null
snapshot >"$root/tmp/after.txt"
# The naemon user stays (Debian keeps system users); its files in /etc change, but none is added.
if ! diff "$root/tmp/before.txt" "$root/tmp/after.txt"; then fail "the purge left files behind (above)"; fi
echo "PASS: installed, verified nagios.cfg, ran as naemon and as nagios, purged without a trace"
