#!/usr/bin/env bash
# Passive-result ingest through the command FIFO (issue 5: >= 100,000 results/s sustained without loss):
# the median of --runs runs of ingest.py, with log_passive_checks=0 and =1, each reporting the rate, the core
# thread's CPU per result, the process's CPU per result, peak RSS and whether any result was lost.
#
#   bench/passive_ingest/run.sh [--bin build/release/vedette] [--bin-b /tmp/vedette-before] [--runs 3]
#                               [--results 1000000] [--hosts 1000] [--services-per-host 10]
#                               [--log-passive "0 1"] [--codes 0] [--chunk-bytes 262144]
#
# --bin-b runs a second binary (B) interleaved with the first (A), run by run, for before/after figures on a
# noisy machine. Root or not both work (as root the daemon gets --allow-root). Configs, logs and the raw
# results go under $BENCH_OUT (default /tmp/vedette-passive-ingest); prints a Markdown table of medians.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/build/release/vedette"
bin_b=""
runs=3
results=1000000
hosts=1000
per_host=10
log_modes="0 1"
codes=0
chunk=262144
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --bin-b) bin_b="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --services-per-host) per_host="$2"; shift 2 ;;
    --log-passive) log_modes="$2"; shift 2 ;;
    --codes) codes="$2"; shift 2 ;;
    --chunk-bytes) chunk="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
workdir="${BENCH_OUT:-/tmp/vedette-passive-ingest}"
out="$workdir/results-$(date +%Y%m%d-%H%M%S).jsonl"
mkdir -p "$workdir"

labels=(A)
bins=("$(readlink -f "$bin")")
if [ -n "$bin_b" ]; then
  labels+=(B)
  bins+=("$(readlink -f "$bin_b")")
fi
for run in $(seq "$runs"); do
  for log in $log_modes; do
    for i in "${!bins[@]}"; do
      echo "run $run/$runs log_passive_checks=$log ${labels[$i]}=${bins[$i]}" >&2
      python3 "$here/ingest.py" --bin "${bins[$i]}" --label "${labels[$i]}" --results "$results" \
        --hosts "$hosts" --services-per-host "$per_host" --log-passive "$log" --codes "$codes" \
        --chunk-bytes "$chunk" --workdir "$workdir" | tee -a "$out" >&2
    done
  done
done

python3 - "$out" "${bins[@]}" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bins = dict(zip("AB", sys.argv[2:]))
groups = {}
for r in rows:
    groups.setdefault((r["label"], r["log_passive"]), []).append(r)
med = lambda rs, k: statistics.median(r[k] for r in rs)
print("| bin | log_passive_checks | runs | load avg | results/s | slowest 0.25 s, /s | core µs/result (stat) | "
      "core µs/result (schedstat) | process µs/result | peak RSS MiB | no loss |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (label, log), rs in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    windows = [r["min_window_rate"] for r in rs if r["min_window_rate"] is not None]
    print("| %s | %d | %d | %.1f | %d | %s | %.2f | %.3f | %.2f | %.1f | %s |" % (
        label, log, len(rs), med(rs, "loadavg_1m"), med(rs, "rate"),
        "%d" % statistics.median(windows) if windows else "-",
        med(rs, "core_us"), med(rs, "core_run_us"), med(rs, "proc_us"), med(rs, "rss_peak_kb") / 1024,
        "yes" if all(r["no_loss"] for r in rs) else "NO (%d of %d runs lost)" % (
            sum(not r["no_loss"] for r in rs), len(rs))))
for label, path in bins.items():
    print("\n%s = %s" % (label, path), end="")
print("\nload avg: 1-minute load average at the start of the runs (median); on a busy machine CPU per result"
      " grows too.\ncore µs (stat): utime+stime of the thread `core`, 10 ms ticks; (schedstat): its time on a CPU"
      " in ns."
      "\nraw results: %s" % sys.argv[1])
EOF
