#!/usr/bin/env bash
# Highest sustainable check rate: Vedette and Nagios 4 side by side, and the bare spawn loop as the limit.
#
#   bench/perfbench/max_rate.sh [--bin build/release/vedette] [--hosts 1000] [--vedette-rates "400 600 800"]
#                               [--nagios-rates "100 150 200 300"] [--window 30] [--warmup 20] [--repeat 1]
#
# --bin LABEL=PATH may be given more than once to compare builds A/B: each rate then runs every build in
# turn (interleaved, so drift on the machine hits all of them alike), and rows say which build they are.
# A rate written as a fraction with an x ("0.8x") is that fraction of the latest bare loop's rate.
# --repeat N runs the whole sweep N times. A bare loop runs before the first sweep and after every sweep;
# each sweep is compared against the higher of the bare loops on either side of it (the machine's speed
# drifts by tens of percent over minutes), and the summary reports every sweep and the median.
#
# 1. The bare posix_spawn+wait loop of /bin/true (../shared/bench/peers/spawn_bench.c), one per core, all
#    running at once: the rate this machine can create processes at all.
# 2. Each core at each target rate on H hosts x 10 services (/bin/true), through the shared peer harness.
#    A rate is sustained when the checks executed in the window reach 95 % of the target and the check
#    latency p99 stays <= 100 ms.
# Needs root (like run.sh); prints one line per run and a summary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
peers="$root/../shared/bench/peers"
bins=()
hosts=1000
vedette_rates="400 600 800 1000"
nagios_rates="100 150 200 300"
window=30
warmup=20
repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bins+=("$2"); shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --vedette-rates) vedette_rates="$2"; shift 2 ;;
    --nagios-rates) nagios_rates="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ ${#bins[@]} -eq 0 ] && bins=("vedette=$root/build/release/vedette")
out="${BENCH_OUT:-/tmp/vedette-perfbench}/max-rate-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

gcc -O2 -o "$out/spawn_bench" "$peers/spawn_bench.c"
cores=$(nproc)
bare_loop() {  # tag: prints spawns/s of one loop per core, all at once
  for i in $(seq "$cores"); do "$out/spawn_bench" posix_spawn 20 0 > "$out/spawn-$1-$i.json" & done
  wait
  cat "$out"/spawn-"$1"-*.json |
    python3 -c 'import json,sys; print(round(sum(json.loads(l)["spawns_per_s"] for l in sys.stdin if l.strip())))'
}
bare=$(bare_loop 0)
echo "bare posix_spawn+wait loop, $cores in parallel: $bare spawns/s"
echo "0 $bare" > "$out/bare.txt"

run() {  # sweep peer rate [label path]
  local extra=() label="$2"
  [ $# -gt 3 ] && { label="$4"; extra=(--bin "$(readlink -f "$5")"); }
  python3 "$peers/bench.py" run --peer "$2" "${extra[@]}" --hosts "$hosts" --services-per-host 10 \
    --rate "$3" --warmup "$warmup" --window "$window" --out "$out/run.jsonl" > /dev/null
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.strip(): r = json.loads(l); r["label"] = sys.argv[2]; r["sweep"] = int(sys.argv[3]); print(json.dumps(r))' \
    "$out/run.jsonl" "$label" "$1" >> "$out/results.jsonl"
  rm -f "$out/run.jsonl"
}
for sweep in $(seq "$repeat"); do
  for rate in $nagios_rates; do run "$sweep" nagios "$rate"; done
  for rate in $vedette_rates; do
    case "$rate" in *x) rate=$(python3 -c "print(round(${rate%x} * $bare))") ;; esac
    for b in "${bins[@]}"; do
      case "$b" in
        *=*) run "$sweep" vedette "$rate" "${b%%=*}" "${b#*=}" ;;
        *) run "$sweep" vedette "$rate" vedette "$b" ;;
      esac
    done
  done
  bare=$(bare_loop "$sweep")
  echo "sweep $sweep done; bare loop after it: $bare spawns/s"
  echo "$sweep $bare" >> "$out/bare.txt"
done

python3 - "$out/results.jsonl" "$out/bare.txt" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bare_after = {int(k): float(v) for k, v in (l.split() for l in open(sys.argv[2]) if l.strip())}
bare = {s: max(bare_after[s - 1], bare_after[s]) for s in bare_after if s > 0}
best = {}  # (label, sweep) -> highest sustained checks/s, 0 when none was
print("| sweep | peer | target/s | checks/s | latency p50 s | latency p99 s | sustained |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    p99 = (r.get("latency_s") or {}).get("p99")
    p50 = (r.get("latency_s") or {}).get("p50")
    peer = r.get("label", r["peer"])
    got = r.get("checks_per_s") or 0
    ok = not r.get("error") and p99 is not None and p99 <= 0.1 and got >= 0.95 * r["target_rate"]
    print(f"| {r['sweep']} | {peer} | {r['target_rate']} | {got} | {p50} | {p99} | {'yes' if ok else 'no'} |")
    key = (peer, r["sweep"])
    best[key] = max(best.get(key, 0), got if ok else 0)
print()
peers = list(dict.fromkeys(p for p, _ in best))
for peer in peers:
    sweeps = sorted(s for p, s in best if p == peer)
    ratios = [best[(peer, s)] / bare[s] for s in sweeps]
    for s, ratio in zip(sweeps, ratios):
        print(f"{peer} sweep {s}: highest sustained {best[(peer, s)]:.0f} checks/s, "
              f"bare loop {bare[s]:.0f}/s -> {100 * ratio:.0f} %")
    print(f"{peer}: median highest sustained {statistics.median(best[(peer, s)] for s in sweeps):.0f} checks/s"
          f" = {100 * statistics.median(ratios):.0f} % of the bare spawn loop (median of {len(sweeps)} sweeps)")
nagios = {s: v for (p, s), v in best.items() if p == "nagios" and v > 0}
for peer in peers:
    if peer != "nagios" and nagios:
        x = [best[(peer, s)] / nagios[s] for s in nagios if (peer, s) in best]
        print(f"{peer} / nagios: {statistics.median(x):.1f}x (median over sweeps)")
EOF
echo "raw results: $out"
