#!/usr/bin/env bash
# Highest sustainable check rate: Vedette and Nagios 4 side by side, and the bare spawn loop as the limit.
#
#   bench/perfbench/max_rate.sh [--bin build/release/vedette] [--hosts 1000] [--vedette-rates "400 600 800"]
#                               [--nagios-rates "100 150 200 300"] [--window 30] [--warmup 20]
#
# --bin LABEL=PATH may be given more than once to compare builds A/B: each rate then runs every build in
# turn (interleaved, so drift on the machine hits all of them alike), and rows say which build they are.
# The bare loop runs before and after the cores; the summary compares against the higher of the two.
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
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bins+=("$2"); shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --vedette-rates) vedette_rates="$2"; shift 2 ;;
    --nagios-rates) nagios_rates="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
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
bare_before=$(bare_loop before)
echo "bare posix_spawn+wait loop, $cores in parallel: $bare_before spawns/s"

run() {  # peer rate [label path]
  local extra=() label="$1"
  [ $# -gt 2 ] && { label="$3"; extra=(--bin "$(readlink -f "$4")"); }
  python3 "$peers/bench.py" run --peer "$1" "${extra[@]}" --hosts "$hosts" --services-per-host 10 \
    --rate "$2" --warmup "$warmup" --window "$window" --out "$out/run.jsonl" > /dev/null
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.strip(): r = json.loads(l); r["label"] = sys.argv[2]; print(json.dumps(r))' "$out/run.jsonl" "$label" \
    >> "$out/results.jsonl"
  rm -f "$out/run.jsonl"
}
for rate in $nagios_rates; do run nagios "$rate"; done
for rate in $vedette_rates; do
  for b in "${bins[@]}"; do
    case "$b" in *=*) run vedette "$rate" "${b%%=*}" "${b#*=}" ;; *) run vedette "$rate" vedette "$b" ;; esac
  done
done
bare_after=$(bare_loop after)
echo "bare loop again after the cores: $bare_after spawns/s"
bare=$(( bare_before > bare_after ? bare_before : bare_after ))

python3 - "$out/results.jsonl" "$bare" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bare = float(sys.argv[2])
best = {}
print("| peer | target/s | checks/s | latency p50 s | latency p99 s | sustained |")
print("|---|---|---|---|---|---|")
for r in rows:
    p99 = (r.get("latency_s") or {}).get("p99")
    p50 = (r.get("latency_s") or {}).get("p50")
    peer = r.get("label", r["peer"])
    got = r.get("checks_per_s") or 0
    ok = not r.get("error") and p99 is not None and p99 <= 0.1 and got >= 0.95 * r["target_rate"]
    print(f"| {peer} | {r['target_rate']} | {got} | {p50} | {p99} | {'yes' if ok else 'no'} |")
    if ok:
        best[peer] = max(best.get(peer, 0), got)
print()
for peer, rate in best.items():
    print(f"{peer}: highest sustained {rate:.0f} checks/s = {100 * rate / bare:.0f} % of the bare spawn loop")
for peer in best:
    if peer != "nagios" and "nagios" in best:
        print(f"{peer} / nagios: {best[peer] / best['nagios']:.1f}x")
EOF
echo "raw results: $out"
