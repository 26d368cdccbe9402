"""kill -9 of the real daemon: retention.dat is never left half-written, and the next start resumes from it.

retention.dat is written into an unnamed temp file (O_TMPFILE) in the same directory, fsynced, named
`<file>XXXXXX` and renamed over the file (files/atomic_file.hpp), so a crash at any moment leaves either the
previous complete file or the new one, and a save it interrupts leaves no temp file behind (Naemon's named
temp files pile up, one per crash).
"""
import os
import random
import re
import time
import unittest

import status_dat
import vedette_test
from acknowledged_fixture import OBJECTS, RETENTION, times
from running_daemon import RunningVedette

# retention_update_interval is in interval_length units (Naemon's sretention.c), and running_daemon's
# BASE_MAIN sets interval_length=1: an auto-save every second.
MAIN = """\
retain_state_information=1
state_retention_file=retention.dat
retention_update_interval=1
status_file=status.dat
status_update_interval=1
log_initial_states=1
"""

# mkstemp replaces XXXXXX with letters and digits.
RETENTION_TEMP = re.compile(r"^retention\.dat[A-Za-z0-9]{6}$")
ANY_TEMP = re.compile(r"^(?:retention\.dat|objects\.cache|status\.dat\.)[A-Za-z0-9]{6}$")

_BRACE_AT_LINE_END = re.compile(r"[{}]\n")
_OPEN_LINE = re.compile(r"\w+ \{")
# A line that is neither "key=value", a block's first or last line, nor a comment (an empty line too).
_STRAY_LINE = re.compile(r"(?m)^(?![^\n]*=)(?!\w+ \{$)(?!\}$)(?!#)[^\n]*\n")


def parse_retention(text, where="retention.dat", fields_of=None):
    """Checks that `text` is a complete retention.dat and returns its blocks: [(kind, {key: value})].

    Complete: only comment lines before the first block, every block closed before the next one opens,
    nothing but key=value lines inside blocks, nothing between blocks, and the file ends with a closed
    block and its newline. The fields are parsed only for the block kinds in `fields_of` (all when None;
    the others get {}), so checking a 10 MB file takes a fraction of a second.
    """
    def fail(message, pos):
        line = text.count("\n", 0, pos) + 1
        raise AssertionError("%s is not complete: %s at line %d (%d bytes); near:\n%s" % (
            where, message, line, len(text), text[max(0, pos - 300):pos + 300]))

    if not text.endswith("}\n"):
        fail("it does not end with a closed block", len(text))
    stray = _STRAY_LINE.search(text)
    if stray:
        fail("a line that is not key=value: %r" % stray.group(0), stray.start())
    blocks = []
    open_kind = None
    open_end = 0
    previous_end = 0
    for m in _BRACE_AT_LINE_END.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        line = text[start:m.end() - 1]
        if line == "}":
            if open_kind is None:
                fail("'}' with no block open", start)
            if fields_of is None or open_kind in fields_of:
                body = text[open_end:start]
                fields = dict(line.split("=", 1) for line in body.split("\n") if line)
            else:
                fields = {}
            blocks.append((open_kind, fields))
            open_kind = None
            previous_end = m.end()
        elif _OPEN_LINE.fullmatch(line):
            kind = line[:-2]
            if open_kind is not None:
                fail("block '%s' opened before '%s' was closed" % (kind, open_kind), start)
            between = text[previous_end:start]
            if blocks and between:
                fail("text between blocks: %r" % between[:200], previous_end)
            if not blocks and any(line and not line.startswith("#") for line in between.split("\n")):
                fail("text before the first block", 0)
            open_kind, open_end = kind, m.end()
        # else: a value that ends with a brace
    if open_kind is not None:
        fail("block '%s' never closed" % open_kind, open_end)
    if not blocks or blocks[0][0] != "info":
        fail("the first block is not info", 0)
    return blocks


def read_text(path):
    with open(path, errors="replace") as f:
        return f.read()


def temp_files(directory, pattern=ANY_TEMP):
    return {name for name in os.listdir(directory) if pattern.match(name)}


