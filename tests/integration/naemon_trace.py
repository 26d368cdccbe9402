"""Runs a trace (a configuration and a sequence of external commands) on a core and records what it did.

A trace is a JSON file in tests/fixtures/naemon-traces/: `main` (extra main-config options), `objects`
(object definitions; the commands `record_*` and `check_state` below are defined for it), `steps` (external
command lines, in which `@NOW@` and `@NOW+N@` become the epoch time when the step is sent; or `@STATE name
code text`, which sets what `check_state!name` prints and returns from then on; or `@WAIT seconds`, which
lets retries and re-notifications happen) and `expected`: what Naemon 1.5.2 did,
recorded once by record_naemon_trace.py (beside this file) on the same trace with this same code. Per step, the log
lines of the kinds in LOG_KINDS (timestamps dropped) and the notification and event handler records (the
values of the macros in the record_* commands' argument lists); at the end, status.dat fields of the objects
named in `status_fields` and the JSON answers to the Livestatus queries in `livestatus` (naemon-livestatus'
module for Naemon, the built-in one for Vedette).

Both cores run the same way: as user nagios when started as root (Naemon refuses root), on one temp dir.
Stdlib only.
"""
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import time

US, RS = "\x1f", "\x1e"

SVC_NOTIFY_MACROS = [
    "NOTIFICATIONTYPE", "HOSTNAME", "SERVICEDESC", "SERVICESTATE", "SERVICESTATETYPE", "SERVICEATTEMPT",
    "MAXSERVICEATTEMPTS", "LASTSERVICESTATE", "SERVICEOUTPUT", "LONGSERVICEOUTPUT", "SERVICEPERFDATA",
    "SERVICENOTIFICATIONNUMBER", "NOTIFICATIONAUTHOR", "NOTIFICATIONCOMMENT", "SERVICEACKAUTHOR",
    "HOSTSTATE", "SERVICEDOWNTIME", "HOSTDOWNTIME", "SERVICECHECKTYPE", "NOTIFICATIONRECIPIENTS",
]
HOST_NOTIFY_MACROS = [
    "NOTIFICATIONTYPE", "HOSTNAME", "HOSTSTATE", "HOSTSTATETYPE", "HOSTATTEMPT", "MAXHOSTATTEMPTS",
    "LASTHOSTSTATE", "HOSTOUTPUT", "LONGHOSTOUTPUT", "HOSTPERFDATA", "HOSTNOTIFICATIONNUMBER",
    "NOTIFICATIONAUTHOR", "NOTIFICATIONCOMMENT", "HOSTDOWNTIME", "HOSTCHECKTYPE",
]
SVC_EVH_MACROS = ["HOSTNAME", "SERVICEDESC", "SERVICESTATE", "SERVICESTATETYPE", "SERVICEATTEMPT",
                  "LASTSERVICESTATE", "SERVICEOUTPUT", "LONGSERVICEOUTPUT", "SERVICEPERFDATA",
                  "SERVICEDOWNTIME"]
HOST_EVH_MACROS = ["HOSTNAME", "HOSTSTATE", "HOSTSTATETYPE", "HOSTATTEMPT", "LASTHOSTSTATE", "HOSTOUTPUT",
                   "HOSTDOWNTIME"]

LOG_KINDS = (
    "SERVICE ALERT: ", "HOST ALERT: ", "SERVICE NOTIFICATION: ", "HOST NOTIFICATION: ",
    "SERVICE FLAPPING ALERT: ", "HOST FLAPPING ALERT: ", "SERVICE DOWNTIME ALERT: ", "HOST DOWNTIME ALERT: ",
    "SERVICE EVENT HANDLER: ", "HOST EVENT HANDLER: ", "PASSIVE SERVICE CHECK: ", "PASSIVE HOST CHECK: ",
    "SERVICE INFO: ", "Error: External command failed",
)

# check_state!NAME: prints the text and exits with the code of the file NAME (written by @STATE).
CHECK_STATE_SH = """#!/bin/sh
read code text < "$(dirname "$0")/$1.state"
echo "$text"
exit "$code"
"""

RECORD_SH = """#!/bin/sh
# one record per call: the arguments separated by US, ended by RS and a newline
out=""
for a in "$@"; do out="$out$a$(printf '\\037')"; done
printf '%s\\036\\n' "$out" >> "$0.records"
"""


def command_objects():
    def define(name, script, macros):
        args = " ".join('"$%s$"' % m for m in macros)
        return "define command {\n  command_name %s\n  command_line $USER2$/%s %s\n}\n" % (name, script, args)
    return (define("record_notify_svc", "notify", SVC_NOTIFY_MACROS)
            + define("record_notify_host", "notify", HOST_NOTIFY_MACROS)
            + define("record_evh_svc", "evh", SVC_EVH_MACROS)
            + define("record_evh_host", "evh", HOST_EVH_MACROS)
            + "define command {\n  command_name never_run\n  command_line /bin/false\n}\n"
            + "define command {\n  command_name check_state\n  command_line $USER2$/check_state $ARG1$\n}\n")


