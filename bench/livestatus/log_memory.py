#!/usr/bin/env python3
"""Livestatus memory under big answers (issue 33): the daemon's peak RSS while clients ask for a whole
2,000,000-line naemon.log (`GET log`, no filter, default limits) and read nothing or read slowly, and how
long a normal small query waits meanwhile.

    bench/livestatus/log_memory.py [--bin build/release/vedette] [--lines 2000000] [--clients 1,4,16]
                                   [--headers fixed16,none] [--reading never,slow] [--hold 60]
                                   [--query 'GET log'] [--options 'max_pending_bytes=...']
                                   [--workdir /tmp/vedette-log-memory] [--keep]

The log (realistic lines: service and host alerts, notifications, external commands, passive checks, about
107 bytes each: 215 MB at 2M lines) is written once into --workdir and reused. Each case starts a fresh
daemon on a small config (50 hosts, 500 passive services, named by the log; Livestatus on a Unix socket,
log_file pointing at the log) and measures:
  idle      VmRSS after start, before any log query (what the deltas are measured from)
  cache     VmRSS after `GET log\\nLimit: 1` (the file parsed into the log cache), minus idle
  peak      VmHWM once every client has its answer (or --hold seconds passed), minus idle; and the highest
            VmRSS sampled every 20 ms meanwhile
  probe     the latency of `GET status` and of `GET services` with a filter, sent every 200 ms on their own
            connections while the clients hold theirs: max and median
  answers   what the clients got first (the status code of fixed16, else the first bytes); answered, the
            seconds until every client had its first byte (never, slow) or all of it (fast)
A client that reads "never" sends its request and keeps the connection open without reading; "slow" reads
4 KiB every 10 ms; "fast" reads as fast as it can (answered: when every client has all of its answer).
Prints a Markdown table and one JSON line per case.
"""
import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib  # noqa: E402
import gen_config  # noqa: E402

HOSTS = 50
SERVICES_PER_HOST = 10
STATES = ["OK", "WARNING", "CRITICAL", "UNKNOWN"]
OUTPUTS = [
    "OK - load average: 0.12, 0.08, 0.05",
    "WARNING - load average: 6.20, 5.81, 5.10",
    "CRITICAL - Socket timeout after 10 seconds",
    "DISK OK - free space: / 3326 MB (56% inode=99%)",
    "HTTP OK: HTTP/1.1 200 OK - 1520 bytes in 0.003 second response time",
    "PING CRITICAL - Packet loss = 100%",
    "UNKNOWN - check_nrpe: Error receiving data from daemon",
]


def names():
    return [("h%03d" % h, "svc%02d" % s) for h in range(HOSTS) for s in range(SERVICES_PER_HOST)]


def write_log(path, lines, now):
    """`lines` log lines, one a second up to `now`, in a realistic mix."""
    rng = random.Random(33)
    objects = names()
    start = now - lines
    with open(path + ".tmp", "w") as f:
        f.write("[%d] LOG VERSION: 2.0\n" % start)
        batch = []
        for i in range(1, lines):
            t = start + i
            host, svc = objects[rng.randrange(len(objects))]
            output = OUTPUTS[rng.randrange(len(OUTPUTS))]
            kind = rng.random()
            if kind < 0.40:
                line = "[%d] SERVICE ALERT: %s;%s;%s;%s;%d;%s" % (
                    t, host, svc, STATES[rng.randrange(4)], rng.choice(("SOFT", "HARD")), rng.randrange(1, 4),
                    output)
            elif kind < 0.45:
                line = "[%d] HOST ALERT: %s;%s;HARD;1;PING %s - rta %.3f ms" % (
                    t, host, rng.choice(("UP", "DOWN")), rng.choice(("OK", "CRITICAL")), rng.random() * 100)
            elif kind < 0.60:
                line = "[%d] SERVICE NOTIFICATION: admin;%s;%s;%s;notify-service-by-email;%s" % (
                    t, host, svc, STATES[rng.randrange(4)], output)
            elif kind < 0.63:
                line = "[%d] HOST NOTIFICATION: admin;%s;DOWN;notify-host-by-email;PING CRITICAL" % (t, host)
            elif kind < 0.88:
                line = "[%d] EXTERNAL COMMAND: PROCESS_SERVICE_CHECK_RESULT;%s;%s;%d;%s" % (
                    t, host, svc, rng.randrange(4), output)
            else:
                line = "[%d] PASSIVE SERVICE CHECK: %s;%s;%d;%s" % (t, host, svc, rng.randrange(4), output)
            batch.append(line)
            if len(batch) >= 10000:
                f.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            f.write("\n".join(batch) + "\n")
    os.replace(path + ".tmp", path)