def writes_in_progress(pid, directory):
    """The unnamed temp files the daemon has open in `directory` (O_TMPFILE: "<dir>/#<inode> (deleted)"):
    one per save of retention.dat or status.dat under way."""
    out = set()
    fds = "/proc/%d/fd" % pid
    try:
        names = os.listdir(fds)
    except FileNotFoundError:
        return out
    for fd in names:
        try:
            target = os.readlink(os.path.join(fds, fd))
        except OSError:
            continue
        if target.startswith(directory + "/#") and target.endswith(" (deleted)"):
            out.add(target)
    return out


def wait_for_saves(pid, directory, count, timeout):
    """Polls the daemon's open files until `count` saves have been seen under way (each lasts the tens of ms
    of its write); returns them in order."""
    seen = []
    deadline = time.monotonic() + timeout
    while len(seen) < count and time.monotonic() < deadline:
        for name in sorted(writes_in_progress(pid, directory) - set(seen)):
            seen.append(name)
        if len(seen) < count:
            time.sleep(0.001)
    return seen


def by_name(blocks, kind):
    out = {}
    for k, fields in blocks:
        if k == kind:
            name = fields.get("host_name", "")
            if "service_description" in fields:
                name += ";" + fields["service_description"]
            out[name] = fields
    return out


def retention_problems(log):
    """Log lines that are errors or warnings (the daemon's retention messages start with these words)."""
    return [line for line in log.splitlines() if re.search(r"\b(Error|Warning)\b", line)]


def wait_until(predicate, timeout, what):
    return vedette_test.wait_until(what, predicate, timeout)


def restart(v, runs):
    """Keeps the log of the run that just ended in `runs` and starts a fresh one (so wait_for only sees the
    new run's lines)."""
    if os.path.exists(v.log_path):
        runs.append(read_text(v.log_path))
        os.rename(v.log_path, v.path("run-%d.log" % len(runs)))
    v.start()


def generated_objects(hosts, services_per_host):
    """hosts x services_per_host services running /bin/true once an hour: big files, few checks."""
    out = ["""
define host {
  name crash-host
  register 0
  check_command run!/bin/true
  max_check_attempts 1
  check_interval 0
  contacts admin
}
define service {
  name crash-service
  register 0
  check_command run!/bin/true
  max_check_attempts 1
  check_interval 3600
  retry_interval 60
  contacts admin
}
"""]
    for h in range(hosts):
        out.append("define host {\n  use crash-host\n  host_name host%03d\n  address 127.0.0.1\n}\n" % h)
        for s in range(services_per_host):
            out.append("define service {\n  use crash-service\n  host_name host%03d\n"
                       "  service_description svc%03d\n}\n" % (h, s))
    return "".join(out)


