#!/usr/bin/env python3
"""One passive-result ingest run: M PROCESS_SERVICE_CHECK_RESULT lines through the command FIFO into the real
daemon, as fast as the FIFO takes them; prints one JSON line of figures. run.sh repeats it and takes medians.

    bench/passive_ingest/ingest.py [--bin build/release/vedette] [--hosts 1000] [--services-per-host 10]
                                   [--results 1000000] [--log-passive 0] [--codes 0] [--chunk-bytes 262144]
                                   [--window 0.25] [--workdir /tmp/vedette-passive-ingest] [--label A]
                                   [--keep] [--wrapper "valgrind ..."]

Instructions per result, for A/B on a noisy machine where CPU time wanders by +-40 % between runs (no
hardware counters in the VM): count them with callgrind inside the FIFO handler only, with fewer results:

    bench/passive_ingest/ingest.py --bin B --results 200000 --wrapper "valgrind --tool=callgrind \
        --collect-atstart=no --toggle-collect='vedette::commands::CommandReader::on_ready*' \
        --callgrind-out-file=/tmp/ingest.callgrind"   # then: callgrind_annotate /tmp/ingest.callgrind

and once with --results 0 (only the sentinel and the padding); per result = (Ir(M) - Ir(0)) / M.

The config is bench/gen_config.py's (H hosts x S services), with active host and service checks off so only
passive results move state. The feeder (this process) builds every line first, then writes them in
--chunk-bytes writes, rotating over all services; line k is for service k mod N and carries k in its output
and perfdata. After the results it writes a LOG sentinel and 1 MiB of blank lines.

Figures:
  rate            M / (end - first write). end: the FIFO is empty (FIONREAD 0) after the blank padding, which is
                  larger than one read of the daemon's, so the last read held no result and every result had
                  been applied before it began (the padding costs the core a few ms, not counted out).
  core_us         utime+stime of the thread named `core` (/proc/PID/task/TID/stat), delta over the run / M.
  proc_us         the same for the whole process (every thread: log writer, status writer...).
  rss_peak_kb     VmHWM at the end; rss_start_kb is VmRSS before the first write.
  core_run_us     the core thread's time on a CPU from schedstat (ns), the same as core_us without the ticks'
                  10 ms resolution.
  feeder_us       this process's CPU (writes into the pipe), for judging whether the feeder was the limit.
  min_window_rate the slowest --window of the feed after the first, from the writes' timestamps (the pipe's
                  1 MiB in flight lets a window be ~12k lines off): how steady the rate is, not just its mean.
No loss: after SIGTERM, retention.dat must hold, for every service, the output and perfdata of the last line
sent to it; the daemon must have read every byte written (/proc/PID/io rchar); the log must hold no parse or
"could not be found" warnings; and with --log-passive 1 it must hold exactly M `PASSIVE SERVICE CHECK:` lines.
"""
import argparse
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.dont_write_bytecode = True  # no __pycache__ left in the tree
import gen_config  # noqa: E402

PADDING_BYTES = 1 << 20  # > any single read of the daemon (128 KiB today), see "end" above
CLK_TCK = os.sysconf("SC_CLK_TCK")
WORDS = {0: "OK", 1: "WARNING", 2: "CRITICAL", 3: "UNKNOWN"}  # output text per return code


def service_names(services_per_host):
    """The services gen_config gives every host, in file order: PING and Role are applied by hostgroup."""
    applied = ["PING", "Role"][:min(services_per_host, 2)]
    return applied + [gen_config.svc_name(j) for j in range(services_per_host - len(applied))]


def ensure_config(workdir, hosts, per_host):
    outdir = os.path.join(workdir, "config-%dx%d" % (hosts, per_host))
    marker = os.path.join(outdir, "vedette.cfg")
    if not os.path.exists(marker):
        gen_config.generate(outdir, hosts, per_host)
    return outdir


