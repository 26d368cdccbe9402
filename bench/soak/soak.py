#!/usr/bin/env python3
"""An hour at 100k services: does anything drift? (issue 36, goal 5; the lesson Vedette is built on: a
Nagios loop that sleeps drifted 12 s in 10 hours).

    bench/soak/soak.py [--bin build/release/vedette] [--minutes 60] [--slice 5]

10,000 hosts (no host checks) with 10 services each: one runs /bin/true as a process (10,000 services every
100 s: ~100 forks/s), nine run check_dummy natively (90,000 every 90 s: ~1,000 checks/s). Status.dat every
10 s, retention.dat every 5 minutes. Every slice prints one row, read from the daemon and its files:

- checks/s: the service checks of the slice's last minutes, from status.dat's check_stats (Naemon's counters);
- latency p50/p99/max: check_latency of the services whose last check lies in the slice;
- late: services whose next_check is more than 5 s past (a core falling behind piles them up);
- the core thread's CPU per check in the slice, RSS, open fds and threads.

Flat means: latency the same in the last slice as in the first, late 0 throughout, and RSS, fds and threads
growing by less than 1 % after the first slice (the first fills the caches and the status buffers). Run as
root (it passes --allow-root); stdlib only. Prints a Markdown table.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HOSTS = 10_000
PLUGINS = "/usr/lib/nagios/plugins"


def write_config(d):
    objects = [
        "define timeperiod {\n timeperiod_name 24x7\n alias always\n"
        + "".join(" %s 00:00-24:00\n" % day for day in
                  ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")) + "}\n",
        "define command {\n command_name fork_true\n command_line /bin/true\n}\n",
        "define command {\n command_name native_dummy\n command_line $USER1$/check_dummy 0 OK\n}\n",
        "define contact {\n contact_name nobody\n host_notifications_enabled 0\n service_notifications_enabled 0\n"
        " host_notification_period 24x7\n service_notification_period 24x7\n host_notification_commands fork_true\n"
        " service_notification_commands fork_true\n}\n",
    ]
    for h in range(HOSTS):
        objects.append("define host {\n host_name h%05d\n address 127.0.0.1\n max_check_attempts 1\n"
                       " check_period 24x7\n active_checks_enabled 0\n contacts nobody\n}\n" % h)
        for s in range(10):
            forked = s == 0
            objects.append(
                "define service {\n host_name h%05d\n service_description s%d\n check_command %s\n"
                " check_interval %d\n retry_interval %d\n max_check_attempts 1\n check_period 24x7\n"
                " notifications_enabled 0\n contacts nobody\n}\n"
                % (h, s, "fork_true" if forked else "native_dummy", 100 if forked else 90, 100 if forked else 90))
    with open(os.path.join(d, "objects.cfg"), "w") as f:
        f.write("".join(objects))
    with open(os.path.join(d, "resource.cfg"), "w") as f:
        f.write("$USER1$=%s\n" % PLUGINS)
    with open(os.path.join(d, "vedette.cfg"), "w") as f:
        f.write("\n".join([
            "cfg_file=%s/objects.cfg" % d, "resource_file=%s/resource.cfg" % d,
            "log_file=%s/vedette.log" % d, "status_file=%s/status.dat" % d, "status_update_interval=10",
            "state_retention_file=%s/retention.dat" % d, "retention_update_interval=5",
            "object_cache_file=%s/objects.cache" % d, "command_file=%s/vedette.cmd" % d,
            "lock_file=%s/vedette.lock" % d, "temp_file=%s/vedette.tmp" % d, "interval_length=1",
            "enable_notifications=0", "enable_flap_detection=0", "process_performance_data=0",
            "log_passive_checks=0", "log_initial_states=0", "check_service_freshness=0", ""]))
    return os.path.join(d, "vedette.cfg")


def status_services(path):
    """(programstatus fields, [(last_check, next_check, check_latency)]) of the current status.dat."""
    program, services, block, fields = {}, [], None, {}
    with open(path, errors="replace") as f:
        for line in f:
            if block is None:
                if line.endswith(" {\n"):
                    block, fields = line[:-3], {}
                continue
            if line == "\t}\n":
                if block == "programstatus":
                    program = fields
                elif block == "servicestatus" and fields.get("has_been_checked") == "1":
                    services.append((int(fields["last_check"]), int(fields["next_check"]),
                                     float(fields["check_latency"])))
                block = None
                continue
            key, _, value = line.strip().partition("=")
            if block == "programstatus" or key in ("has_been_checked", "last_check", "next_check", "check_latency"):
                fields[key] = value
    return program, services


def proc_figures(pid):
    with open("/proc/%d/status" % pid) as f:
        status = dict(line.split(":", 1) for line in f if ":" in line)
    core = 0.0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().strip() != "core":
                continue
        with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        core = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return {"rss_mb": int(status["VmRSS"].split()[0]) / 1024, "threads": int(status["Threads"]),
            "fds": len(os.listdir("/proc/%d/fd" % pid)), "core_cpu_s": core}


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "release",
                                                 "vedette"))
    a.add_argument("--minutes", type=float, default=60)
    a.add_argument("--slice", type=float, default=5, help="minutes per row")
    a.add_argument("--keep", action="store_true")
    args = a.parse_args()
    d = tempfile.mkdtemp(prefix="vedette-soak-")
    cfg = write_config(d)
    proc = subprocess.Popen([os.path.abspath(args.bin), "--allow-root", cfg], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    rows = []
    try:
        status = os.path.join(d, "status.dat")
        while not os.path.exists(status):
            if proc.poll() is not None:
                sys.exit("vedette exited: %s" % proc.returncode)
            time.sleep(0.2)
        start = time.time()
        previous = proc_figures(proc.pid)
        slice_s = args.slice * 60
        for n in range(int(args.minutes / args.slice)):
            slice_start = start + n * slice_s
            time.sleep(max(0.0, slice_start + slice_s - time.time()))
            time.sleep(11)  # the status.dat written after the slice ends
            now = time.time()
            program, services = status_services(status)
            in_slice = [lat for last, _, lat in services if slice_start <= last < slice_start + slice_s]
            late = sum(1 for _, nxt, _ in services if nxt < now - 5)
            stats = program.get("active_scheduled_service_check_stats", "0,0,0").split(",")
            figures = proc_figures(proc.pid)
            checks = int(stats[1]) if len(stats) > 1 else 0  # the last 5 minutes
            cpu = figures["core_cpu_s"] - previous["core_cpu_s"]
            previous = figures
            rows.append({
                "slice": "%d-%d min" % (n * args.slice, (n + 1) * args.slice),
                "checks_s": checks / 300.0,
                "p50": percentile(in_slice, 50), "p99": percentile(in_slice, 99), "max": max(in_slice or [0]),
                "late": late, "core_us": cpu / max(checks, 1) * 1e6,
                "rss": figures["rss_mb"], "fds": figures["fds"], "threads": figures["threads"]})
            r = rows[-1]
            print("| %s | %.0f | %.3f | %.3f | %.3f | %d | %.1f | %.0f | %d | %d |" % (
                r["slice"], r["checks_s"], r["p50"], r["p99"], r["max"], r["late"], r["core_us"], r["rss"],
                r["fds"], r["threads"]), flush=True)
    finally:
        proc.terminate()
        proc.wait()
        if not args.keep:
            shutil.rmtree(d, ignore_errors=True)
    print("\n| slice | checks/s | latency p50 s | p99 s | max s | late | core µs/check | RSS MB | fds | threads |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %.0f | %.3f | %.3f | %.3f | %d | %.1f | %.0f | %d | %d |" % (
            r["slice"], r["checks_s"], r["p50"], r["p99"], r["max"], r["late"], r["core_us"], r["rss"],
            r["fds"], r["threads"]))
    if len(rows) > 2:
        grow = lambda k: (rows[-1][k] - rows[1][k]) / rows[1][k] * 100 if rows[1][k] else 0
        print("\nafter the first slice: RSS %+.2f %%, fds %+.2f %%, threads %+.2f %%; p99 first %.3f s, last %.3f s"
              % (grow("rss"), grow("fds"), grow("threads"), rows[1]["p99"], rows[-1]["p99"]))


if __name__ == "__main__":
    main()
