#!/usr/bin/env python3
"""Distributed checks on gearmand against local checks, at 100k services (issue 7).

    bench/gearman/bench.py [--bin build/release/vedette] [--worker-bin DIR_OF_BIN/vedette-worker]
                           [--hosts 10000] [--services-per-host 10] [--rate 100] [--workers 2]
                           [--max-worker 20] [--encryption yes|no] [--warmup 30] [--window 60]
                           [--probe-window 20] [--probe-interval 0.1]
                           [--modes local,gearman] [--old-bin PATH] [--workdir /tmp/vedette-gearman-bench] [--keep]

One run per mode, each on a fresh copy of the same configuration (../shared/bench/peers/gen_config.py:
--hosts x --services-per-host services running /bin/true, check_interval = services / --rate, host checks
off, status.dat every 10 s) with the built-in Livestatus:

  local    Vedette runs the plugins itself.
  gearman  (gearmanN: with N workers) the same config plus Naemon's Mod-Gearman line
           `broker_module=/usr/lib/mod_gearman/mod_gearman_naemon.o server=127.0.0.1:PORT hosts=yes
           services=yes encryption=... key=...`, a gearmand (/usr/sbin/gearmand) on a free loopback port and
           --workers (or N) local vedette-worker processes (max-worker=--max-worker each).
  With --old-bin, every gearman mode runs a second time with that vedette binary (the same workers and
  gearmand): an A/B of two builds of the core's side in one run, "(old)" in the table.

After --warmup seconds, over --window seconds:
  checks/s      services whose last check started in the window (Livestatus last_check), per second: with
                check_interval >= window each service counts at most once. "not OK" counts those whose
                state is not OK (an orphan or "could not submit" result would show there).
  core µs/check CPU (schedstat run time) of the thread named `core` per check; "vedette µs/check" is the whole
                daemon's own CPU (its gearman-submit / gearman-results or exec threads included, the
                plugins' not); "workers" and "gearmand" likewise for those processes, summed.
  latency       Livestatus `latency` of the window's checks (the core's check_latency: for a distributed
                check, as Mod-Gearman computes it from the result's times), p50/p99/max in ms;
                execution p50 is `execution_time`.
  result age    then, for --probe-window more seconds (CPU is not measured then: every Livestatus query
                makes the core take a snapshot), 10 probe services (host gmprobe, `/bin/date +%s.%N` every
                second, disabled until then) run and a client polls their plugin_output every
                --probe-interval seconds: age = when the new output shows - the time it prints, i.e. how
                long a finished plugin's result takes to be applied by the core (distributed: worker ->
                gearmand -> the core's result thread -> the core), to one probe interval.
                End to end = latency + execution + result age.
Prints a Markdown table and one JSON line. Run as root (the daemon gets --allow-root).
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PEERS = os.path.abspath(os.path.join(ROOT, "..", "shared", "bench", "peers"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib  # noqa: E402
from benchlib import connect, pct, process_cpu_s, thread_cpu_s  # noqa: E402
GEARMAND = "/usr/sbin/gearmand"
MODULE = "/usr/lib/mod_gearman/mod_gearman_naemon.o"
KEY = "bench-Secret-Key-0123456789abcde"  # 32 bytes: all of it counts


# ------------------------------------------------------------------------------------------------------------
# Livestatus
# ------------------------------------------------------------------------------------------------------------

def ask(s, request):
    """One fixed16 JSON request on a KeepAlive connection: the decoded rows."""
    code, body = benchlib.ask(s, request + "\nOutputFormat: json")
    if code != 200:
        raise RuntimeError(body.decode()[:300])
    return json.loads(body)


# ------------------------------------------------------------------------------------------------------------
# CPU from /proc
# ------------------------------------------------------------------------------------------------------------

# ------------------------------------------------------------------------------------------------------------
# gearmand and workers
# ------------------------------------------------------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def gearmand_status(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(b"status\n")
        data = b""
        while not data.endswith(b".\n"):
            more = s.recv(65536)
            if not more:
                break
            data += more
    finally:
        s.close()
    out = {}
    for line in data.decode().splitlines():
        parts = line.split("\t")
        if len(parts) == 4:
            out[parts[0]] = [int(x) for x in parts[1:]]
    return out


def start_gearmand(workdir, port):
    proc = subprocess.Popen([GEARMAND, "--listen=127.0.0.1", "--port=%d" % port,
                             "--log-file=%s" % os.path.join(workdir, "gearmand.log"), "--verbose=WARNING"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while True:
        try:
            gearmand_status(port)
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("gearmand did not start on port %d" % port)
            time.sleep(0.05)


def stop(proc, timeout=60):
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------------------------------------------------
# one mode
# ------------------------------------------------------------------------------------------------------------

PROBES = 10
PROBE_OBJECTS = """
define command {
  command_name bench_probe
  command_line /bin/date +%s.%N
}
define host {
  use bench-host
  host_name gmprobe
  alias gmprobe
  address 127.0.0.1
}
""" + "".join("""define service {
  use bench-service
  host_name gmprobe
  service_description probe%02d
  check_command bench_probe
  check_interval 1
  retry_interval 1
  active_checks_enabled 0
}
""" % i for i in range(PROBES))


def command(live, text):
    s = connect(live)
    try:
        s.sendall(("COMMAND [%d] %s\n\n" % (int(time.time()), text)).encode())
        s.shutdown(socket.SHUT_WR)
        s.recv(4096)
    finally:
        s.close()


def probe_result_ages(live, duration, interval):
    """Result ages (s): the probe services print their finish time; age = when Livestatus shows it - that."""
    for i in range(PROBES):
        command(live, "ENABLE_SVC_CHECK;gmprobe;probe%02d" % i)
        command(live, "SCHEDULE_FORCED_SVC_CHECK;gmprobe;probe%02d;%d" % (i, int(time.time())))
    s = connect(live)
    seen = {}
    ages = []
    end = time.monotonic() + duration
    while time.monotonic() < end:
        time.sleep(interval)
        rows = ask(s, "GET services\nColumns: description plugin_output\nFilter: host_name = gmprobe")
        now = time.time()
        for desc, output in rows:
            if seen.get(desc) != output:
                seen[desc] = output
                try:
                    ages.append(now - float(output))
                except ValueError:
                    pass  # pending, or not a time (an orphan text, ...)
    s.close()
    return sorted(ages)


def worker_count(mode, args):
    """gearman: --workers; gearmanN: N; local: none."""
    if not mode.startswith("gearman"):
        return 0
    return int(mode[len("gearman"):]) if mode[len("gearman"):] else args.workers


def run_mode(mode, args, config_dir, binary):
    workdir = os.path.join(args.workdir, mode.replace(" ", "-").replace("(", "").replace(")", ""))
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.copytree(config_dir, workdir)
    # The generated files name config_dir: point them at this copy.
    with open(os.path.join(workdir, "objects.cfg"), "a") as f:
        f.write(PROBE_OBJECTS)
    for name in ("naemon.cfg",):
        path = os.path.join(workdir, name)
        with open(path) as f:
            text = f.read().replace(config_dir, workdir)
        with open(path, "w") as f:
            f.write(text)
    cfg = os.path.join(workdir, "naemon.cfg")
    live = os.path.join(workdir, "live")
    extra = ["broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o %s" % live]
    gearmand = None
    workers = []
    port = None
    enc = ["encryption=yes", "key=%s" % KEY] if args.encryption == "yes" else ["encryption=no"]
    if worker_count(mode.split()[0], args):
        port = free_port()
        gearmand = start_gearmand(workdir, port)
        for i in range(worker_count(mode.split()[0], args)):
            log = open(os.path.join(workdir, "worker-%d.log" % i), "w")
            workers.append(subprocess.Popen(
                [args.worker_bin, "server=127.0.0.1:%d" % port, "hosts=yes", "services=yes",
                 "max-worker=%d" % args.max_worker, "identifier=bench-%d" % i] + enc,
                stdout=log, stderr=subprocess.STDOUT, cwd=workdir))
        extra.append("broker_module=%s server=127.0.0.1:%d hosts=yes services=yes %s" % (MODULE, port, " ".join(enc)))
    with open(cfg, "a") as f:
        f.write("\n".join(extra) + "\n")
    for d in ("rw", "tmp", "checkresults", "archives"):
        os.makedirs(os.path.join(workdir, d), exist_ok=True)
    out = open(os.path.join(workdir, "stdout.txt"), "w")
    proc = subprocess.Popen([os.path.abspath(binary), "--allow-root", cfg], cwd=workdir,
                            stdout=out, stderr=subprocess.STDOUT)
    figures = {"mode": mode}
    try:
        benchlib.wait_for_socket(live, proc, "vedette (%s)" % mode)
        time.sleep(args.warmup)

        def cpu():
            return {"core": thread_cpu_s(proc.pid, "core"), "vedette": process_cpu_s(proc.pid),
                    "workers": sum(process_cpu_s(w.pid) for w in workers),
                    "gearmand": process_cpu_s(gearmand.pid) if gearmand else 0.0}
        since = int(time.time()) + 1
        time.sleep(since - time.time())
        cpu0 = cpu()
        time.sleep(args.window)
        cpu1 = cpu()
        until = int(time.time())
        s = connect(live)
        rows = ask(s, "GET services\nColumns: latency execution_time state\nFilter: last_check >= %d\n"
                      "Filter: last_check < %d\nFilter: host_name != gmprobe" % (since, until))
        pending = ask(s, "GET services\nFilter: host_name != gmprobe\nStats: has_been_checked = 0\n"
                         "Stats: state != 0")
        s.close()
        span = until - since
        n = len(rows)
        lat = sorted(r[0] for r in rows)
        exe = sorted(r[1] for r in rows)
        ages = probe_result_ages(live, args.probe_window, args.probe_interval)
        figures["probe_samples"] = len(ages)
        figures.update({
            "checks": n, "checks_per_s": n / span, "not_ok": sum(1 for r in rows if r[2] != 0),
            "never_checked": pending[0][0], "not_ok_total": pending[0][1],
            "latency_p50_ms": pct(lat, 50) * 1000, "latency_p99_ms": pct(lat, 99) * 1000,
            "latency_max_ms": (lat[-1] * 1000 if lat else float("nan")),
            "execution_p50_ms": pct(exe, 50) * 1000,
            "result_age_p50_ms": pct(ages, 50) * 1000, "result_age_p99_ms": pct(ages, 99) * 1000,
            "result_age_max_ms": (ages[-1] * 1000 if ages else float("nan")),
        })
        for k in ("core", "vedette", "workers", "gearmand"):
            figures[k + "_us_per_check"] = (cpu1[k] - cpu0[k]) / max(1, n) * 1e6
            figures[k + "_cpu_pct"] = (cpu1[k] - cpu0[k]) / span * 100
        if port:
            figures["gearmand_queues"] = gearmand_status(port)
        if proc.poll() is not None:
            raise RuntimeError("vedette exited during the run (%s)" % mode)
    finally:
        stop(proc)
        out.close()
        for w in workers:
            stop(w)
        stop(gearmand)
        if workers:  # "stopped after N jobs (...)": did the checks really go through the workers?
            jobs = 0
            for i in range(len(workers)):
                with open(os.path.join(workdir, "worker-%d.log" % i)) as f:
                    m = re.search(r"stopped after (\d+) jobs", f.read())
                jobs += int(m.group(1)) if m else 0
            figures["worker_jobs"] = jobs
            if jobs == 0:
                print("warning: the workers ran no job: the checks did not go through gearmand", file=sys.stderr)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "vedette"))
    ap.add_argument("--worker-bin", help="default: vedette-worker next to --bin")
    ap.add_argument("--hosts", type=int, default=10000)
    ap.add_argument("--services-per-host", type=int, default=10)
    ap.add_argument("--rate", type=float, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-worker", type=int, default=20)
    ap.add_argument("--encryption", choices=("yes", "no"), default="yes")
    ap.add_argument("--warmup", type=float, default=30)
    ap.add_argument("--window", type=float, default=60)
    ap.add_argument("--probe-window", type=float, default=20)
    ap.add_argument("--probe-interval", type=float, default=0.1)
    ap.add_argument("--modes", default="local,gearman")
    ap.add_argument("--workdir", default="/tmp/vedette-gearman-bench")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--old-bin", help="a second vedette binary: each gearman mode runs with it too")
    args = ap.parse_args()
    args.worker_bin = os.path.abspath(args.worker_bin or os.path.join(os.path.dirname(os.path.abspath(args.bin)),
                                                                       "vedette-worker"))
    modes = [m for m in args.modes.split(",") if m]
    if any(worker_count(m, args) for m in modes) and not os.access(GEARMAND, os.X_OK):
        sys.exit("%s not found: install gearman-job-server (scripts/install-deps.sh)" % GEARMAND)
    if args.window > args.hosts * args.services_per_host / args.rate:
        print("warning: --window is longer than the check interval; a service checked twice counts once",
              file=sys.stderr)

    shutil.rmtree(args.workdir, ignore_errors=True)
    config_dir = os.path.join(args.workdir, "config")
    os.makedirs(config_dir)
    subprocess.run([sys.executable, os.path.join(PEERS, "gen_config.py"), "--flavor", "naemon", "--outdir",
                    config_dir, "--hosts", str(args.hosts), "--services-per-host", str(args.services_per_host),
                    "--rate", str(args.rate), "--run-user", "root", "--run-group", "root"],
                   check=True, stdout=subprocess.DEVNULL)
    results = []
    try:
        runs = [(m, args.bin) for m in modes]
        if args.old_bin:
            runs += [(m + " (old)", args.old_bin) for m in modes if worker_count(m, args)]
        for mode, binary in runs:
            print("running %s (%ds warm-up, %ds window)..." % (mode, args.warmup, args.window), file=sys.stderr)
            results.append(run_mode(mode, args, config_dir, binary))
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)

    print("%d services, target %.0f checks/s, %s, %d workers x max-worker %d, window %ds" % (
        args.hosts * args.services_per_host, args.rate,
        "AES" if args.encryption == "yes" else "no encryption", args.workers, args.max_worker, args.window))
    print()
    print("| mode | checks/s | worker jobs | not OK | core µs/check | vedette µs/check | workers µs/check | gearmand µs/check "
          "| latency p50 ms | p99 ms | max ms | result age p50 ms | p99 ms | max ms | execution p50 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for f in results:
        print("| %s | %.1f | %s | %d | %.1f | %.1f | %s | %s | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f | %.2f |" % (
            f["mode"], f["checks_per_s"], f.get("worker_jobs", "-"), f["not_ok"], f["core_us_per_check"], f["vedette_us_per_check"],
            "%.1f" % f["workers_us_per_check"] if "worker_jobs" in f else "-",
            "%.1f" % f["gearmand_us_per_check"] if "worker_jobs" in f else "-",
            f["latency_p50_ms"], f["latency_p99_ms"], f["latency_max_ms"],
            f["result_age_p50_ms"], f["result_age_p99_ms"], f["result_age_max_ms"], f["execution_p50_ms"]))
    print(json.dumps({"services": args.hosts * args.services_per_host, "rate": args.rate, "workers": args.workers,
                      "encryption": args.encryption, "window_s": args.window, "results": results}))


if __name__ == "__main__":
    main()