class KillDuringSaves(unittest.TestCase):
    HOSTS = 100
    SERVICES_PER_HOST = 100  # 10,000 services: an ~11 MB retention.dat, tens of ms per save
    ITERATIONS = 21

    def test_kill_9_at_any_moment_leaves_a_complete_retention_dat(self):
        services = self.HOSTS * self.SERVICES_PER_HOST
        # No status.dat: its saves would be unnamed temp files in the same directory too, and wait_for_saves
        # could not tell them from retention.dat's.
        v = RunningVedette(self, objects=generated_objects(self.HOSTS, self.SERVICES_PER_HOST),
                           main_extra=MAIN.replace("status_file=status.dat", "status_file=/dev/null"), start=False)
        rng = random.Random()
        seed = rng.randrange(1 << 30)
        rng.seed(seed)
        note = "random seed %d" % seed
        retention = v.path("retention.dat")
        runs = []
        saved_once = False
        last_created = 0
        versions = set()  # info.created of each retention.dat seen: the file was replaced between kills
        interrupted_saves = 0  # kills that hit a save under way
        for i in range(self.ITERATIONS):
            before = temp_files(v.dir)
            restart(v, runs)
            mode = i % 3
            if mode == 0:
                # Any moment of the run: start-up, retention read, between saves, during one.
                time.sleep(rng.uniform(0, 1.6))
            else:
                # During a save: the first one of the run as soon as its temp file appears, or the second
                # one (the first has replaced the file) a few ms into its write.
                saves = wait_for_saves(v.proc.pid, v.dir, count=mode, timeout=15)
                self.assertGreaterEqual(len(saves), mode, "saves seen in iteration %d" % i)
                if mode == 2:
                    time.sleep(rng.uniform(0, 0.04))
            if writes_in_progress(v.proc.pid, v.dir):
                interrupted_saves += 1
            v.kill()
            new_temps = temp_files(v.dir) - before
            # A temp file gets its name only once complete, just before the rename: a kill in that window
            # of microseconds can leave one, nothing else can.
            self.assertLessEqual(len(new_temps), 1, "%s (%s)" % (new_temps, note))

            if not os.path.exists(retention):
                self.assertFalse(saved_once, "retention.dat vanished after a kill (iteration %d, %s)" % (i, note))
                continue
            saved_once = True
            self.assertEqual(os.stat(retention).st_mode & 0o777, 0o600)
            blocks = parse_retention(read_text(retention), "retention.dat after kill %d (%s)" % (i, note),
                                     fields_of={"info"})
            kinds = [k for k, _ in blocks]
            self.assertEqual(kinds[:2], ["info", "program"])
            self.assertEqual(kinds.count("host"), self.HOSTS)
            self.assertEqual(kinds.count("service"), services)
            self.assertEqual(kinds.count("contact"), 1)
            self.assertEqual(len(kinds), 2 + self.HOSTS + services + 1)
            created = int(blocks[0][1]["created"])
            self.assertGreaterEqual(created, last_created, "an older save replaced a newer one (%s)" % note)
            last_created = created
            versions.add(created)

        self.assertGreaterEqual(len(versions), 3, note)
        self.assertGreaterEqual(interrupted_saves, 1, "no kill landed during a save (%s)" % note)
        leftovers = temp_files(v.dir, RETENTION_TEMP)
        self.assertLessEqual(len(leftovers), 1, "interrupted saves leave no temp files behind")

        # A clean run after all that: it reads the last file without a word, saves, and stops; the
        # shutdown save leaves no temp file of its own.
        restart(v, runs)
        v.wait_for(r"Auto-save of retention data completed successfully\.")
        self.assertEqual(v.stop(), 0)
        runs.append(v.log())
        self.assertIn("Retention data successfully saved.", runs[-1])
        self.assertLessEqual(temp_files(v.dir, RETENTION_TEMP), leftovers)
        blocks = parse_retention(read_text(retention), fields_of={"info"})
        self.assertEqual(len(blocks), 2 + self.HOSTS + services + 1)
        for n, log in enumerate(runs):
            self.assertEqual(retention_problems(log), [], "run %d (%s)" % (n, note))


HOST_AND_SERVICES = """
define host {
  host_name web01
  address 127.0.0.1
  check_command check_state_file!host.state
  max_check_attempts 1
  check_interval 3600
  retry_interval 1
  contacts admin
}
define service {
  host_name web01
  service_description DISK
  check_command check_state_file!disk.state
  max_check_attempts 2
  check_interval 3600
  retry_interval 1
  contacts admin
}
define host {
  host_name ctrl
  address 127.0.0.1
  check_command check_dummy!0!ctrl up
  max_check_attempts 1
  check_interval 0
  contacts admin
}
define service {
  host_name ctrl
  service_description CTRL
  check_command check_state_file!ctrl.state
  max_check_attempts 1
  check_interval 1
  contacts admin
}
"""