def write_config(workdir, log, options):
    block = gen_config.block
    objects = [block("timeperiod", [("timeperiod_name", "24x7"), ("alias", "always")]
                     + [(d, "00:00-24:00") for d in gen_config.WEEKDAYS]),
               block("command", [("command_name", "dummy"), ("command_line", "/bin/true")]),
               block("contact", [("contact_name", "admin"), ("host_notification_commands", "dummy"),
                                 ("service_notification_commands", "dummy"),
                                 ("host_notification_period", "24x7"), ("service_notification_period", "24x7")])]
    passive = [("check_command", "dummy"), ("max_check_attempts", "1"), ("active_checks_enabled", "0"),
               ("contacts", "admin")]
    for h in range(HOSTS):
        objects.append(block("host", [("host_name", "h%03d" % h), ("address", "10.0.0.%d" % (h + 1))] + passive))
    for host, svc in names():
        objects.append(block("service", [("host_name", host), ("service_description", svc),
                                         ("check_interval", "5"), ("retry_interval", "1")] + passive))
    with open(os.path.join(workdir, "objects.cfg"), "w") as f:
        f.write("".join(objects))
    archives = os.path.join(workdir, "archives")
    os.makedirs(archives, exist_ok=True)
    with open(os.path.join(workdir, "vedette.cfg"), "w") as f:
        f.write("cfg_file=objects.cfg\nlog_file=%s\nlog_archive_path=%s\ncommand_file=vedette.cmd\n"
                "object_cache_file=objects.cache\nstatus_file=status.dat\nstate_retention_file=retention.dat\n"
                "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live %s\n" % (log, archives, options))


