#!/usr/bin/env python3
"""300,000 downtimes and comments in the real daemon: start-up and reload, against the same config without
them (issue 5: they must not slow start or reload; Naemon took over 15 minutes to restart with that many).

    bench/downtimes/daemon_load.py [--bin build/release/vedette] [--hosts 10000] [--downtimes 300000]

Generates H hosts x 10 services (active checks off, so only the books are measured) and a retention.dat with
`--downtimes` service downtimes (fixed, a day ahead) and their comments, starts Vedette, and reports the
time from exec to the first status.dat, then sends SIGHUP and reports the reload's load/prepare/swap times
from the log; the same again with no downtimes. The swap is what stalls the core thread.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def retention_text(hosts, per_host, downtimes, now):
    out = ["info {\ncreated=%d\nversion=1.5.2\n}\n" % now,
           "program {\nnext_comment_id=%d\nnext_downtime_id=%d\n}\n" % (downtimes + 1, downtimes + 1)]
    start = now + 86400
    for n in range(downtimes):
        h = n // per_host % hosts
        s = n % per_host
        host, svc = "host%05d" % h, "svc%02d" % s
        out.append("servicecomment {\nhost_name=%s\nservice_description=%s\nentry_type=2\ncomment_id=%d\n"
                   "source=0\npersistent=0\nentry_time=%d\nexpires=0\nexpire_time=0\nauthor=bench\n"
                   "comment_data=maintenance %d\n}\n" % (host, svc, n + 1, now, n))
        out.append("servicedowntime {\nhost_name=%s\nservice_description=%s\ndowntime_id=%d\ncomment_id=%d\n"
                   "entry_time=%d\nstart_time=%d\nflex_downtime_start=0\nend_time=%d\ntriggered_by=0\nfixed=1\n"
                   "duration=3600\nis_in_effect=0\nstart_notification_sent=0\nauthor=bench\ncomment=maintenance %d\n}\n"
                   % (host, svc, n + 1, n + 1, now, start + n % 3600, start + 3600 + n % 3600, n))
    return "".join(out)


def objects_text(hosts, per_host):
    out = ["define command {\n  command_name bench_check\n  command_line /bin/true\n}\n",
           "define timeperiod {\n  timeperiod_name 24x7\n  alias always\n" +
           "".join("  %s 00:00-24:00\n" % d for d in ("monday", "tuesday", "wednesday", "thursday", "friday",
                                                      "saturday", "sunday")) + "}\n"]
    for h in range(hosts):
        out.append("define host {\n  host_name host%05d\n  address 127.0.0.1\n  check_command bench_check\n"
                   "  active_checks_enabled 0\n  max_check_attempts 1\n  check_period 24x7\n}\n" % h)
        for s in range(per_host):
            out.append("define service {\n  host_name host%05d\n  service_description svc%02d\n"
                       "  check_command bench_check\n  active_checks_enabled 0\n  max_check_attempts 1\n"
                       "  check_interval 5\n  retry_interval 1\n  check_period 24x7\n}\n" % (h, s))
    return "".join(out)


def wait_for(pattern, path, timeout, count=1):
    rx = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path, errors="replace") as f:
                found = [line for line in f if rx.search(line)]
            if len(found) >= count:
                return found[count - 1]
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    raise SystemExit("timed out waiting for %r in %s" % (pattern, path))


def run(binary, workdir, hosts, per_host, downtimes):
    os.makedirs(workdir)
    with open(os.path.join(workdir, "objects.cfg"), "w") as f:
        f.write(objects_text(hosts, per_host))
    now = int(time.time())
    if downtimes:
        with open(os.path.join(workdir, "retention.dat"), "w") as f:
            f.write(retention_text(hosts, per_host, downtimes, now))
    with open(os.path.join(workdir, "vedette.cfg"), "w") as f:
        f.write("cfg_file=objects.cfg\nlog_file=vedette.log\ncommand_file=vedette.cmd\nstatus_file=status.dat\n"
                "status_update_interval=3600\nretain_state_information=1\nstate_retention_file=retention.dat\n"
                "retention_update_interval=0\nobject_cache_file=objects.cache\n")
    options = ["--allow-root"] if os.geteuid() == 0 else []
    began = time.monotonic()
    proc = subprocess.Popen([binary] + options + ["vedette.cfg"], cwd=workdir, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    try:
        status = os.path.join(workdir, "status.dat")
        while not os.path.exists(status):
            if proc.poll() is not None:
                raise SystemExit("vedette exited: see %s/vedette.log" % workdir)
            time.sleep(0.02)
        started = time.monotonic() - began
        log = os.path.join(workdir, "vedette.log")
        proc.send_signal(signal.SIGHUP)
        line = wait_for(r"Configuration reloaded:", log, 300)
        times = re.search(r"loaded in (\d+) ms, prepared in (\d+) ms, swapped in ([\d.]+) ms", line)
        with open(status) as f:
            depth_blocks = f.read().count("servicedowntime {")
        return {"downtimes": downtimes, "start_s": started, "load_ms": float(times.group(1)),
                "prepare_ms": float(times.group(2)), "swap_ms": float(times.group(3)),
                "downtimes_in_status_dat": depth_blocks}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "vedette"))
    parser.add_argument("--hosts", type=int, default=10000)
    parser.add_argument("--downtimes", type=int, default=300000)
    args = parser.parse_args()
    top = tempfile.mkdtemp(prefix="vedette-downtime-load-")
    try:
        rows = [run(os.path.abspath(args.bin), os.path.join(top, "with"), args.hosts, 10, args.downtimes),
                run(os.path.abspath(args.bin), os.path.join(top, "without"), args.hosts, 10, 0)]
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("| downtimes + comments | start (s) | reload load (ms) | prepare (ms) | swap (ms) | in status.dat |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %(downtimes)d | %(start_s).2f | %(load_ms).0f | %(prepare_ms).0f | %(swap_ms).1f | "
              "%(downtimes_in_status_dat)d |" % r)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
