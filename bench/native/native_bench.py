#!/usr/bin/env python3
"""Native checks against forked ones, in one run: Vedette with native_checks=0 and =1 (and Nagios 4 when
installed and --nagios is given) run check_tcp against a local listener (or, with --plugin http, check_http
against a listener that answers a page; with ping or icmp, check_ping -p 1 or check_icmp -n 1 to
127.0.0.1) on H hosts x 10 services, at each target rate; a rate is sustained when >= 95 % of the target
executed in the window and the p99 check latency
is <= 100 ms. Reported per run: checks/s, latency p50/p99, CPU per check of the core process (threads
included), of its plugin children (cutime+cstime), of the listener, and the core's RSS.

    sudo python3 bench/native/native_bench.py --bin build/release/vedette --hosts 1000 \\
        --rates "500 1000 2000 4000" --window 20 --warmup 10 [--nagios /usr/sbin/nagios4] [--plugin http|ping|icmp]

Every result is counted through the perfdata file (one line per executed check with its end time and
latency), the same for every core; the rates of one run are interleaved per rate (off, on, nagios), so drift
on a shared machine hits them alike. Stdlib only; needs root for nothing but Nagios (run as nagios).
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib  # noqa: E402
import gen_config  # noqa: E402
from gen_config import block  # noqa: E402

PLUGINS = "/usr/lib/nagios/plugins"
TICKS = os.sysconf("SC_CLK_TCK")


HTTP_PAGE = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n"


class Listener:
    """Accepts and closes, on a thread of this process (its CPU is reported separately); with `answer`, reads
    the request first and sends that page."""

    def __init__(self, answer=None):
        self.answer = answer
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4096)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                if self.answer is not None:
                    c.settimeout(2)
                    c.recv(4096)
                    c.sendall(self.answer)
            except OSError:
                pass
            c.close()


COMMANDS = {
    "tcp": "$USER1$/check_tcp -H $HOSTADDRESS$ -p $ARG1$",
    "ping": "$USER1$/check_ping -H $HOSTADDRESS$ -w 100,20% -c 500,60% -p 1",
    "icmp": "$USER1$/check_icmp -H $HOSTADDRESS$ -n 1",
    "http": "$USER1$/check_http -I $HOSTADDRESS$ -p $ARG1$ -s ok",
}


def write_config(d, hosts, rate, native, nagios=False, plugin="tcp"):
    services = hosts * 10
    interval = max(1, round(services / rate))
    with open(os.path.join(d, "resource.cfg"), "w") as f:
        f.write("$USER1$=%s\n" % PLUGINS)
    week = [(day, "00:00-24:00") for day in gen_config.WEEKDAYS]
    objs = [
        block("timeperiod", [("timeperiod_name", "24x7"), ("alias", "24x7")] + week),
        block("contact", [("contact_name", "admin"), ("host_notification_commands", "notify"),
                          ("service_notification_commands", "notify"), ("host_notification_period", "24x7"),
                          ("service_notification_period", "24x7"), ("host_notification_options", "n"),
                          ("service_notification_options", "n")]),
        block("command", [("command_name", "notify"), ("command_line", "/bin/true")]),
        block("command", [("command_name", "probe"), ("command_line", COMMANDS[plugin])]),
    ]
    for h in range(hosts):
        objs.append(block("host", [("host_name", "h%d" % h), ("address", "127.0.0.1"), ("max_check_attempts", "1"),
                                   ("active_checks_enabled", "0"), ("check_period", "24x7"), ("contacts", "admin"),
                                   ("notification_period", "24x7")]))
        for s in range(10):
            objs.append(block("service", [
                ("host_name", "h%d" % h), ("service_description", "s%d" % s), ("check_command", "probe!%d" % PORT),
                ("max_check_attempts", "1"), ("check_interval", str(interval)), ("retry_interval", str(interval)),
                ("check_period", "24x7"), ("notification_period", "24x7"), ("contacts", "admin"),
                ("notifications_enabled", "0")]))
    with open(os.path.join(d, "objects.cfg"), "w") as f:
        f.write("".join(objs))
    main = [
        "cfg_file=objects.cfg", "resource_file=resource.cfg", "log_file=core.log",
        "status_file=status.dat", "status_update_interval=10", "command_file=core.cmd",
        "lock_file=core.lock", "temp_file=core.tmp", "state_retention_file=retention.dat",
        "retention_update_interval=60", "interval_length=1", "enable_notifications=0",
        "enable_flap_detection=0", "enable_event_handlers=0", "process_performance_data=1",
        "service_perfdata_file=perf.log",
        "service_perfdata_file_template=$LASTSERVICECHECK$ $SERVICELATENCY$ $SERVICEEXECUTIONTIME$",
        "service_perfdata_file_mode=a", "service_perfdata_file_processing_interval=0",
        "cached_service_check_horizon=0", "cached_host_check_horizon=0",
        "log_initial_states=0", "use_syslog=0", "illegal_macro_output_chars=`~$&|'\"<>",
        "check_result_path=%s" % d, "object_cache_file=objects.cache", "precached_object_file=objects.precache",
    ]
    if not nagios:
        main.append("native_checks=%d" % (1 if native else 0))
    with open(os.path.join(d, "core.cfg"), "w") as f:
        f.write("\n".join(main) + "\n")


def proc_cpu(pid):
    """(own utime+stime, children's cutime+cstime) in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS, (int(fields[13]) + int(fields[14])) / TICKS


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        vals = {l.split(":")[0]: l.split()[1] for l in f if l.startswith(("VmRSS", "VmHWM"))}
    return int(vals["VmRSS"]), int(vals["VmHWM"])


def self_cpu():
    t = os.times()
    return t.user + t.system


def one_run(label, argv, d, rate, warmup, window, run_as=None):
    perf = os.path.join(d, "perf.log")
    kwargs = {}
    if run_as:
        import pwd
        pw = pwd.getpwnam(run_as)
        subprocess.run(["chown", "-R", "%s:%s" % (run_as, run_as), d], check=True)
        kwargs["preexec_fn"] = lambda: (os.setgid(pw.pw_gid), os.setuid(pw.pw_uid))
    proc = subprocess.Popen(argv, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, **kwargs)
    try:
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(d, "status.dat")):
            if proc.poll() is not None or time.time() > deadline:
                return {"label": label, "target_rate": rate, "error": "did not start"}
            time.sleep(0.2)
        time.sleep(warmup)
        c0, ch0, l0, t0 = *proc_cpu(proc.pid), self_cpu(), time.time()
        time.sleep(window)
        c1, ch1, l1, t1 = *proc_cpu(proc.pid), self_cpu(), time.time()
        rss, hwm = rss_kb(proc.pid)
        time.sleep(1.5)  # the perfdata writer's last lines of the window
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    lat = []
    for line in open(perf, errors="replace"):
        parts = line.split()
        if len(parts) >= 2 and t0 <= float(parts[0]) < t1:  # LASTSERVICECHECK: when the check started
            lat.append(float(parts[1]))
    n = len(lat)
    lat.sort()
    per = lambda cpu: round(1e6 * cpu / n, 1) if n else None
    return {
        "label": label, "target_rate": rate, "checks_per_s": round(n / (t1 - t0), 1),
        "latency_p50_s": benchlib.pct(lat, 50) if n else None, "latency_p99_s": benchlib.pct(lat, 99) if n else None,
        "core_cpu_us_per_check": per(c1 - c0), "plugin_cpu_us_per_check": per(ch1 - ch0),
        "listener_cpu_us_per_check": per(l1 - l0), "core_cpu_pct": round(100 * (c1 - c0) / (t1 - t0), 1),
        "rss_kb": rss, "hwm_kb": hwm,
    }