def status_kb(pid):
    """VmRSS and VmHWM of `pid`, in KiB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out["VmRSS"], out["VmHWM"]


def probe(path, request):
    """One fixed16 query on its own connection: seconds until the whole answer came."""
    started = time.monotonic()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)
    try:
        s.connect(path)
        s.sendall((request + "\nResponseHeader: fixed16\n\n").encode())
        header = benchlib.recv_exactly(s, 16)
        code, size = int(header[:3]), int(header[4:15])
        benchlib.recv_exactly(s, size)
        if code != 200:
            raise RuntimeError("probe %r answered %d" % (request, code))
    finally:
        s.close()
    return time.monotonic() - started


def ms(seconds):
    """Milliseconds, -1 for a probe that got no answer."""
    return -1 if seconds == float("inf") else round(seconds * 1000)


def has_bytes(s):
    try:
        return len(s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)) > 0
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset: an answer of sorts


def run_case(args, log, clients, header, reading):
    workdir = args.workdir
    write_config(workdir, log, args.options)
    live = os.path.join(workdir, "live")
    proc = subprocess.Popen([os.path.abspath(args.bin), "--allow-root", os.path.join(workdir, "vedette.cfg")],
                            cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        benchlib.wait_for_socket(live, proc)
        probe(live, "GET status\nColumns: program_version")
        time.sleep(1)
        idle_rss, _ = status_kb(proc.pid)
        probe(live, "GET log\nColumns: time\nLimit: 1")
        cache_rss, _ = status_kb(proc.pid)

        request = args.query.replace("\\n", "\n").rstrip("\n") + "\n"
        if header == "fixed16":
            request += "ResponseHeader: fixed16\n"
        request += "\n"
        sockets = []
        for _ in range(clients):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(live)
            s.sendall(request.encode())
            sockets.append(s)
        started = time.monotonic()
        peak_rss = [0]
        stop = threading.Event()
        firsts = [b""] * clients
        got = [0] * clients
        ended = [False] * clients

        def sample():
            while not stop.is_set():
                try:
                    peak_rss[0] = max(peak_rss[0], status_kb(proc.pid)[0])
                except (OSError, KeyError):  # gone, or a zombie
                    return
                time.sleep(0.02)

        def read(i, s, size, pause):
            s.settimeout(1)
            while not stop.is_set():
                try:
                    data = s.recv(size)
                except socket.timeout:
                    continue
                except OSError:
                    break
                if not data:
                    break
                if len(firsts[i]) < 32:
                    firsts[i] += data[:32 - len(firsts[i])]
                got[i] += len(data)
                time.sleep(pause)
            ended[i] = True

        threads = [threading.Thread(target=sample, daemon=True)]
        if reading != "never":
            size, pause = (4096, 0.01) if reading == "slow" else (1 << 20, 0)
            threads += [threading.Thread(target=read, args=(i, s, size, pause), daemon=True)
                        for i, s in enumerate(sockets)]
        for t in threads:
            t.start()
        latencies = []
        probes = ["GET status\nColumns: program_version requests",
                  "GET services\nColumns: host_name description state plugin_output\nFilter: host_name = h007"]
        answered_at = None
        while time.monotonic() - started < args.hold and proc.poll() is None:
            try:
                latencies.append(probe(live, probes[len(latencies) % 2]))
            except OSError:
                latencies.append(float("inf"))  # timed out or refused: the daemon is stuck or gone
            if reading == "never":
                answered = all(has_bytes(s) for s in sockets)
            elif reading == "slow":
                answered = all(g > 0 for g in got)
            else:
                answered = all(ended)
            if answered and answered_at is None:
                answered_at = time.monotonic()
            if answered_at is not None and time.monotonic() - answered_at > 2:
                break
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(timeout=5)
        if proc.poll() is not None:
            return {"clients": clients, "header": header, "reading": reading, "idle_mb": round(idle_rss / 1024),
                    "cache_mb": round((cache_rss - idle_rss) / 1024), "peak_mb": -1,
                    "sampled_peak_mb": round((peak_rss[0] - idle_rss) / 1024), "end_mb": -1,
                    "answered_s": -1, "probe_max_ms": -1, "probe_p50_ms": -1, "probes": len(latencies),
                    "answers": ["daemon exited: %s" % proc.returncode]}
        rss, hwm = status_kb(proc.pid)
        if reading == "never":
            for i, s in enumerate(sockets):
                try:
                    firsts[i] = s.recv(32, socket.MSG_DONTWAIT)
                except OSError:
                    firsts[i] = b""
        for s in sockets:
            s.close()
        probe(live, "GET status\nColumns: program_version")  # still alive
        latencies.sort()
        answers = sorted(set(f[:16].decode(errors="replace").strip() or "(nothing)" for f in firsts))
        return {
            "clients": clients, "header": header, "reading": reading,
            "idle_mb": round(idle_rss / 1024), "cache_mb": round((cache_rss - idle_rss) / 1024),
            "peak_mb": round((hwm - idle_rss) / 1024), "sampled_peak_mb": round((peak_rss[0] - idle_rss) / 1024),
            "end_mb": round((rss - idle_rss) / 1024),
            "answered_s": round((answered_at or time.monotonic()) - started, 1),
            "probe_max_ms": ms(latencies[-1]), "probe_p50_ms": ms(benchlib.pct(latencies, 50)),
            "probes": len(latencies), "answers": answers, "read_mb": round(sum(got) / 1e6),
        }
    finally:
        benchlib.stop(proc)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(ROOT, "build/release/vedette"))
    p.add_argument("--lines", type=int, default=2_000_000)
    p.add_argument("--clients", default="1,4,16")
    p.add_argument("--headers", default="fixed16,none")
    p.add_argument("--reading", default="never,slow")
    p.add_argument("--hold", type=float, default=60, help="seconds to wait at most for every client's answer")
    p.add_argument("--query", default="GET log", help="what the clients ask (\\n between lines)")
    p.add_argument("--options", default="", help="more key=value options for the broker_module line")
    p.add_argument("--workdir", default="/tmp/vedette-log-memory")
    p.add_argument("--keep", action="store_true", help="keep --workdir (the log is reused by the next run)")
    args = p.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    log = os.path.join(args.workdir, "naemon-%d.log" % args.lines)
    if not os.path.exists(log):
        write_log(log, args.lines, int(time.time()) - 60)
    print("log: %s, %d lines, %.0f MB" % (log, args.lines, os.path.getsize(log) / 1e6), flush=True)
    results = []
    try:
        for reading in args.reading.split(","):
            for header in args.headers.split(","):
                for clients in (int(c) for c in args.clients.split(",")):
                    r = run_case(args, log, clients, header, reading)
                    results.append(r)
                    print(json.dumps(r), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    print()
    print("| clients | header | reading | idle MB | cache MB | peak +MB | answered s | probe max ms | probe p50 ms "
          "| answers |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print("| %(clients)d | %(header)s | %(reading)s | %(idle_mb)d | %(cache_mb)d | %(peak_mb)d | %(answered_s)s "
              "| %(probe_max_ms)d | %(probe_p50_ms)d | %(answers)s |" % dict(r, answers=", ".join(r["answers"])))


if __name__ == "__main__":
    main()
