"""Real time-series servers for the perfdata writer tests, each on loopback with free ports and its own
temporary configuration and storage: Debian's carbon-cache (graphite-carbon) and influxd (influxdb 1.x).

    with CarbonCache(self) as carbon:
        carbon.values("vedette.web01.services.HTTP.perfdata.time.value")   # [(time, value), ...]
    with Influxd(self) as influx:
        influx.query("SELECT * FROM check_tcp", db="perf")
"""
import json
import os
import socket
import subprocess
import time
import unittest
import urllib.parse
import urllib.request

import vedette_test
from gearman_fixture import free_port

CARBON_BIN = "/usr/bin/carbon-cache"
WHISPER_FETCH = "/usr/bin/whisper-fetch"
INFLUXD_BIN = "/usr/bin/influxd"


def wait_for_tcp(port, what, timeout=30):
    def accepting():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False
    vedette_test.wait_until("%s to listen on port %d" % (what, port), accepting, timeout)


def require(path, package):
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest("%s not found: install the %s package (scripts/install-deps.sh)" % (path, package))


class _Server:
    """A server process (self.proc, output in self.out) stopped at the end of the test."""

    def start(self, testcase, command, port, what):
        self.out = open(os.path.join(self.dir, what + ".out"), "w")
        self.proc = subprocess.Popen(command, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=subprocess.STDOUT)
        testcase.addCleanup(self.stop)
        wait_for_tcp(port, what)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


class CarbonCache(_Server):
    """carbon-cache in the foreground; whisper files under self.whisper_dir, one second per point."""

    def __init__(self, testcase):
        require(CARBON_BIN, "graphite-carbon")
        require(WHISPER_FETCH, "python3-whisper")
        self.dir = vedette_test.make_temp_dir(testcase, prefix="vedette-carbon-")
        self.whisper_dir = os.path.join(self.dir, "whisper")
        self.port = free_port()
        os.makedirs(self.whisper_dir)
        os.makedirs(os.path.join(self.dir, "log"))
        with open(os.path.join(self.dir, "carbon.conf"), "w") as f:
            f.write("""[cache]
STORAGE_DIR = {d}
LOCAL_DATA_DIR = {d}/whisper
WHITELISTS_DIR = {d}
CONF_DIR = {d}
LOG_DIR = {d}/log
PID_DIR = {d}
ENABLE_LOGROTATION = False
ENABLE_TAGS = False
USER =
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = 10000
MAX_CREATES_PER_MINUTE = inf
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = {line}
ENABLE_UDP_LISTENER = False
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = {pickle}
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = {query}
LOG_UPDATES = False
WHISPER_AUTOFLUSH = True
""".format(d=self.dir, line=self.port, pickle=free_port(), query=free_port()))
        with open(os.path.join(self.dir, "storage-schemas.conf"), "w") as f:
            f.write("[default]\npattern = .*\nretentions = 1s:1h\n")
        self.start(testcase, [CARBON_BIN, "--config=" + os.path.join(self.dir, "carbon.conf"),
                              "--pidfile=" + os.path.join(self.dir, "carbon.pid"), "--debug", "start"],
                   self.port, "carbon-cache")

    def path(self, metric):
        return os.path.join(self.whisper_dir, *metric.split(".")) + ".wsp"

    def values(self, metric):
        """The points stored for `metric` in the last hour, as (time, value), without the empty slots."""
        if not os.path.exists(self.path(metric)):
            return []
        out = subprocess.run([WHISPER_FETCH, "--from=%d" % (time.time() - 3500), self.path(metric)],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        points = []
        for line in out.splitlines():
            t, v = line.split()
            if v != "None":
                points.append((int(t), float(v)))
        return points

    def metrics(self):
        found = []
        for root, _, files in os.walk(self.whisper_dir):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), self.whisper_dir)
                found.append(rel[:-len(".wsp")].replace(os.sep, "."))
        return sorted(found)


class Influxd(_Server):
    """influxd 1.x with its meta, data and WAL directories in a temporary directory."""

    def __init__(self, testcase):
        require(INFLUXD_BIN, "influxdb")
        self.dir = vedette_test.make_temp_dir(testcase, prefix="vedette-influxd-")
        self.port = free_port()
        with open(os.path.join(self.dir, "influxdb.conf"), "w") as f:
            f.write("""reporting-disabled = true
bind-address = "127.0.0.1:{rpc}"
[meta]
  dir = "{d}/meta"
[data]
  dir = "{d}/data"
  wal-dir = "{d}/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  enabled = true
  bind-address = "127.0.0.1:{http}"
  log-enabled = false
""".format(d=self.dir, rpc=free_port(), http=self.port))
        self.start(testcase, [INFLUXD_BIN, "run", "-config", os.path.join(self.dir, "influxdb.conf")], self.port,
                   "influxd")
        vedette_test.wait_until("influxd to answer /ping", self._pings, 30)

    def _pings(self):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/ping" % self.port, timeout=2) as r:
                return r.status == 204
        except OSError:
            return False

    def query(self, q, db=None):
        """POSTs InfluxQL to /query; returns the decoded JSON answer."""
        params = {"q": q}
        if db:
            params["db"] = db
        data = urllib.parse.urlencode(params).encode()
        with urllib.request.urlopen("http://127.0.0.1:%d/query" % self.port, data=data, timeout=10) as r:
            return json.loads(r.read().decode())

    def rows(self, q, db):
        """The rows of the first series of the answer as dicts (column name -> value)."""
        answer = self.query(q, db)
        out = []
        for result in answer.get("results", []):
            for series in result.get("series", []):
                for values in series["values"]:
                    row = dict(zip(series["columns"], values))
                    row.update(series.get("tags", {}))
                    out.append(row)
        return out
