#!/usr/bin/env python3
"""Livestatus at 100k services with the real daemon (issue 6): queries per second and latency of typical
Thruk queries, and check latency while clients hammer `GET services` — against the same run without clients.

    bench/livestatus/bench.py [--bin build/release/vedette] [--hosts 10000] [--services-per-host 10]
                              [--rate 100] [--warmup 30] [--window 60] [--hammer-threads 1]
                              [--hammer "GET services"] [--workdir /tmp/vedette-livestatus-bench] [--keep]

Phases, one daemon, one config (../shared/bench/peers/gen_config.py: /bin/true checks at --rate per second):
  quiet   --window seconds with no client. Check latency: Vedette's `latency` column (check start minus its
          scheduled time) of every service whose last check began in the window, read at the window's end.
  hammer  --window seconds with --hammer-threads clients each sending --hammer in a loop (every column of
          every service by default, as the issue asks). Check latency as above; queries/s; MB answered.
  typical each Thruk-like query QUERY_ROUNDS times in a row on one KeepAlive connection: p50/p99/max ms
          (log_hour reads the daemon's own log: with the generated config's quiet logging it is small).
The core thread's CPU per phase (utime+stime of the thread named `core`) shows what the snapshots cost it.
Prints a Markdown table and one JSON line.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PEERS = os.path.abspath(os.path.join(ROOT, "..", "shared", "bench", "peers"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib  # noqa: E402
from benchlib import ask, connect, pct, thread_cpu_s  # noqa: E402
QUERY_ROUNDS = 50

TYPICAL = {
    "problems": "GET services\nColumns: host_name description state plugin_output last_state_change "
                "acknowledged scheduled_downtime_depth\nFilter: state != 0\nFilter: acknowledged = 0\n"
                "Filter: scheduled_downtime_depth = 0\nLimit: 500",
    "totals": "GET services\n" + "".join("Stats: state = %d\n" % s for s in range(4)) +
              "Stats: state != 0\nStats: acknowledged = 1\nStats: scheduled_downtime_depth > 0\n"
              "Stats: active_checks_enabled = 0\nStats: sum execution_time\nStats: avg latency",
    "host_totals": "GET hosts\nStats: state = 0\nStats: state = 1\nStats: state = 2\nStats: has_been_checked = 0",
    "one_host": "GET services\nColumns: description state plugin_output perf_data last_check next_check\n"
                "Filter: host_name = host05000",
    "groups": "GET hostgroups\nColumns: name num_hosts num_services num_services_ok num_services_crit",
    # {hour_ago} is filled in when the query is sent.
    "log_hour": "GET log\nColumns: time class type host_name service_description state plugin_output\n"
                "Filter: time >= {hour_ago}\nFilter: class = 1\nFilter: class = 3\nOr: 2",
}


def latencies(path, since):
    s = connect(path)
    try:
        code, body = ask(s, "GET services\nColumns: latency\nFilter: last_check >= %d\nOutputFormat: json" % since)
    finally:
        s.close()
    if code != 200:
        raise RuntimeError(body.decode())
    return sorted(row[0] for row in json.loads(body))


def window_figures(path, pid, window, since):
    cpu0 = thread_cpu_s(pid, "core")
    time.sleep(window)
    cpu1 = thread_cpu_s(pid, "core")
    lat = latencies(path, since)
    return {"checks": len(lat), "latency_p50_ms": pct(lat, 50) * 1000, "latency_p99_ms": pct(lat, 99) * 1000,
            "latency_max_ms": (lat[-1] * 1000 if lat else float("nan")),
            "over_10ms": sum(1 for x in lat if x > 0.010), "core_cpu_pct": (cpu1 - cpu0) / window * 100}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "vedette"))
    ap.add_argument("--hosts", type=int, default=10000)
    ap.add_argument("--services-per-host", type=int, default=10)
    ap.add_argument("--rate", type=float, default=100)
    ap.add_argument("--warmup", type=float, default=30)
    ap.add_argument("--window", type=float, default=60)
    ap.add_argument("--hammer-threads", type=int, default=1)
    ap.add_argument("--hammer", default="GET services")
    ap.add_argument("--workdir", default="/tmp/vedette-livestatus-bench")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    subprocess.run([sys.executable, os.path.join(PEERS, "gen_config.py"), "--flavor", "naemon", "--outdir",
                    args.workdir, "--hosts", str(args.hosts), "--services-per-host", str(args.services_per_host),
                    "--rate", str(args.rate), "--run-user", "root", "--run-group", "root"],
                   check=True, stdout=subprocess.DEVNULL)
    cfg = os.path.join(args.workdir, "naemon.cfg")
    live = os.path.join(args.workdir, "live")
    with open(cfg, "a") as f:
        f.write("broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o %s\n" % live)
    for d in ("rw", "tmp", "checkresults", "archives"):
        os.makedirs(os.path.join(args.workdir, d), exist_ok=True)
    proc = subprocess.Popen([os.path.abspath(args.bin), "--allow-root", cfg], cwd=args.workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        benchlib.wait_for_socket(live, proc, "vedette")
        time.sleep(args.warmup)

        result = {"services": args.hosts * args.services_per_host, "rate": args.rate, "window_s": args.window}
        result["quiet"] = window_figures(live, proc.pid, args.window, int(time.time()))

        stop = threading.Event()
        counts = []

        def hammer():
            s = connect(live)
            n = size = 0
            while not stop.is_set():
                code, body = ask(s, args.hammer)
                if code != 200:
                    raise RuntimeError(body.decode()[:200])
                n += 1
                size += len(body)
            s.close()
            counts.append((n, size))

        threads = [threading.Thread(target=hammer) for _ in range(args.hammer_threads)]
        began = time.monotonic()
        since = int(time.time())
        for t in threads:
            t.start()
        figures = window_figures(live, proc.pid, args.window, since)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - began
        figures["queries_per_s"] = sum(n for n, _ in counts) / elapsed
        figures["mb_per_query"] = sum(b for _, b in counts) / max(1, sum(n for n, _ in counts)) / 1e6
        result["hammer"] = figures

        typical = {}
        s = connect(live)
        for name, request in TYPICAL.items():
            times = []
            for _ in range(QUERY_ROUNDS):
                t0 = time.perf_counter()
                code, body = ask(s, request.replace("{hour_ago}", str(int(time.time()) - 3600)))
                times.append((time.perf_counter() - t0) * 1000)
                if code != 200:
                    raise RuntimeError("%s: %s" % (name, body.decode()))
            times.sort()
            typical[name] = {"p50_ms": pct(times, 50), "p99_ms": pct(times, 99), "max_ms": times[-1],
                             "per_s": 1000.0 / (sum(times) / len(times))}
        s.close()
        result["typical"] = typical
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)

    print("| phase | checks | latency p50 ms | p99 ms | max ms | > 10 ms | core CPU % | queries/s | MB/query |")
    print("|---|---|---|---|---|---|---|---|---|")
    for phase in ("quiet", "hammer"):
        f = result[phase]
        print("| %s | %d | %.2f | %.2f | %.2f | %d | %.1f | %s | %s |" % (
            phase, f["checks"], f["latency_p50_ms"], f["latency_p99_ms"], f["latency_max_ms"], f["over_10ms"],
            f["core_cpu_pct"],
            "%.2f" % f["queries_per_s"] if "queries_per_s" in f else "-",
            "%.1f" % f["mb_per_query"] if "mb_per_query" in f else "-"))
    print()
    print("| query | p50 ms | p99 ms | max ms | per s |")
    print("|---|---|---|---|---|")
    for name, f in result["typical"].items():
        print("| %s | %.2f | %.2f | %.2f | %.0f |" % (name, f["p50_ms"], f["p99_ms"], f["max_ms"], f["per_s"]))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
