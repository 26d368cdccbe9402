#!/usr/bin/env bash
# Installs the Debian 12 packages a make target needs, and nothing more:
#   install-deps.sh run    building Vedette and running the demo (`make run`, `make build`)
#   install-deps.sh test   the above, plus what the tests and benchmarks use (`make test`, `make bench`)
#   install-deps.sh fuzz   the above, plus clang and its fuzzer runtime (`make fuzz`)
#   install-deps.sh package  building and testing the Debian package (`make package`, `make package-test`)
# Idempotent and quiet when everything is present; installs as root. Servers the tests use (gearmand,
# Prometheus, carbon, InfluxDB) are installed but neither started nor enabled: the tests start their own
# instances on 127.0.0.1 in temporary directories, and nothing listens or starts at boot afterwards.
set -euo pipefail

profile=${1:-test}
run=(
  # build
  g++ make cmake ninja-build pkg-config libfmt-dev
  # Livestatus' regular expressions in linear time
  libre2-dev
  # Mod-Gearman support is built in: the gearmand client library and libcrypto for its AES
  libgearman-dev libssl-dev
  # real plugins for the demo, and python3 for the query it prints
  monitoring-plugins-basic python3 procps
)
test=(
  # unit tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  # the manual pages rendered by tests/integration/test_install.py
  groff-base
  # peers: differential config tests and side-by-side benchmarks
  nagios4-core nagios4-common
  # real readers of status.dat and objects.cache: the classic CGIs (tests/integration/test_cgi.py)
  nagios4-cgi
  # a real Livestatus client, the library Thruk uses (tests/integration/test_livestatus.py)
  libmonitoring-livestatus-perl
  # distributed checks: the job server (tests/integration/test_gearman.py)
  gearman-job-server
  # real readers of the metrics endpoint: promtool and the Python client's parser (tests/integration/test_metrics.py)
  prometheus python3-prometheus-client
  # perfdata writers: real Graphite (carbon-cache, whisper-fetch) and InfluxDB 1.x servers
  # (tests/integration/test_perfdata_writers.py)
  graphite-carbon python3-whisper influxdb
)
# The services the packages above bring, which Debian would start now and at every boot.
test_services=(gearman-job-server prometheus carbon-cache influxdb nagios4)

packages=("${run[@]}")
case "$profile" in
  run) ;;
  test) packages+=("${test[@]}") ;;
  fuzz) packages+=("${test[@]}" clang-14 libclang-rt-14-dev) ;;
  package) packages+=(debhelper dpkg-dev fakeroot lintian debootstrap) ;;
  *) echo "install-deps: unknown profile '$profile' (run, test, fuzz or package)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root, or install them)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# invoke-rc.d and deb-systemd-invoke ask policy-rc.d whether a package may start its service: 101 says no.
# Ours stands only for this install; one the machine already had is put back.
policy=/usr/sbin/policy-rc.d
saved=""
if [ -e "$policy" ]; then
  saved=$(mktemp)
  cp -p "$policy" "$saved"
fi
restore_policy() {
  if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
}
trap restore_policy EXIT
printf '#!/bin/sh\nexit 101\n' > "$policy"
chmod 755 "$policy"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

# Enabled at boot by their postinst (deb-systemd-helper, update-rc.d): disabled, as they were never
# started. Only services of packages this run installed: an admin's own choice is left alone.
for service in "${test_services[@]}"; do
  [ -e "/lib/systemd/system/$service.service" ] || [ -e "/etc/init.d/$service" ] || continue
  installed_now=0
  for p in "${missing[@]}"; do
    if dpkg -L "$p" 2>/dev/null | grep -qE "/($service\.service|init\.d/$service)\$"; then installed_now=1; fi
  done
  [ "$installed_now" = 1 ] || continue
  if command -v deb-systemd-helper >/dev/null && [ -e "/lib/systemd/system/$service.service" ]; then
    deb-systemd-helper disable "$service.service" >/dev/null 2>&1 || true
  fi
  if [ -e "/etc/init.d/$service" ]; then update-rc.d "$service" disable >/dev/null 2>&1 || true; fi
done