def write_main_config(confdir, rundir, log_passive, state_changes):
    """The generated vedette.cfg, with run-time paths under rundir and the benchmark's settings."""
    var = os.path.join(rundir, "var")
    for sub in ("rw", "tmp", "checkresults", "archives"):
        os.makedirs(os.path.join(var, sub), exist_ok=True)
    overrides = {
        "execute_service_checks": "0",
        "execute_host_checks": "0",
        "log_passive_checks": str(log_passive),
    }
    if state_changes:
        # State changes would spawn the notification and event handler commands: not what is measured here.
        overrides.update(enable_notifications="0", enable_event_handlers="0")
    lines = []
    with open(os.path.join(confdir, "vedette.cfg")) as f:
        for line in f:
            line = line.rstrip("\n").replace(os.path.join(confdir, "var"), var)
            key = line.split("=", 1)[0]
            if key in overrides:
                line = "%s=%s" % (key, overrides.pop(key))
            lines.append(line)
    lines += ["%s=%s" % kv for kv in overrides.items()]
    path = os.path.join(rundir, "vedette.cfg")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, os.path.join(var, "rw", "vedette.cmd"), os.path.join(var, "vedette.log"), \
        os.path.join(var, "retention.dat")


def build_chunks(hosts, names, results, codes, chunk_bytes, now):
    """The lines, joined into writes of about chunk_bytes that end on a line; and the lines in each."""
    services = [(gen_config.host_name(h), s) for h in range(hosts) for s in names]
    n = len(services)
    chunks, counts = [], []
    lines = []
    size = 0
    for k in range(results):
        host, svc = services[k % n]
        code = codes[(k // n) % len(codes)]
        line = "[%d] PROCESS_SERVICE_CHECK_RESULT;%s;%s;%d;%s - passive seq %d|seq=%d\n" % (
            now, host, svc, code, WORDS[code], k, k)
        lines.append(line)
        size += len(line)
        if size >= chunk_bytes:
            chunks.append("".join(lines).encode())
            counts.append(len(lines))
            lines, size = [], 0
    if lines:
        chunks.append("".join(lines).encode())
        counts.append(len(lines))
    return services, chunks, counts


def expected_last(services, results, codes):
    """service (host, description) -> (output, perfdata) of the last line sent to it."""
    n = len(services)
    out = {}
    for i, svc in enumerate(services):
        if i >= results:
            break
        k = i + n * ((results - 1 - i) // n)
        out[svc] = ("%s - passive seq %d" % (WORDS[codes[(k // n) % len(codes)]], k), "seq=%d" % k)
    return out


def ticks(path):
    """utime + stime from a /proc .../stat file, in seconds."""
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of proc(5)


def proc_status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def proc_io(pid):
    with open("/proc/%d/io" % pid) as f:
        return {k: int(v) for k, v in (line.split(": ") for line in f)}


def core_tid(pid):
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().strip() == "core":
                return int(tid)
    return pid  # the main thread is the core thread


def runtime(path):
    """Time on a CPU in seconds, from a schedstat file: ns, where stat's utime+stime count 10 ms ticks."""
    with open(path) as f:
        return int(f.read().split()[0]) / 1e9


def ctxt(pid, tid):
    path = "/proc/%d/task/%d/status" % (pid, tid)
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                key, value = line.split(":")
                out[key] = int(value)
    return out


def snapshot(pid, tid):
    return {
        "t": time.monotonic(),
        "core": ticks("/proc/%d/task/%d/stat" % (pid, tid)),
        "core_run": runtime("/proc/%d/task/%d/schedstat" % (pid, tid)),
        "proc": ticks("/proc/%d/stat" % pid),
        "io": proc_io(pid),
        "ctxt": ctxt(pid, tid),
        "feeder": sum(os.times()[:2]),
    }


def wait_fifo(path, proc, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("daemon exited with %d before creating the command FIFO" % proc.returncode)
        try:
            if stat.S_ISFIFO(os.stat(path).st_mode):
                return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise SystemExit("no command FIFO at %s after %d s" % (path, timeout))


def wait_quiet(pid, timeout=20.0):
    """Until the start-up work (status.dat, objects.cache...) is done: no CPU used for 0.5 s."""
    deadline = time.monotonic() + timeout
    last = ticks("/proc/%d/stat" % pid)
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = ticks("/proc/%d/stat" % pid)
        if now != last:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= 0.5:
            return


def fifo_unread(fd):
    buf = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, buf)
    return int.from_bytes(buf, sys.byteorder)


def wait_in_log(log_path, needle, timeout):
    """Scans the log as it grows until `needle` appears; returns the log's size then. Nothing much is logged
    after the needle, so only the last MiB written since the previous look is read: the whole log of a
    --log-passive 1 run (~200 bytes per result) would take this process longer than the daemon."""
    deadline = time.monotonic() + timeout
    offset = 0
    tail = b""
    while time.monotonic() < deadline:
        try:
            with open(log_path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size - offset > (1 << 20):
                    offset, tail = size - (1 << 20), b""
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            data = b""
        if data:
            offset += len(data)
            if needle in tail + data:
                return offset
            tail = data[-len(needle):]
        else:
            time.sleep(0.002)
    raise SystemExit("'%s' not in %s after %d s" % (needle.decode(), log_path, timeout))


def count_log(log_path):
    counts = {"passive": 0, "external": 0, "warnings": 0}
    warning = re.compile(rb"External command parse error|could not be found")
    with open(log_path, "rb") as f:
        for line in f:
            if b"] PASSIVE SERVICE CHECK: " in line:
                counts["passive"] += 1
            elif b"] EXTERNAL COMMAND: PROCESS_SERVICE_CHECK_RESULT;" in line:
                counts["external"] += 1
            elif warning.search(line):
                counts["warnings"] += 1
    return counts


def parse_retention(path):
    """(host, description) -> (plugin_output, performance_data) of every service block."""
    out = {}
    block = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line == "service {":
                block = {}
            elif block is not None and line.strip() == "}":
                out[(block.get("host_name"), block.get("service_description"))] = (
                    block.get("plugin_output"), block.get("performance_data"))
                block = None
            elif block is not None:
                key, _, value = line.strip().partition("=")
                block[key] = value
    return out


def window_rates(marks, width):
    """Lines per second written in each whole window after the first (which fills the empty pipe at once)."""
    rates = []
    j = 0
    t = width
    while t + width <= marks[-1][0]:
        while marks[j][0] < t:
            j += 1
        k = j
        while k < len(marks) and marks[k][0] < t + width:
            k += 1
        rates.append(round((marks[k - 1][1] - marks[j - 1][1]) / width))
        t += width
    return rates


def run(a):
    workdir = os.path.abspath(a.workdir)
    confdir = ensure_config(workdir, a.hosts, a.services_per_host)
    rundir = os.path.join(workdir, "run-%s-%d" % (a.label, os.getpid()))
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    codes = [int(c) for c in a.codes.split(",")]
    cfg, fifo_path, log_path, retention_path = write_main_config(
        confdir, rundir, a.log_passive, any(c != 0 for c in codes))

    services, chunks, counts = build_chunks(a.hosts, service_names(a.services_per_host), a.results, codes,
                                            a.chunk_bytes, int(time.time()))
    nonce = "passive-ingest done %d-%d" % (os.getpid(), int(time.time()))
    tail = ("[%d] LOG;%s\n" % (int(time.time()), nonce)).encode() + b"\n" * PADDING_BYTES
    fed_bytes = sum(len(c) for c in chunks) + len(tail)

    cmd = shlex.split(a.wrapper) + [os.path.abspath(a.bin)] + (["--allow-root"] if os.geteuid() == 0 else []) + [cfg]
    with open(os.path.join(rundir, "stderr.txt"), "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=rundir)
    try:
        wait_fifo(fifo_path, proc, 120)
        wait_quiet(proc.pid)
        tid = core_tid(proc.pid)
        fd = os.open(fifo_path, os.O_WRONLY)
        with open("/proc/loadavg") as f:
            load_1m = float(f.read().split()[0])  # the machine is shared: how busy it was, to judge the noise
        rss_start = proc_status(proc.pid, "VmRSS")
        before = snapshot(proc.pid, tid)
        t0 = time.monotonic()
        marks = [(0.0, 0)]
        written = 0
        for chunk, lines in zip(chunks, counts):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
            written += lines
            marks.append((time.monotonic() - t0, written))
        t_last_write = time.monotonic() - t0
        feeder_cpu = sum(os.times()[:2]) - before["feeder"]
        view = memoryview(tail)
        while view:
            view = view[os.write(fd, view):]
        while fifo_unread(fd) != 0:
            time.sleep(0.0005)
        t_end = time.monotonic() - t0
        # The sentinel is in the log once the writer thread has caught up with everything before it.
        wait_in_log(log_path, nonce.encode(), 600)
        t_logged = time.monotonic() - t0
        after = snapshot(proc.pid, tid)
        rss_peak = proc_status(proc.pid, "VmHWM")
        os.close(fd)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)

    log_counts = count_log(log_path)
    retained = parse_retention(retention_path)
    wanted = expected_last(services, a.results, codes)
    wrong = [(svc, retained.get(svc), want) for svc, want in wanted.items() if retained.get(svc) != want]
    rchar = after["io"]["rchar"] - before["io"]["rchar"]
    reads = after["io"]["syscr"] - before["io"]["syscr"]
    checks = {
        "last_output_per_service": not wrong,
        "all_bytes_read": rchar >= fed_bytes,
        "no_warnings": log_counts["warnings"] == 0,
    }
    if a.log_passive:
        checks["passive_lines_eq_results"] = log_counts["passive"] == a.results
    m = a.results

    def per_result(seconds):  # µs; none for --results 0, a run of only the sentinel and padding
        return round(seconds * 1e6 / m, 3) if m else None

    rates = window_rates(marks, a.window)
    result = {
        "label": a.label,
        "loadavg_1m": load_1m,
        "log_passive": a.log_passive,
        "codes": a.codes,
        "services": len(services),
        "results": m,
        "chunk_bytes": a.chunk_bytes,
        "seconds": round(t_end, 3),
        "rate": round(m / t_end) if t_end > 0 else None,
        "feeder_seconds": round(t_last_write, 3),
        "logged_seconds": round(t_logged, 3),
        "min_window_rate": min(rates) if rates else None,
        "windows": len(rates),
        "core_us": per_result(after["core"] - before["core"]),
        "core_run_us": per_result(after["core_run"] - before["core_run"]),
        "proc_us": per_result(after["proc"] - before["proc"]),
        "rss_start_kb": rss_start,
        "rss_peak_kb": rss_peak,
        "read_calls": reads,
        "bytes_per_read": round(rchar / reads) if reads else None,
        "feeder_us": per_result(feeder_cpu),
        "core_ctxt": {k: after["ctxt"][k] - before["ctxt"][k] for k in after["ctxt"]},
        "log_passive_lines": log_counts["passive"],
        "log_external_lines": log_counts["external"],
        "log_warnings": log_counts["warnings"],
        "wrong_services": len(wrong),
        "checks": checks,
        "no_loss": all(checks.values()),
    }
    if wrong:
        print("first wrong service: %r" % (wrong[0],), file=sys.stderr)
    if not a.keep:
        shutil.rmtree(rundir, ignore_errors=True)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "vedette"))
    p.add_argument("--hosts", type=int, default=1000)
    p.add_argument("--services-per-host", type=int, default=10)
    p.add_argument("--results", type=int, default=1000000)
    p.add_argument("--log-passive", type=int, choices=(0, 1), default=0, help="log_passive_checks")
    p.add_argument("--codes", default="0",
                   help="return codes cycled per round over all services, e.g. 0,2 (any non-zero code turns "
                        "notifications and event handlers off)")
    p.add_argument("--chunk-bytes", type=int, default=256 * 1024, help="bytes per write(2) of the feeder")
    p.add_argument("--window", type=float, default=0.25, help="seconds per window of min_window_rate")
    p.add_argument("--workdir", default="/tmp/vedette-passive-ingest")
    p.add_argument("--label", default="A", help="names the binary in the output (A/B runs)")
    p.add_argument("--keep", action="store_true", help="keep the run directory (log, retention.dat)")
    p.add_argument("--wrapper", default="",
                   help="a command the daemon runs under, e.g. callgrind for instruction counts, which the "
                        "load of a shared machine does not change (see the usage above)")
    a = p.parse_args()
    print(json.dumps(run(a)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
