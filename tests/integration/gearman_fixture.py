"""A real gearmand and real vedette-worker processes for the distributed-check tests (stdlib only).

    gm = Gearmand(self)                          # /usr/sbin/gearmand on a free loopback port, killed at cleanup
    w = VedetteWorker(self, gm, "w1", "hosts=yes", "services=yes", "encryption=no")
    gm.wait_for_workers("service", 1)            # the worker has registered its queues
    gm.submit_background("check_results", payload)   # what send_gearman does (base64 done by the caller)

Each worker runs with WORKER_ID=<name> in its environment, so a plugin it runs can tell who ran it
(`echo "ran on ${WORKER_ID:-core}"`); the core runs without it. The gearman protocol parts are the
binary protocol (http://gearman.org/protocol/) and the text admin protocol, enough for a client
(SUBMIT_JOB_BG, ECHO) and a one-job worker (CAN_DO, GRAB_JOB, WORK_COMPLETE).
"""
import base64
import os
import signal
import socket
import struct
import subprocess
import time
import unittest

import vedette_test

GEARMAND = os.environ.get("GEARMAND_BIN", "/usr/sbin/gearmand")

# Packet types of the binary protocol.
CAN_DO = 1
PRE_SLEEP = 4
NOOP = 6
JOB_CREATED = 8
GRAB_JOB = 9
NO_JOB = 10
JOB_ASSIGN = 11
WORK_COMPLETE = 13
ECHO_REQ = 16
ECHO_RES = 17
SUBMIT_JOB_BG = 18
ERROR = 19


MISSING = ("%s not found: install the gearman-job-server package (scripts/install-deps.sh) to run the "
           "distributed-check tests" % GEARMAND)


def gearmand_available():
    return os.path.isfile(GEARMAND) and os.access(GEARMAND, os.X_OK)


def require_gearmand():
    if not gearmand_available():
        raise unittest.SkipTest(MISSING)


def worker_bin():
    """vedette-worker, built next to vedette (VEDETTE_BIN's directory)."""
    path = os.path.join(os.path.dirname(vedette_test.vedette_bin()), "vedette-worker")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise AssertionError("vedette-worker not found next to vedette: %s (build the vedette-worker target)" % path)
    return path


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def _recv_exactly(s, n):
    data = b""
    while len(data) < n:
        more = s.recv(n - len(data))
        if not more:
            raise ConnectionError("gearmand closed the connection")
        data += more
    return data


def _send(s, kind, *args):
    data = b"\0".join(a if isinstance(a, bytes) else a.encode() for a in args)
    s.sendall(b"\0REQ" + struct.pack(">II", kind, len(data)) + data)


def _receive(s):
    header = _recv_exactly(s, 12)
    if header[:4] != b"\0RES":
        raise ConnectionError("not a gearman response: %r" % header)
    kind, size = struct.unpack(">II", header[4:])
    return kind, _recv_exactly(s, size)


def encode_clear(text):
    """Mod-Gearman's payload with encryption=no: base64, no line breaks."""
    return base64.b64encode(text.encode()).decode()


def encode_encrypted(text, key):
    """Mod-Gearman's payload with encryption=yes (common/gm_crypt.c): the text and its NUL, zero-padded to
    whole AES blocks (a length already a multiple of 16 gets one more block, except 16 itself), AES-256-ECB
    with the key's first 32 bytes zero-padded, then base64. Encrypted by the openssl command-line tool."""
    data = text.encode() + b"\0"
    if len(data) % 16 or len(data) != 16:
        data += b"\0" * (16 - len(data) % 16)
    hex_key = (key[:32] + b"\0" * 32)[:32].hex()
    sealed = subprocess.run(["openssl", "enc", "-aes-256-ecb", "-nopad", "-K", hex_key], input=data,
                            stdout=subprocess.PIPE, check=True).stdout
    return base64.b64encode(sealed).decode()


