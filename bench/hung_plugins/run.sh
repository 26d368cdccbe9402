#!/usr/bin/env bash
# Healthy checks next to hung plugins (issue 20, item 11): the latency of --healthy check_dummy services while
# --hung services run a plugin that sleeps past service_check_timeout, for one binary or several side by side
# (interleaved, run by run: on a shared machine only such figures count). See README.md.
#
#   bench/hung_plugins/run.sh [--bin build/before/vedette --bin build/release/vedette] [--runs 2]
#                             [--healthy 500] [--hung 2000] [--interval 60] [--timeout 5]
#                             [--warmup 60] [--window 120] [--option max_concurrent_checks=200 ...]
#
# Without --bin: build/release/vedette. Raw results (JSON lines) are appended under $BENCH_OUT (default
# /tmp/vedette-hung-plugins); prints a Markdown table, one row per run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
workdir="${BENCH_OUT:-/tmp/vedette-hung-plugins}"
mkdir -p "$workdir"
default=()
case " $* " in *" --bin "*) ;; *) default=(--bin "$root/build/release/vedette") ;; esac
exec python3 "$here/hung.py" ${default[@]+"${default[@]}"} --out "$workdir/results-$(date +%Y%m%d-%H%M%S).jsonl" "$@"