class ResumeAfterKill(unittest.TestCase):
    def test_states_outputs_and_schedule_come_back_from_the_last_save(self):
        v = RunningVedette(self, objects=HOST_AND_SERVICES,
                           main_extra=MAIN + "use_retained_scheduling_info=1\n", start=False)
        v.set_state("host.state", 2, "PING CRITICAL - 100% packet loss")
        v.set_state("disk.state", 2, "DISK CRITICAL - 99% full")
        v.set_state("ctrl.state", 0, "ctrl ok")
        # web01 and DISK run once an hour; a retention.dat from a moment ago makes their first checks due
        # in a second or two (use_retained_scheduling_info), so the test needs no hour.
        now = int(time.time())
        with open(v.path("retention.dat"), "w") as f:
            f.write("info {\ncreated=%d\nversion=1.5.2\n}\n"
                    "host {\nhost_name=web01\nnext_check=%d\n}\n"
                    "service {\nhost_name=web01\nservice_description=DISK\nnext_check=%d\n}\n"
                    % (now, now + 1, now + 2))
        v.start()
        # HARD at attempt 2, or at 1 when web01's check found it DOWN first (Naemon's rule).
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;[12];DISK CRITICAL - 99% full")
        v.wait_for(r"HOST ALERT: web01;DOWN;HARD;1;PING CRITICAL - 100% packet loss")

        def saved_with_problems():
            blocks = parse_retention(read_text(v.path("retention.dat")))
            host = by_name(blocks, "host")["web01"]
            disk = by_name(blocks, "service")["web01;DISK"]
            if (host["current_state"], host["state_type"], disk["current_state"], disk["state_type"]) \
                    != ("1", "1", "2", "1"):
                return None
            return host, disk
        host, disk = wait_until(saved_with_problems, 30, "an auto-save with web01 DOWN and DISK CRITICAL")
        self.assertEqual(host["plugin_output"], "PING CRITICAL - 100% packet loss")
        self.assertEqual(disk["plugin_output"], "DISK CRITICAL - 99% full")
        self.assertEqual(disk["has_been_checked"], "1")
        self.assertAlmostEqual(int(disk["next_check"]), int(disk["last_check"]) + 3600, delta=2)
        self.assertAlmostEqual(int(host["next_check"]), int(host["last_check"]) + 3600, delta=2)

        v.kill()  # kill -9: no shutdown save, status.dat stays behind
        runs = [v.log()]
        self.assertNotIn("Retention data successfully saved.", runs[0])
        # What the last save before the kill holds (a later save than the one above, maybe).
        kept_blocks = parse_retention(read_text(v.path("retention.dat")))
        kept_host = by_name(kept_blocks, "host")["web01"]
        kept = by_name(kept_blocks, "service")["web01;DISK"]
        self.assertEqual((kept_host["current_state"], kept["current_state"]), ("1", "2"))
        # Any check of web01 or DISK after the restart would now log a recovery.
        v.set_state("host.state", 0, "PING OK")
        v.set_state("disk.state", 0, "DISK OK")
        v.set_state("ctrl.state", 2, "ctrl after restart")
        os.remove(v.path("status.dat"))
        restart(v, runs)
        v.wait_for(r"INITIAL HOST STATE: web01;DOWN;HARD;1;PING CRITICAL - 100% packet loss")
        v.wait_for(r"INITIAL SERVICE STATE: web01;DISK;CRITICAL;HARD;2;DISK CRITICAL - 99% full")
        # The daemon checks again (CTRL once a second), and saves after that.
        v.wait_for(r"SERVICE ALERT: ctrl;CTRL;CRITICAL;HARD;1;ctrl after restart")
        v.wait_for(r"Auto-save of retention data completed successfully\.", count=2)

        def status_blocks():
            try:
                parsed = status_dat.parse(read_text(v.path("status.dat")))
            except (FileNotFoundError, ValueError):
                return None
            blocks = [(kind, dict(fields)) for kind, fields in parsed]
            ctrl = by_name(blocks, "servicestatus").get("ctrl;CTRL")
            return blocks if ctrl and ctrl["current_state"] == "2" else None
        blocks = wait_until(status_blocks, 30, "status.dat with CTRL CRITICAL")
        status_host = by_name(blocks, "hoststatus")["web01"]
        status_disk = by_name(blocks, "servicestatus")["web01;DISK"]
        self.assertEqual((status_host["current_state"], status_host["state_type"]), ("1", "1"))
        self.assertEqual(status_host["plugin_output"], "PING CRITICAL - 100% packet loss")
        self.assertEqual(status_host["last_check"], kept_host["last_check"])
        self.assertEqual(status_host["next_check"], kept_host["next_check"])
        self.assertEqual((status_disk["current_state"], status_disk["state_type"]), ("2", "1"))
        self.assertEqual(status_disk["current_attempt"], "2")
        self.assertEqual(status_disk["plugin_output"], "DISK CRITICAL - 99% full")
        self.assertEqual(status_disk["last_check"], kept["last_check"])
        # The retained next_check, an hour after the last check, stands: no check right after the restart.
        self.assertEqual(status_disk["next_check"], kept["next_check"])
        self.assertEqual(status_disk["last_state_change"], kept["last_state_change"])

        # And the second run's saves carry them on unchanged.
        blocks = parse_retention(read_text(v.path("retention.dat")))
        saved_host = by_name(blocks, "host")["web01"]
        saved_disk = by_name(blocks, "service")["web01;DISK"]
        for key in ("current_state", "state_type", "plugin_output", "last_check", "next_check",
                    "last_state_change", "last_hard_state_change"):
            self.assertEqual(saved_host[key], kept_host[key], key)
            self.assertEqual(saved_disk[key], kept[key], key)
        self.assertEqual(v.stop(), 0)
        runs.append(v.log())
        log = runs[-1]
        self.assertNotIn("HOST ALERT: web01", log)
        self.assertNotIn("SERVICE ALERT: web01;DISK", log)
        self.assertNotIn("PING OK", log)
        self.assertNotIn("DISK OK", log)
        for n, text in enumerate(runs):
            self.assertEqual(retention_problems(text), [], "run %d" % n)


