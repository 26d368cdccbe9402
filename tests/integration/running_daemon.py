"""Starts the real daemon on a temporary configuration and watches its log (stdlib only).

    with RunningVedette(self, objects=OBJECTS, main_extra="max_concurrent_checks=1") as v:
        v.wait_for(r"SERVICE ALERT: web01;FILE;CRITICAL;HARD;3;")
"""
import os
import re
import signal
import subprocess
import textwrap
import time

import vedette_test

BASE_MAIN = """\
cfg_file=objects.cfg
log_file=vedette.log
command_file=vedette.cmd
object_cache_file=objects.cache
interval_length=1
cached_service_check_horizon=0
cached_host_check_horizon=0
log_service_retries=1
log_host_retries=1
log_passive_checks=1
log_external_commands=1
illegal_macro_output_chars=`~$&|'"<>
"""

# Objects every test config has: a 24x7 period, a contact and the commands the tests use.
BASE_OBJECTS = """\
define timeperiod {
  timeperiod_name 24x7
  alias always
  sunday 00:00-24:00
  monday 00:00-24:00
  tuesday 00:00-24:00
  wednesday 00:00-24:00
  thursday 00:00-24:00
  friday 00:00-24:00
  saturday 00:00-24:00
}
define timeperiod {
  timeperiod_name never
  alias never
}
define command {
  command_name notify
  command_line /bin/true
}
define command {
  command_name check_dummy
  command_line /usr/lib/nagios/plugins/check_dummy $ARG1$ "$ARG2$"
}
define command {
  command_name check_state_file
  command_line $USER1$/check_state_file.sh $ARG1$
}
define command {
  command_name run
  command_line $ARG1$
}
define contact {
  contact_name admin
  host_notification_commands notify
  service_notification_commands notify
  host_notification_period 24x7
  service_notification_period 24x7
}
"""

# A plugin the tests steer: prints the text and exits with the code written in a state file.
STATE_PLUGIN = """\
#!/bin/sh
read code text < "$1"
echo "$text"
exit "$code"
"""


# A host for the tests' services; it has no check of its own.
HOST = """
define host {
  host_name web01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  contacts admin
}
"""


def service(description, command, interval=1, attempts=1, host_name="web01", extra=""):
    """A service on `host_name` running `command` (e.g. "check_state_file!disk.state" or "run!/path/plugin");
    `extra`: more directive lines."""
    return """
define service {
  host_name %s
  service_description %s
  check_command %s
  max_check_attempts %d
  check_interval %d
  retry_interval 1
  contacts admin
%s}
""" % (host_name, description, command, attempts, interval, extra)


class RunningVedette:
    def __init__(self, testcase, objects, main_extra="", start=True, allow_root=True):
        self.testcase = testcase
        # The tests run as root with no naemon_user: like Naemon, Vedette then needs --allow-root.
        self.options = ["--allow-root"] if allow_root else []
        self.dir = vedette_test.make_temp_dir(testcase)
        self.log_path = os.path.join(self.dir, "vedette.log")
        self.cmd_path = os.path.join(self.dir, "vedette.cmd")
        plugin = os.path.join(self.dir, "check_state_file.sh")
        with open(plugin, "w") as f:
            f.write(STATE_PLUGIN)
        os.chmod(plugin, 0o755)
        with open(os.path.join(self.dir, "resource.cfg"), "w") as f:
            f.write("$USER1$=%s\n" % self.dir)
        with open(os.path.join(self.dir, "vedette.cfg"), "w") as f:
            f.write(BASE_MAIN + "resource_file=resource.cfg\n" + textwrap.dedent(main_extra) + "\n")
        with open(os.path.join(self.dir, "objects.cfg"), "w") as f:
            f.write(BASE_OBJECTS + textwrap.dedent(objects))
        self.proc = None
        if start:
            self.start()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write_objects(self, text):
        """Replaces objects.cfg (the base objects and `text`) at once, as an editor's save does."""
        with open(self.path("objects.cfg.tmp"), "w") as f:
            f.write(BASE_OBJECTS + text)
        os.replace(self.path("objects.cfg.tmp"), self.path("objects.cfg"))

    def set_state(self, name, code, text):
        """Writes the state file the check_state_file plugin reads."""
        tmp = self.path(name + ".tmp")
        with open(tmp, "w") as f:
            f.write("%d %s\n" % (code, text))
        os.replace(tmp, self.path(name))

    def start(self):
        if getattr(self, "stdout", None):  # a restart: the previous run's file
            self.stdout.close()
        self.stdout = open(self.path("stdout.txt"), "a")
        started_before = self.log().count("LOG VERSION: 2.0")  # a restart appends to the same log
        command = [vedette_test.vedette_bin()] + self.options + [self.path("vedette.cfg")]
        self.proc = subprocess.Popen(command, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=self.stdout,
                                     stderr=subprocess.STDOUT)
        self.testcase.addCleanup(self.kill)
        self.wait_for(r"LOG VERSION: 2\.0", count=started_before + 1)

    def log(self):
        return vedette_test.read_text(self.log_path)

    def wait_for(self, pattern, timeout=30, count=1):
        """Waits until `pattern` (a regex) matches `count` log lines; returns the matches."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            lines = [line for line in self.log().splitlines() if rx.search(line)]
            if len(lines) >= count:
                return lines
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError("vedette exited (%s) before %r; log:\n%s" % (self.proc.returncode, pattern,
                                                                                   self.log()))
            if time.monotonic() > deadline:
                raise AssertionError("timed out waiting for %r (%d of %d); log:\n%s" % (
                    pattern, len(lines), count, self.log()))
            time.sleep(0.05)

    def command(self, text):
        """Writes one external command line to the command file."""
        fd = os.open(self.cmd_path, os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(fd, ("[%d] %s\n" % (int(time.time()), text)).encode())
        finally:
            os.close(fd)

    def stop(self, timeout=20):
        """SIGTERM, then waits; returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if getattr(self, "stdout", None):
            self.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def wait_for_file(path, timeout=30):
    """Polls until `path` exists."""
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError("%s never appeared" % path)
        time.sleep(0.02)


def alert_lines(log, prefix):
    """The log lines that start (after the timestamp) with `prefix`, without their timestamps."""
    out = []
    for line in log.splitlines():
        text = re.sub(r"^\[\d+\] ", "", line)
        if text.startswith(prefix):
            out.append(text)
    return out
