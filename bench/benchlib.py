"""What the Python benchmarks share: Livestatus over a Unix socket (fixed16, KeepAlive), CPU time of a
process and of its named threads from /proc, percentiles. Import with the bench/ folder on sys.path."""
import os
import socket
import subprocess
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def wait_for_socket(path, proc, what="vedette", timeout=120):
    """Until the Livestatus socket at `path` accepts; RuntimeError if `proc` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            connect(path).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("%s did not start" % what)
            time.sleep(0.1)


def recv_exactly(s, n):
    parts, got = [], 0
    while got < n:
        b = s.recv(min(1 << 20, n - got))
        if not b:
            raise RuntimeError("connection closed")
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def ask(s, request):
    """One fixed16 request on a KeepAlive connection: (code, body bytes)."""
    s.sendall((request + "\nKeepAlive: on\nResponseHeader: fixed16\n\n").encode())
    header = recv_exactly(s, 16)
    code, size = int(header[:3]), int(header[4:15])
    return code, recv_exactly(s, size)


def _task_cpu_s(pid, tid):
    """CPU time of one thread: schedstat's run time (ns resolution), else utime+stime in clock ticks."""
    try:
        with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_cpu_s(pid, name):
    """CPU of the threads named `name` (e.g. the core thread, "core")."""
    total = 0.0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() != name:
                    continue
            total += _task_cpu_s(pid, tid)
        except OSError:
            continue
    return total


def process_cpu_s(pid):
    """CPU of a process's live threads (its children, the plugins, not included)."""
    total = 0.0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return 0.0
    for tid in tids:
        try:
            total += _task_cpu_s(pid, tid)
        except OSError:
            continue
    return total


def pct(values, p):
    """The p-th percentile of sorted `values` (nan when empty)."""
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(p / 100.0 * len(values)))]


def stop(proc, timeout=60):
    """SIGTERM, then SIGKILL if `proc` has not exited within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