class CarriedThroughCrashes(unittest.TestCase):
    def check_carried(self, blocks, fixture, where):
        program = blocks[1][1]
        self.assertEqual((program["next_comment_id"], program["next_downtime_id"]), ("12", "4"), where)
        acked = by_name(blocks, "service")["web01;ACKED"]
        self.assertEqual(acked["current_state"], "2", where)
        self.assertEqual(acked["problem_has_been_acknowledged"], "1", where)
        self.assertEqual(acked["acknowledgement_type"], "1", where)
        self.assertEqual(acked["last_state_change"], str(fixture["long_ago"]), where)
        for kind in ("hostcomment", "servicecomment", "servicedowntime"):
            expected = [fields for k, fields in parse_retention(RETENTION.format(**fixture)) if k == kind]
            actual = [fields for k, fields in blocks if k == kind]
            self.assertEqual(sorted(actual, key=lambda d: d.get("comment_id", d.get("downtime_id"))),
                             sorted(expected, key=lambda d: d.get("comment_id", d.get("downtime_id"))),
                             "%s blocks %s" % (kind, where))

    def test_acknowledgement_comments_and_downtime_survive_kill_9_and_restart(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("acked.state", 2, "CRITICAL: queue stuck")
        now = int(time.time())
        fixture = times(now)
        with open(v.path("retention.dat"), "w") as f:
            f.write(RETENTION.format(**fixture))
        runs = []
        first_check = 0
        for run in range(2):
            if run == 0:
                v.start()
            else:
                restart(v, runs)
            v.wait_for(r"INITIAL SERVICE STATE: web01;ACKED;CRITICAL;HARD;1;CRITICAL: queue stuck")

            # An auto-save after ACKED was checked again in this run (still CRITICAL, so still acknowledged).
            def saved_after_a_check():
                blocks = parse_retention(read_text(v.path("retention.dat")))
                acked = by_name(blocks, "service")["web01;ACKED"]
                return blocks if int(acked["last_check"]) > max(first_check, fixture["recent"]) else None
            blocks = wait_until(saved_after_a_check, 30, "a save after a check of ACKED (run %d)" % run)
            self.check_carried(blocks, fixture, "after run %d's auto-save" % run)
            first_check = int(by_name(blocks, "service")["web01;ACKED"]["last_check"])
            v.kill()
            blocks = parse_retention(read_text(v.path("retention.dat")))
            self.check_carried(blocks, fixture, "after kill -9 of run %d" % run)

        # A last run that stops cleanly writes them once more.
        restart(v, runs)
        v.wait_for(r"INITIAL SERVICE STATE: web01;ACKED;CRITICAL;HARD;1;CRITICAL: queue stuck")
        self.assertEqual(v.stop(), 0)
        runs.append(v.log())
        self.assertIn("Retention data successfully saved.", runs[-1])
        self.check_carried(parse_retention(read_text(v.path("retention.dat"))), fixture, "after SIGTERM")
        self.assertNotIn("SERVICE ALERT: web01;ACKED", "\n".join(runs))
        for n, text in enumerate(runs):
            self.assertEqual(retention_problems(text), [], "run %d" % n)


if __name__ == "__main__":
    unittest.main()
