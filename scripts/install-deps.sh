#!/usr/bin/env bash
# Installs every Debian package Vedette needs to build, test and benchmark.
# Idempotent and quiet when everything is present; runs as root on a bare Debian 12.
# With the argument `fuzz`, also what `make fuzz` needs.
set -euo pipefail

packages=(
  # build
  g++ make cmake ninja-build pkg-config libfmt-dev
  # Livestatus' regular expressions in linear time
  libre2-dev
  # tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev python3 procps
  # real plugins for the demo and the integration tests
  monitoring-plugins-basic
  # peers: differential config tests and side-by-side benchmarks
  nagios4-core nagios4-common
  # real readers of status.dat and objects.cache: the classic CGIs (tests/integration/test_cgi.py)
  nagios4-cgi
  # a real Livestatus client, the library Thruk uses (tests/integration/test_livestatus.py)
  libmonitoring-livestatus-perl
  # distributed checks: the job server, its client library, and libcrypto for Mod-Gearman's AES
  gearman-job-server libgearman-dev libssl-dev
  # real readers of the metrics endpoint: promtool and the Python client's parser (tests/integration/test_metrics.py)
  prometheus python3-prometheus-client
  # perfdata writers: real Graphite (carbon-cache, whisper-fetch) and InfluxDB 1.x servers
  # (tests/integration/test_perfdata_writers.py)
  graphite-carbon python3-whisper influxdb
)
# `install-deps.sh fuzz` (make fuzz) adds what the libFuzzer build needs: clang and its fuzzer runtime.
if [ "${1:-}" = "fuzz" ]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi

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
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
