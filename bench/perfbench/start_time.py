#!/usr/bin/env python3
"""Start-up time: from `vedette main.cfg` to "successfully initialized" (the line after which the first checks
run), builds alternating, on one configuration (issue 36: ≤ 5 s at 1M services).

    python3 ../shared/bench/peers/gen_config.py --flavor naemon --outdir /tmp/m1 --hosts 100000 \\
        --services-per-host 10 --rate 3333 --check dummy --run-user root --run-group root
    bench/perfbench/start_time.py --config /tmp/m1/naemon.cfg --bin before=/tmp/vedette-a \\
        --bin after=build/release/vedette [--runs 3]

Each run starts the daemon in the foreground (its log mirrored on stdout), takes the time the initialization
line arrives, then stops it with SIGTERM (which saves retention.dat: the next run reads it back, as a restart
does; the first run of a fresh directory has none). Prints each run and the median per build.
"""
import argparse
import signal
import statistics
import subprocess
import time


def one_start(binary, config):
    start = time.perf_counter()
    proc = subprocess.Popen([binary, "--allow-root", config], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    ready = None
    for line in proc.stdout:
        if "successfully initialized" in line:
            ready = time.perf_counter() - start
            break
    proc.send_signal(signal.SIGTERM)
    for _ in proc.stdout:
        pass
    proc.wait()
    if ready is None:
        raise SystemExit("%s exited (%s) before it was initialized" % (binary, proc.returncode))
    return ready


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True)
    p.add_argument("--bin", action="append", required=True, help="LABEL=PATH, once per build")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    builds = [b.split("=", 1) if "=" in b else (b, b) for b in args.bin]
    times = {label: [] for label, _ in builds}
    for run in range(args.runs):
        for label, binary in builds:
            t = one_start(binary, args.config)
            times[label].append(t)
            print("run %d %s: %.2f s" % (run + 1, label, t), flush=True)
    for label, values in times.items():
        print("%s: median %.2f s (%s)" % (label, statistics.median(values), ", ".join("%.2f" % v for v in values)))


if __name__ == "__main__":
    main()