def main_config(d, extra):
    opts = {
        "log_file": d + "/naemon.log", "object_cache_file": d + "/objects.cache",
        "precached_object_file": d + "/objects.precache", "resource_file": d + "/resource.cfg",
        "status_file": d + "/status.dat", "status_update_interval": "1", "check_external_commands": "1",
        "command_file": d + "/naemon.cmd", "query_socket": d + "/naemon.qh", "lock_file": d + "/naemon.pid",
        "temp_file": d + "/naemon.tmp", "temp_path": d, "check_result_path": d + "/checkresults",
        "state_retention_file": d + "/retention.dat", "retain_state_information": "0",
        "interval_length": "1", "enable_notifications": "1", "enable_event_handlers": "1",
        "enable_flap_detection": "1", "log_service_retries": "1", "log_host_retries": "1",
        "log_notifications": "1", "log_event_handlers": "1", "log_initial_states": "0",
        "log_external_commands": "1", "log_passive_checks": "1", "use_syslog": "0",
        "passive_host_checks_are_soft": "0", "translate_passive_host_checks": "0",
        "check_service_freshness": "0", "check_host_freshness": "0", "execute_service_checks": "1",
        "execute_host_checks": "1", "cached_host_check_horizon": "15", "illegal_macro_output_chars": "`~$&|'\"<>",
    }
    opts.update(extra)
    lines = ["%s=%s" % kv for kv in opts.items()] + ["cfg_file=%s/objects.cfg" % d]
    return "\n".join(lines) + "\n"


# Naemon's usual module line: Vedette serves its built-in Livestatus for it and loads nothing.
DEFAULT_LIVESTATUS_MODULE = "/usr/lib/naemon/naemon-livestatus/livestatus.so"


def run_as():
    if os.geteuid() != 0:
        return {}
    import pwd
    try:
        pw = pwd.getpwnam("nagios")
    except KeyError:
        return {}
    return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


def expand_time(text, now):
    return re.sub(r"@NOW(?:\+(\d+))?@", lambda m: str(int(now) + int(m.group(1) or 0)), text)


