#!/usr/bin/env bash
# State on disk and in motion at 100k services (10,000 hosts x 10; status_bench and retention_bench also at
# 1M, /hosts:100000): the persistence issue's figures.
#
#   bench/state_files.sh [--build build/release] [--skip-peers]
#
# 1. status.dat: the core thread's stall per dump (BM_SnapshotBuild) and the writer thread's format and
#    format + write + rename (+ fsync) times, CPU time (cpu_ms) and MB/s per write (status_bench).
# 2. retention.dat: snapshot (core stall), format, write (the same figures), and the load at start-up
#    (retention_bench).
# 3. objects.cache: format and write (object_cache_bench).
# 4. SIGHUP reload: load, prepare and swap times, and how late checks start around it (reload_gap.py).
# 5. status.dat write time of Nagios 4 and Vedette on the same 100k objects, in one run, as the shared peer
#    harness measures it (temp file seen until renamed; needs root and nagios4-core).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$root/build/release"
peers=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --skip-peers) peers=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
filter='--benchmark_repetitions=3 --benchmark_report_aggregates_only=true'

echo "## status.dat (status_bench)"
"$build/bench/status_bench" $filter
echo "## retention.dat (retention_bench)"
"$build/bench/retention_bench" $filter
echo "## objects.cache (object_cache_bench)"
"$build/bench/object_cache_bench" $filter
echo "## SIGHUP reload (reload_gap.py)"
python3 "$here/perfbench/reload_gap.py" --bin "$build/vedette" --hosts 10000
if [ "$peers" = 1 ]; then
  echo "## status.dat write, Nagios 4 and Vedette side by side (peer harness)"
  "$here/perfbench/run.sh" --bin "$build/vedette" --sizes 10000 --rate 100 --warmup 30 --window 30
fi