def main():
    global PORT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/release/vedette")
    ap.add_argument("--nagios", default=None, help="path of nagios4 to include (runs as user nagios)")
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--rates", default="500 1000 2000 4000")
    ap.add_argument("--nagios-rates", default=None, help="rates for Nagios (default: --rates)")
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--window", type=float, default=20)
    ap.add_argument("--out", default=None, help="append JSON lines here")
    ap.add_argument("--plugin", choices=sorted(COMMANDS), default="tcp")
    a = ap.parse_args()
    listener = Listener(HTTP_PAGE if a.plugin == "http" else None)
    PORT = listener.port
    vedette = os.path.abspath(a.bin)
    rows = []
    rates = [int(r) for r in a.rates.split()]
    nagios_rates = [int(r) for r in (a.nagios_rates or a.rates).split()]
    for rate in sorted(set(rates) | (set(nagios_rates) if a.nagios else set())):
        plan = []
        if rate in rates:
            plan += [("vedette native_checks=0", False, False), ("vedette native_checks=1", True, False)]
        if a.nagios and rate in nagios_rates:
            plan.append(("nagios4", False, True))
        for label, native, nagios in plan:
            with tempfile.TemporaryDirectory(prefix="native-bench-") as d:
                os.chmod(d, 0o755)
                write_config(d, a.hosts, rate, native, nagios, a.plugin)
                if nagios:
                    argv, user = [a.nagios, os.path.join(d, "core.cfg")], "nagios"
                else:
                    argv, user = [vedette, "--allow-root", os.path.join(d, "core.cfg")], None
                r = one_run(label, argv, d, rate, a.warmup, a.window, user)
            r["services"] = a.hosts * 10
            r["plugin"] = a.plugin
            r["target_rate"] = round(r["services"] / max(1, round(r["services"] / rate)), 1)  # whole-second intervals
            got, p99 = r.get("checks_per_s") or 0, r.get("latency_p99_s")
            r["sustained"] = bool(p99 is not None and p99 <= 0.1 and got >= 0.95 * r["target_rate"])
            rows.append(r)
            print(json.dumps(r), flush=True)
            if a.out:
                with open(a.out, "a") as f:
                    f.write(json.dumps(r) + "\n")
    print("\n| core | target/s | checks/s | p50 s | p99 s | core µs/check | plugin µs/check | listener µs/check "
          "| core CPU % | RSS MB | sustained |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s |" % (
            r["label"], r["target_rate"], r.get("checks_per_s"), r.get("latency_p50_s"), r.get("latency_p99_s"),
            r.get("core_cpu_us_per_check"), r.get("plugin_cpu_us_per_check"), r.get("listener_cpu_us_per_check"),
            r.get("core_cpu_pct"), (r.get("rss_kb") or 0) / 1024, "yes" if r.get("sustained") else "no"))
    for label in dict.fromkeys(r["label"] for r in rows):
        best = max([r["checks_per_s"] for r in rows if r["label"] == label and r["sustained"]], default=0)
        print("%s: highest sustained %s checks/s" % (label, best))


if __name__ == "__main__":
    PORT = 0
    sys.exit(main())
