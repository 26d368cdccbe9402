#!/usr/bin/env python3
"""Reload scheduling gap: how late checks start around a SIGHUP reload, at 100k services by default.

    bench/perfbench/reload_gap.py [--bin build/release/vedette] [--hosts 10000] [--rate 100]
                                  [--reloads 3] [--window 20] [--warmup 20]

Generates H hosts x 10 services (/bin/true, intervals for the chosen rate) with the shared peer generator,
starts Vedette in the foreground, and sends SIGHUP `--reloads` times, `--window` seconds apart; each reload
adds a host with 10 services and removes the previous one added, so objects come and go as they do in real
reloads. Reports, from the log, each reload's load/prepare/swap times, and from status.dat the check latency
(start - scheduled time) of the checks that started in the window before the first reload (baseline) and in
the windows after each reload. The target: no check later than 1 s.
"""
import argparse
import grp
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PEERS = os.path.abspath(os.path.join(ROOT, "..", "shared", "bench", "peers"))
sys.path.insert(0, PEERS)
import bench as peer_bench  # noqa: E402  (parse_status_dat, dist)

EXTRA = """
define host {
  host_name reload-extra-%(n)d
  address 127.0.0.1
  check_command bench_check
  active_checks_enabled 0
  max_check_attempts 1
}
"""
EXTRA_SERVICE = """
define service {
  host_name reload-extra-%(n)d
  service_description extra-%(i)d
  check_command bench_check
  check_interval %(interval)g
  retry_interval %(interval)g
  max_check_attempts 1
}
"""


def wait_for_line(log_path, pattern, count, timeout):
    rx = re.compile(pattern)
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(log_path, errors="replace") as f:
                lines = [line for line in f if rx.search(line)]
            if len(lines) >= count:
                return lines
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    raise SystemExit("timed out waiting for %r in %s" % (pattern, log_path))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "vedette"))
    p.add_argument("--hosts", type=int, default=10000)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--reloads", type=int, default=3)
    p.add_argument("--window", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=20.0)
    p.add_argument("--keep", action="store_true", help="keep the run directory")
    args = p.parse_args()

    rundir = tempfile.mkdtemp(prefix="vedette-reload-gap-")
    # The generator names a run user (naemon_user), which Vedette started as root switches to; the run
    # directory is ours, so name ourselves: the daemon runs as whoever starts this (--allow-root below).
    meta = json.loads(subprocess.check_output([
        sys.executable, os.path.join(PEERS, "gen_config.py"), "--flavor", "naemon", "--outdir", rundir,
        "--hosts", str(args.hosts), "--rate", str(args.rate), "--status-update-interval", "5",
        "--run-user", pwd.getpwuid(os.getuid()).pw_name, "--run-group", grp.getgrgid(os.getgid()).gr_name]))
    cfg = meta["main_config"]
    objects = os.path.join(rundir, "objects.cfg")
    with open(objects) as f:
        base_objects = f.read()
    log_path = os.path.join(rundir, "core.log")
    status_path = os.path.join(rundir, "status.dat")
    proc = subprocess.Popen([os.path.abspath(args.bin), "--allow-root", cfg], cwd=rundir,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_line(log_path, r"LOG VERSION: 2\.0", 1, 300)
        time.sleep(args.warmup)
        marks = []  # wall times of the SIGHUPs
        for n in range(1, args.reloads + 1):
            extra = EXTRA % {"n": n} + "".join(
                EXTRA_SERVICE % {"n": n, "i": i, "interval": meta["check_interval_s"]} for i in range(10))
            with open(objects + ".tmp", "w") as f:
                f.write(base_objects + extra)
            os.replace(objects + ".tmp", objects)
            marks.append(time.time())
            proc.send_signal(signal.SIGHUP)
            wait_for_line(log_path, r"Configuration reloaded", n, 300)
            time.sleep(args.window)
        # A status.dat written after the last window holds each service's last check.
        end = time.time()
        peer_bench.wait_status_write(status_path, end, 60)
        snap = os.path.join(rundir, "status-end.dat")
        os.link(status_path, snap)
        _, services = peer_bench.parse_status_dat(snap)
        reloaded = wait_for_line(log_path, r"Configuration reloaded", args.reloads, 10)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()

    def latencies(start, stop):
        return sorted(s["check_latency"] for s in services
                      if s.get("has_been_checked") and start <= s.get("last_check", 0) < stop)

    print("Vedette %s, %d services, %g checks/s, reload every %g s" % (
        os.path.basename(args.bin), meta["services"], args.rate, args.window))
    print()
    print("| window | checks | latency p50 s | p99 s | max s | later than 1 s | load ms | prepare ms | swap ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = peer_bench.dist(latencies(marks[0] - args.window, marks[0]))
    print("| before the first reload | %d | %.3f | %.3f | %.3f | %d | - | - | - |" % (
        base.get("n", 0), base.get("p50", 0), base.get("p99", 0), base.get("max", 0),
        len([x for x in latencies(marks[0] - args.window, marks[0]) if x > 1.0])))
    worst = 0.0
    for i, mark in enumerate(marks):
        stop = marks[i + 1] if i + 1 < len(marks) else end
        lat = latencies(mark - 1, stop)
        d = peer_bench.dist(lat)
        t = re.search(r"loaded in (\d+) ms, prepared in (\d+) ms, swapped in ([\d.]+) ms", reloaded[i])
        worst = max(worst, d.get("max", 0))
        print("| reload %d | %d | %.3f | %.3f | %.3f | %d | %s | %s | %s |" % (
            i + 1, d.get("n", 0), d.get("p50", 0), d.get("p99", 0), d.get("max", 0),
            len([x for x in lat if x > 1.0]), t.group(1), t.group(2), t.group(3)))
    print()
    print("worst check latency after a reload: %.3f s (target: <= 1 s)" % worst)
    if args.keep:
        print("run directory: %s" % rundir)
    else:
        shutil.rmtree(rundir, ignore_errors=True)


if __name__ == "__main__":
    main()