class Trace:
    """One run of a trace on a core binary (argv: the command before the main config path)."""

    def __init__(self, trace, argv, env=None, livestatus_module=DEFAULT_LIVESTATUS_MODULE):
        self.trace = trace
        self.argv = argv
        self.env = dict(os.environ, **(env or {}))
        self.dir = tempfile.mkdtemp(prefix="naemon-trace-")
        os.chmod(self.dir, 0o777)
        os.makedirs(self.path("checkresults"))
        os.chmod(self.path("checkresults"), 0o777)
        self.write("resource.cfg", "$USER1$=/usr/lib/nagios/plugins\n$USER2$=%s\n" % self.dir)
        self.write("notify", RECORD_SH, 0o755)
        self.write("evh", RECORD_SH, 0o755)
        self.write("check_state", CHECK_STATE_SH, 0o755)
        for name, text in trace.get("states", {}).items():
            self.write(name + ".state", text + "\n", 0o644)
        for name in ("notify.records", "evh.records"):
            self.write(name, "", 0o666)
        self.write("objects.cfg", command_objects() + trace["objects"])
        main = dict(trace.get("main", {}))
        if trace.get("livestatus"):
            main["broker_module"] = "%s %s" % (livestatus_module, self.path("live"))
        self.write("naemon.cfg", main_config(self.dir, main))
        self.log_offset = 0
        self.lines = []        # (step, text)
        self.records = {"notify.records": [], "evh.records": []}  # (step, fields)
        self.step = 0
        self.markers = 0       # EXTERNAL COMMAND (or parse error) lines seen: one per step sent
        self.proc = None

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text, mode=0o644):
        with open(self.path(name), "w") as f:
            f.write(text)
        os.chmod(self.path(name), mode)

    def start(self):
        out = open(self.path("engine.out"), "wb")
        self.proc = subprocess.Popen(self.argv + [self.path("naemon.cfg")], stdout=out, stderr=subprocess.STDOUT,
                                     cwd=self.dir, env=self.env, start_new_session=True, **run_as())
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the core exited at start: " + self.output())
            cmd = self.path("naemon.cmd")
            # The log has a writer thread of its own: it may appear after status.dat.
            if os.path.exists(self.path("status.dat")) and os.path.exists(self.path("naemon.log")) and \
                    os.path.exists(cmd) and stat.S_ISFIFO(os.stat(cmd).st_mode):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the core was not ready within 30 s: " + self.output())
        self.settle()

    def output(self):
        with open(self.path("engine.out"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-2000:]

    def poll(self):
        with open(self.path("naemon.log"), "rb") as f:
            f.seek(self.log_offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.log_offset += end
        changed = end > 0
        for raw in data[:end].decode("utf-8", "replace").splitlines():
            text = re.sub(r"^\[\d+\] ", "", raw)
            if text.startswith("EXTERNAL COMMAND: ") or text.startswith("Warning: External command parse"):
                self.markers += 1
            if text.startswith(LOG_KINDS):
                self.lines.append((self.step, text))
        for name, recs in self.records.items():
            with open(self.path(name), "rb") as f:
                text = f.read().decode("utf-8", "replace")
            complete = text.split(RS + "\n")[:-1]
            for fields in complete[len(recs):]:
                recs.append((self.step, fields.split(US)[:-1]))
                changed = True
        return changed

    def settle(self, quiet=0.4, timeout=10):
        """Until nothing new happens for `quiet` seconds and every notification or handler the log names
        has written its record."""
        deadline = time.time() + timeout
        last_change = time.time()
        while time.time() < deadline:
            if self.poll():
                last_change = time.time()
            logged_notes = sum(1 for _, t in self.lines if "NOTIFICATION: " in t)
            logged_handlers = sum(1 for _, t in self.lines if "EVENT HANDLER: " in t)
            complete = len(self.records["notify.records"]) >= logged_notes and \
                len(self.records["evh.records"]) >= logged_handlers
            if complete and time.time() - last_change >= quiet:
                return
            time.sleep(0.03)

    def send(self, line):
        if line.startswith("@STATE "):
            _, name, text = line.split(" ", 2)
            self.write(name + ".state.tmp", text + "\n")
            os.replace(self.path(name + ".state.tmp"), self.path(name + ".state"))
            return
        if line.startswith("@WAIT "):
            time.sleep(float(line.split()[1]))
            self.settle()
            return
        self.step += 1
        want = self.markers + 1
        fd = os.open(self.path("naemon.cmd"), os.O_WRONLY | os.O_NONBLOCK)
        try:
            now = time.time()
            os.write(fd, ("[%d] %s\n" % (now, expand_time(line, now))).encode())
        finally:
            os.close(fd)
        deadline = time.time() + 10
        while self.markers < want and time.time() < deadline:
            self.poll()
            time.sleep(0.02)
        self.settle()

    def status(self, wanted):
        """status.dat fields of the objects in `wanted` ({"service h;s": [fields], "host h": [...]}), from a
        file written after the last step."""
        mark = time.time()
        deadline = mark + 10
        while time.time() < deadline and os.path.getmtime(self.path("status.dat")) <= mark + 0.05:
            time.sleep(0.1)
        blocks = {}
        kind, fields = None, {}
        with open(self.path("status.dat"), encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.endswith("{"):
                    kind, fields = line[:-1].strip(), {}
                elif line == "}":
                    if kind == "servicestatus":
                        blocks["service %s;%s" % (fields.get("host_name"), fields.get("service_description"))] = fields
                    elif kind == "hoststatus":
                        blocks["host %s" % fields.get("host_name")] = fields
                    kind = None
                elif kind and "=" in line:
                    k, v = line.split("=", 1)
                    fields[k] = v
        return {name: {f: blocks.get(name, {}).get(f) for f in names} for name, names in wanted.items()}

    def query(self, request):
        """A Livestatus request's JSON answer (the fixed16 status is checked)."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        try:
            s.connect(self.path("live"))
            s.sendall((request.rstrip("\n") + "\nOutputFormat: json\nResponseHeader: fixed16\n\n").encode())
            data = b""
            while True:
                more = s.recv(65536)
                if not more:
                    break
                data += more
        finally:
            s.close()
        status, body = data[:16].decode(), data[16:].decode("utf-8", "replace")
        if not status.startswith("200"):
            raise RuntimeError("Livestatus answered %s to %r: %s" % (status.strip(), request, body))
        return json.loads(body)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def record(trace, argv, env=None, keep=False, livestatus_module=DEFAULT_LIVESTATUS_MODULE):
    """What the core does on the trace, in the shape of trace["expected"]."""
    run = Trace(trace, argv, env, livestatus_module)
    try:
        run.start()
        for line in trace["steps"]:
            run.send(line)
        status = run.status(trace.get("status_fields", {}))
        answers = [run.query(q) for q in trace.get("livestatus", [])]
    finally:
        run.stop()
        if not keep:
            run.cleanup()
    steps = []
    for n in range(sum(1 for line in trace["steps"] if not line.startswith("@")) + 1):
        steps.append({
            "lines": [t for s, t in run.lines if s == n],
            "notifications": sorted(f for s, f in run.records["notify.records"] if s == n),
            "eventhandlers": sorted(f for s, f in run.records["evh.records"] if s == n),
        })
    out = {"steps": steps, "status": status}
    if trace.get("livestatus"):
        out["livestatus"] = answers
    return out


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)
