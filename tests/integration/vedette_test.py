"""Shared helpers for the integration tests (stdlib only).

ctest runs each tests/integration/test_*.py with this directory as working directory and passes
VEDETTE_BIN (the built binary) and VEDETTE_SOURCE_DIR (the repository root) in the environment.
Run by hand: `VEDETTE_BIN=build/release/vedette python3 -m unittest -v test_x` from this directory.
"""
import os
import re
import shutil
import subprocess
import time
import sys
import tempfile
import unittest

_HERE = os.path.dirname(os.path.abspath(__file__))

NAGIOS_BIN = os.environ.get("NAGIOS_BIN", "/usr/sbin/nagios4")
# Every daemon a test starts compares each snapshot it brings up to date with a full copy, and aborts when
# they differ (engine/state/state_table.hpp): an engine change that writes an object without marking it fails here.
os.environ.setdefault("VEDETTE_VERIFY_SNAPSHOTS", "1")
DEFAULT_TIMEOUT = 300


def source_dir():
    """Repository root: VEDETTE_SOURCE_DIR, else two levels above this file."""
    return os.path.abspath(os.environ.get("VEDETTE_SOURCE_DIR") or os.path.join(_HERE, "..", ".."))


def vedette_bin():
    """Path of the vedette binary (VEDETTE_BIN, else build/release/vedette); fails if it is not there."""
    path = os.environ.get("VEDETTE_BIN") or os.path.join(source_dir(), "build", "release", "vedette")
    path = os.path.abspath(path)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise AssertionError("vedette binary not found or not executable: %s "
                             "(build it with `make build`, or set VEDETTE_BIN)" % path)
    return path


def sanitized():
    """Whether the binary runs under AddressSanitizer, whose shadow memory and quarantine make RSS no measure."""
    out = subprocess.run(["ldd", vedette_bin()], capture_output=True, text=True).stdout
    return "libasan" in out


def nagios_available():
    return os.path.isfile(NAGIOS_BIN) and os.access(NAGIOS_BIN, os.X_OK)


def require_nagios():
    """Raise SkipTest with a clear message when Nagios 4 is not installed."""
    if not nagios_available():
        raise unittest.SkipTest("%s not found: install the nagios4-core package "
                                "(scripts/install-deps.sh) to run the differential tests" % NAGIOS_BIN)


def make_temp_dir(testcase=None, prefix="vedette-test-"):
    """A fresh directory, removed when the test (or, with no testcase, the interpreter) ends.

    Mode 0755: `nagios4 -v` run as root drops to the nagios user before its last checks and must
    be able to traverse into the directory.
    """
    path = tempfile.mkdtemp(prefix=prefix)
    os.chmod(path, 0o755)
    if testcase is not None:
        testcase.addCleanup(shutil.rmtree, path, True)
    else:
        import atexit
        atexit.register(shutil.rmtree, path, True)
    return path


def read_text(path):
    """A log file's text so far ("" before it exists); bad bytes replaced."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def wait_until(what, predicate, timeout=20, describe=lambda: ""):
    """Polls `predicate` until it returns something true (returned) or `timeout` seconds pass (an
    AssertionError naming `what`, with describe()'s text)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s; %s" % (what, describe()))
        time.sleep(0.1)


def start_daemon(testcase, config_path):
    """Starts vedette on `config_path` (its directory the working directory), output discarded; killed
    when the test ends."""
    proc = subprocess.Popen([vedette_bin(), "--allow-root", config_path], cwd=os.path.dirname(config_path),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    testcase.addCleanup(lambda: (proc.kill(), proc.wait()))
    return proc


def run_verify(path, binary=None, timeout=DEFAULT_TIMEOUT):
    """Run `<binary> -v <path>` (binary defaults to vedette); returns (exit_code, stdout, stderr)."""
    binary = binary or vedette_bin()
    proc = subprocess.run([binary, "-v", path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout, text=True, errors="replace")
    return proc.returncode, proc.stdout, proc.stderr


def run_nagios_verify(path, timeout=DEFAULT_TIMEOUT):
    return run_verify(path, binary=NAGIOS_BIN, timeout=timeout)


_CHECKED = re.compile(r"^\s*Checked (\d+) (.+?)\.?\s*$")
_SECTION = re.compile(r"^Checking (.+?)\.\.\.\s*$")


def parse_counts(stdout):
    """Every "Checked N <kind>" line of `-v` output as a dict.

    Lines under "Checking objects..." are keyed by kind ("services", "host groups", "time periods");
    under any later section by "<section>: <kind>", e.g. "circular paths: hosts", so the two
    "Checked N hosts" lines do not collide.
    """
    counts = {}
    section = None
    for line in stdout.splitlines():
        m = _SECTION.match(line)
        if m:
            section = re.sub(r"^for ", "", m.group(1))
            continue
        m = _CHECKED.match(line)
        if m:
            kind = m.group(2)
            key = kind if section in (None, "objects") else "%s: %s" % (section, kind)
            counts[key] = int(m.group(1))
    return counts


def parse_totals(stdout):
    """(warnings, errors) from the "Total Warnings:" / "Total Errors:" lines; None where missing."""
    w = re.search(r"^Total Warnings:\s+(\d+)\s*$", stdout, re.M)
    e = re.search(r"^Total Errors:\s+(\d+)\s*$", stdout, re.M)
    return (int(w.group(1)) if w else None, int(e.group(1)) if e else None)


def gen_config_module():
    """bench/gen_config.py imported as a module."""
    bench = os.path.join(source_dir(), "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import gen_config  # noqa: E402
    return gen_config


def describe(name, rc, out, err, limit=4000):
    """Failure message text for one run."""
    return "%s exited %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (name, rc, out[-limit:], err[-limit:])
