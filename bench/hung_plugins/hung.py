#!/usr/bin/env python3
"""Healthy checks next to hung plugins (issue 20, item 11): does a class of checks that always time out starve
the others of latency?

    bench/hung_plugins/hung.py --bin A [--bin B ...] [--runs 1] [--healthy 500] [--hung 2000] [--window 120]

Generates one host without a check command, `--healthy` services running check_dummy 0 and `--hung` services
whose plugin is a shell script that sleeps 60 s, all with check_interval `--interval` seconds
(interval_length=1) and service_check_timeout `--timeout`. Starts Vedette, waits `--warmup` seconds, then for
`--window` seconds samples Livestatus `GET services` every second; every (service, last_check) pair seen once
is one check, with its latency column. Per run one JSON line (to stderr and --out): latency avg/p50/p99/max
of the healthy checks and the hung ones, how many checks of each ran in the window, and the peak number of
plugin processes. Several --bin (labelled A, B, ...) run interleaved, run by run; a Markdown table follows.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

HEALTHY_PLUGIN = "/usr/lib/nagios/plugins/check_dummy"


def objects_text(healthy, hung, interval, hang_script):
    out = ["define command {\n  command_name healthy\n  command_line %s 0 fine\n}\n" % HEALTHY_PLUGIN,
           "define command {\n  command_name hang\n  command_line %s\n}\n" % hang_script,
           "define timeperiod {\n  timeperiod_name 24x7\n  alias always\n" +
           "".join("  %s 00:00-24:00\n" % d for d in ("monday", "tuesday", "wednesday", "thursday", "friday",
                                                      "saturday", "sunday")) + "}\n",
           "define host {\n  host_name bench\n  address 127.0.0.1\n  max_check_attempts 1\n"
           "  active_checks_enabled 0\n  check_period 24x7\n}\n"]
    for kind, n in (("healthy", healthy), ("hang", hung)):
        for i in range(n):
            out.append("define service {\n  host_name bench\n  service_description %s%05d\n  check_command %s\n"
                       "  max_check_attempts 1\n  check_interval %d\n  retry_interval %d\n  check_period 24x7\n"
                       "  notifications_enabled 0\n}\n" % (kind, i, kind, interval, interval))
    return "".join(out)


def plugin_processes(pid):
    """Descendants of the daemon: the plugins running or not yet reaped."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    count, todo = 0, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            count += 1
            todo.append(child)
    return count


def summary(values):
    values = sorted(values)
    if not values:
        return {"n": 0}
    return {"n": len(values), "avg": sum(values) / len(values), "p50": benchlib.pct(values, 50),
            "p99": benchlib.pct(values, 99), "max": values[-1]}


def run(args, label, binary, workdir):
    os.makedirs(workdir)
    hang = os.path.join(workdir, "hang.sh")
    with open(hang, "w") as f:
        f.write("#!/bin/sh\n%s\necho never\n" % args.hang)
    os.chmod(hang, 0o755)
    with open(os.path.join(workdir, "objects.cfg"), "w") as f:
        f.write(objects_text(args.healthy, args.hung, args.interval, hang))
    sock = os.path.join(workdir, "live.sock")
    with open(os.path.join(workdir, "vedette.cfg"), "w") as f:
        f.write("cfg_file=objects.cfg\nlog_file=vedette.log\ncommand_file=vedette.cmd\nstatus_file=status.dat\n"
                "status_update_interval=3600\nretain_state_information=0\nstate_retention_file=retention.dat\n"
                "object_cache_file=objects.cache\ninterval_length=1\nmax_service_check_spread=%d\n"
                "service_check_timeout=%d\nenable_notifications=0\nenable_event_handlers=0\n"
                "livestatus_socket=%s\n%s" % (max(1, args.interval), args.timeout, sock,
                                              "".join(o + "\n" for o in args.option)))
    options = ["--allow-root"] if os.geteuid() == 0 else []
    proc = subprocess.Popen([binary] + options + ["vedette.cfg"], cwd=workdir, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    seen = {"healthy": {}, "hang": {}}
    peak_procs = 0
    try:
        benchlib.wait_for_socket(sock, proc)
        s = benchlib.connect(sock)
        query = "GET services\nColumns: description last_check latency has_been_checked"
        began = time.monotonic()
        while time.monotonic() - began < args.warmup + args.window:
            tick = time.monotonic()
            peak_procs = max(peak_procs, plugin_processes(proc.pid))
            code, body = benchlib.ask(s, query)
            if code != 200:
                raise RuntimeError("livestatus said %d: %s" % (code, body[:200]))
            if tick - began >= args.warmup:
                for line in body.decode().splitlines():
                    desc, last_check, latency, checked = line.split(";")
                    if checked != "1":
                        continue
                    kind = "healthy" if desc.startswith("healthy") else "hang"
                    seen[kind][(desc, int(last_check))] = float(latency)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
        s.close()
    finally:
        benchlib.stop(proc)
    return {"label": label, "bin": binary, "healthy": args.healthy, "hung": args.hung,
            "interval_s": args.interval, "timeout_s": args.timeout, "window_s": args.window,
            "options": args.option, "peak_plugin_processes": peak_procs,
            "healthy_latency": summary(list(seen["healthy"].values())),
            "hung_latency": summary(list(seen["hang"].values()))}


def table(rows):
    print("| bin | healthy | hung | options | healthy checks | healthy latency avg / p99 / max (s) "
          "| hung checks | hung latency avg / p99 / max (s) | peak plugin processes |")
    print("|---|---|---|---|---|---|---|---|---|")

    def lat(s):
        return "%.2f / %.2f / %.2f" % (s["avg"], s["p99"], s["max"]) if s["n"] else "-"
    for r in rows:
        print("| %s %s | %d | %d | %s | %d | %s | %d | %s | %d |" % (
            r["label"], r["bin"], r["healthy"], r["hung"], " ".join(r["options"]) or "-",
            r["healthy_latency"]["n"], lat(r["healthy_latency"]), r["hung_latency"]["n"],
            lat(r["hung_latency"]), r["peak_plugin_processes"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", action="append", required=True)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--healthy", type=int, default=500)
    parser.add_argument("--hung", type=int, default=2000)
    parser.add_argument("--interval", type=int, default=60, help="check_interval in seconds")
    parser.add_argument("--hang", default="sleep 60", help="what the hung plugin (a /bin/sh script) runs")
    parser.add_argument("--timeout", type=int, default=5, help="service_check_timeout")
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--window", type=int, default=120)
    parser.add_argument("--option", action="append", default=[], help="extra main config line")
    parser.add_argument("--workdir", default=None, help="kept afterwards (default: a temporary one)")
    parser.add_argument("--out", default=None, help="append the JSON lines to this file")
    args = parser.parse_args()
    top = args.workdir or tempfile.mkdtemp(prefix="vedette-hung-")
    os.makedirs(top, exist_ok=True)
    rows = []
    try:
        for n in range(args.runs):
            for i, binary in enumerate(args.bin):
                label = chr(ord("A") + i)
                print("run %d/%d %s=%s" % (n + 1, args.runs, label, binary), file=sys.stderr)
                row = run(args, label, os.path.abspath(binary), os.path.join(top, "run-%d-%s" % (n, label)))
                print(json.dumps(row), file=sys.stderr)
                if args.out:
                    with open(args.out, "a") as f:
                        f.write(json.dumps(row) + "\n")
                rows.append(row)
    finally:
        if not args.workdir:
            shutil.rmtree(top, ignore_errors=True)
    table(rows)


if __name__ == "__main__":
    main()
