#!/usr/bin/env bash
# Check-execution benchmark: Vedette and Nagios 4 side by side, in one run, on the same generated objects
# (H hosts x 10 services, /bin/true as the check, intervals set for the chosen rate). Uses the shared peer
# harness (../shared/bench/peers/bench.py), which measures each core the same way: core-thread and
# all-thread CPU per executed check, plugin CPU, checks/s, latency p50/p99/max, RSS.
#
#   bench/perfbench/run.sh [--bin build/release/vedette] [--sizes "1000 10000"] [--rate 100] [--window 60]
# Needs root (process accounting, running the cores as user nagios); prints a Markdown table.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
harness="$root/../shared/bench/peers/bench.py"
bin="$root/build/release/vedette"
sizes="1000 10000"
rate=100
window=60
warmup=30
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$harness" ] || { echo "peer harness not found: $harness" >&2; exit 1; }
out="${BENCH_OUT:-/tmp/vedette-perfbench}/results-$(date +%Y%m%d-%H%M%S).jsonl"
mkdir -p "$(dirname "$out")"
for hosts in $sizes; do
  for peer in nagios vedette; do
    extra=()
    [ "$peer" = vedette ] && extra=(--bin "$(readlink -f "$bin")")
    python3 "$harness" run --peer "$peer" "${extra[@]}" --hosts "$hosts" --services-per-host 10 \
      --rate "$rate" --warmup "$warmup" --window "$window" --out "$out"
  done
done
python3 "$harness" table "$out"
echo "raw results: $out"