class Gearmand:
    """gearmand on 127.0.0.1:port (a free port unless given); stop()/start() keep the port."""

    def __init__(self, testcase, port=None, start=True):
        require_gearmand()
        self.testcase = testcase
        self.dir = vedette_test.make_temp_dir(testcase, prefix="vedette-gearmand-")
        self.port = port or free_port()
        self.log_path = os.path.join(self.dir, "gearmand.log")
        self.proc = None
        self.starts = 0
        testcase.addCleanup(self.kill)
        if start:
            self.start()

    @property
    def server(self):
        return "127.0.0.1:%d" % self.port

    def start(self, timeout=15):
        self.starts += 1
        self.stderr = open(os.path.join(self.dir, "stderr-%d.txt" % self.starts), "w")
        self.proc = subprocess.Popen(
            [GEARMAND, "--listen=127.0.0.1", "--port=%d" % self.port, "--log-file=%s" % self.log_path,
             "--verbose=WARNING", "--threads=1"],
            cwd=self.dir, stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.echo(b"ping", timeout=1) == b"ping":
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise AssertionError("gearmand exited (%s) on port %d: %s" % (
                    self.proc.returncode, self.port, self.output()))
            if time.monotonic() > deadline:
                raise AssertionError("gearmand does not answer on port %d: %s" % (self.port, self.output()))
            time.sleep(0.05)

    def output(self):
        text = ""
        for name in sorted(os.listdir(self.dir)):
            with open(os.path.join(self.dir, name), errors="replace") as f:
                text += "--- %s ---\n%s" % (name, f.read()[-3000:])
        return text

    def kill(self, sig=signal.SIGKILL):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=20)
        if getattr(self, "stderr", None):
            self.stderr.close()

    def connect(self, timeout=5):
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def echo(self, data, timeout=5):
        s = self.connect(timeout)
        try:
            _send(s, ECHO_REQ, data)
            kind, answer = _receive(s)
            if kind != ECHO_RES:
                raise ConnectionError("echo answered with packet %d" % kind)
            return answer
        finally:
            s.close()

    def submit_background(self, queue, workload, unique=""):
        """SUBMIT_JOB_BG, as gearman_client_do_background; returns the job handle."""
        s = self.connect()
        try:
            _send(s, SUBMIT_JOB_BG, queue, unique, workload)
            kind, data = _receive(s)
            if kind != JOB_CREATED:
                raise AssertionError("gearmand answered %d %r to a background job" % (kind, data))
            return data.decode()
        finally:
            s.close()

    def admin(self, command):
        """A text-protocol command ("status", "workers"): the lines up to the final ".". """
        s = self.connect()
        try:
            s.sendall((command + "\n").encode())
            data = b""
            while not (data.endswith(b"\n.\n") or data == b".\n"):
                more = s.recv(65536)
                if not more:
                    break
                data += more
            return [line for line in data.decode().splitlines() if line != "."]
        finally:
            s.close()

    def status(self):
        """{queue: (jobs queued or running, jobs running, workers registered)}."""
        out = {}
        for line in self.admin("status"):
            parts = line.split("\t")
            if len(parts) == 4:
                out[parts[0]] = tuple(int(x) for x in parts[1:])
        return out

    def wait_for_workers(self, queue, count=1, timeout=15):
        deadline = time.monotonic() + timeout
        while True:
            got = self.status().get(queue, (0, 0, 0))[2]
            if got >= count:
                return
            if time.monotonic() > deadline:
                raise AssertionError("%d of %d workers on queue %r; status: %r" % (
                    got, count, queue, self.status()))
            time.sleep(0.05)

    def grab_one(self, queue, timeout=10):
        """Acts as a worker on `queue` for one job: completes it and returns its workload (bytes)."""
        s = self.connect(timeout)
        try:
            _send(s, CAN_DO, queue)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                _send(s, GRAB_JOB)
                kind, data = _receive(s)
                while kind == NOOP:
                    kind, data = _receive(s)
                if kind == JOB_ASSIGN:
                    handle, _function, workload = data.split(b"\0", 2)
                    _send(s, WORK_COMPLETE, handle, b"")
                    return workload
                if kind != NO_JOB:
                    raise AssertionError("gearmand answered %d %r to GRAB_JOB" % (kind, data))
                time.sleep(0.05)
            raise AssertionError("no job on queue %r within %ss" % (queue, timeout))
        finally:
            s.close()


class VedetteWorker:
    """One vedette-worker process (options are its key=value arguments; server= is added); stderr to a file."""

    def __init__(self, testcase, gearmand, name, *options, env=None, start=True):
        self.testcase = testcase
        self.gearmand = gearmand
        self.name = name
        self.options = list(options)
        if not any(o.startswith("server=") for o in self.options):
            self.options.insert(0, "server=%s" % gearmand.server)
        if not any(o.startswith("identifier=") for o in self.options):
            self.options.append("identifier=%s" % name)
        self.dir = vedette_test.make_temp_dir(testcase, prefix="vedette-worker-")
        self.log_path = os.path.join(self.dir, "worker.log")
        self.env = dict(os.environ)
        self.env["WORKER_ID"] = name
        self.env.update(env or {})
        self.proc = None
        testcase.addCleanup(self.kill)
        if start:
            self.start()

    def start(self):
        self.log_file = open(self.log_path, "a")
        self.proc = subprocess.Popen([worker_bin()] + self.options, cwd=self.dir, env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=self.log_file, stderr=subprocess.STDOUT)
        time.sleep(0.05)
        if self.proc.poll() is not None:
            raise AssertionError("vedette-worker %s exited (%s): %s" % (self.name, self.proc.returncode, self.log()))

    def log(self):
        return vedette_test.read_text(self.log_path)

    def wait_for(self, text, timeout=15):
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if time.monotonic() > deadline:
                raise AssertionError("worker %s never logged %r; log:\n%s" % (self.name, text, self.log()))
            time.sleep(0.05)

    def kill(self, sig=signal.SIGKILL):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log_file", None):
            self.log_file.close()

    def stop(self):
        self.kill(signal.SIGTERM)
        return self.proc.returncode
