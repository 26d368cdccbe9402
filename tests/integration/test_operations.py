"""Operations with the real daemon: notification periods changed by command, stalking, READ_STATE_INFORMATION,
and the flapping comment across a reload and a restart.

Results come in as passive check results, so the timeline is the test's own; a LOG line written after them
marks the point where every earlier command has been applied (commands run in the order they are read)."""
import os
import signal
import time
import unittest

import status_dat
from running_daemon import RunningVedette, alert_lines

MAIN = """\
status_file=status.dat
status_update_interval=1
enable_notifications=1
"""

RETENTION = """\
retain_state_information=1
state_retention_file=retention.dat
retention_update_interval=0
"""

OBJECTS = """
define contact {
  contact_name ops
  host_notification_commands notify
  service_notification_commands notify
  host_notification_period 24x7
  service_notification_period 24x7
  host_notification_options d,u,r
  service_notification_options w,u,c,r
}
define host {
  host_name web01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  active_checks_enabled 0
  notification_interval 0
  stalking_options d
  contacts ops
}
define service {
  host_name web01
  service_description HTTP
  check_command check_dummy!0
  max_check_attempts 1
  check_interval 0
  notification_interval 0
  notification_period 24x7
  stalking_options c
  contacts ops
}
define service {
  host_name web01
  service_description NIGHT
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  notification_interval 0
  notification_period never
  contacts ops
}
define service {
  host_name web01
  service_description FLAPPY
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  notification_interval 0
  low_flap_threshold 5
  high_flap_threshold 10
  contacts ops
}
"""


def service_fields(blocks, description):
    for kind, fields in blocks:
        d = dict(fields)
        if kind == "servicestatus" and d.get("service_description") == description:
            return d
    return {}


def comments_of(blocks, description):
    return [dict(f) for k, f in blocks if k == "servicecomment" and dict(f).get("service_description") == description]


class Operations(unittest.TestCase):
    def start(self, main_extra=""):
        return RunningVedette(self, objects=OBJECTS, main_extra=MAIN + main_extra)

    def result(self, v, service, code, output):
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;%s;%d;%s" % (service, code, output))

    def applied(self, v, marker):
        """Waits until every command sent so far has run."""
        v.command("LOG;%s" % marker)
        v.wait_for(r"\] %s$" % marker)

    def status(self, v, predicate, what):
        return status_dat.parse(status_dat.wait_until(v.path("status.dat"), predicate, 10, what))

    def test_notification_periods_changed_by_command_are_the_ones_in_effect(self):
        v = self.start()
        # HTTP is configured 24x7, changed to "never": blocked. NIGHT is configured "never", changed to 24x7.
        v.command("CHANGE_SVC_NOTIFICATION_TIMEPERIOD;web01;HTTP;never")
        v.command("CHANGE_SVC_NOTIFICATION_TIMEPERIOD;web01;NIGHT;24x7")
        v.command("CHANGE_HOST_NOTIFICATION_TIMEPERIOD;web01;never")
        self.result(v, "HTTP", 2, "refused")
        self.result(v, "NIGHT", 2, "night problem")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;1;host down")
        self.applied(v, "periods applied")
        log = v.log()
        self.assertIn("SERVICE NOTIFICATION SUPPRESSED: web01;HTTP;Notification blocked by timeperiod", log)
        self.assertNotIn("SERVICE NOTIFICATION: ops;web01;HTTP;", log)
        self.assertIn("SERVICE NOTIFICATION: ops;web01;NIGHT;CRITICAL;notify;night problem", log)
        self.assertIn("HOST NOTIFICATION SUPPRESSED: web01;Notification blocked by timeperiod", log)
        self.assertNotIn("HOST NOTIFICATION: ops;web01;", log)

    def test_stalking_logs_the_alert_again_when_the_output_changes(self):
        v = self.start()
        self.result(v, "HTTP", 2, "refused")       # a state change: logged as such
        self.result(v, "HTTP", 2, "refused")       # the same output: nothing
        self.result(v, "HTTP", 2, "timed out")     # stalked (c): logged again
        self.result(v, "HTTP", 0, "fine")          # a state change
        self.result(v, "HTTP", 0, "fine, 3 ms")    # OK is not stalked
        self.result(v, "NIGHT", 2, "one")          # no stalking at all
        self.result(v, "NIGHT", 2, "two")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;1;down one")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;1;down two")  # stalked (d)
        v.command("PROCESS_HOST_CHECK_RESULT;web01;0;up one")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;0;up two")    # UP is not stalked
        self.applied(v, "stalking applied")
        log = v.log()
        self.assertEqual(alert_lines(log, "SERVICE ALERT: web01;HTTP;"), [
            "SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;refused",
            "SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;timed out",
            "SERVICE ALERT: web01;HTTP;OK;HARD;1;fine",
        ])
        self.assertEqual(alert_lines(log, "SERVICE ALERT: web01;NIGHT;"),
                         ["SERVICE ALERT: web01;NIGHT;CRITICAL;HARD;1;one"])
        self.assertEqual(alert_lines(log, "HOST ALERT: web01;"), [
            "HOST ALERT: web01;DOWN;HARD;1;down one",
            "HOST ALERT: web01;DOWN;HARD;1;down two",
            "HOST ALERT: web01;UP;HARD;1;up one",
        ])
        # Stalking logs a line and nothing more: no second notification for the same problem.
        self.assertEqual(log.count("SERVICE NOTIFICATION: ops;web01;HTTP;CRITICAL"), 1)

    def test_read_state_information_brings_back_what_was_saved(self):
        v = self.start(RETENTION)
        v.command("DISABLE_SVC_CHECK;web01;HTTP")
        self.result(v, "HTTP", 2, "saved problem")
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;HTTP;2;0;1;alice;working on it")
        v.command("ADD_SVC_COMMENT;web01;HTTP;1;alice;kept by the file")
        v.command("SAVE_STATE_INFORMATION")
        deadline = time.monotonic() + 10
        while True:
            try:
                with open(v.path("retention.dat")) as f:
                    if "kept by the file" in f.read():
                        break
            except FileNotFoundError:
                pass
            self.assertLess(time.monotonic(), deadline, "retention.dat was not written")
            time.sleep(0.05)
        # Everything changes after the save ...
        v.command("ENABLE_SVC_CHECK;web01;HTTP")
        v.command("DEL_ALL_SVC_COMMENTS;web01;HTTP")
        self.result(v, "HTTP", 0, "fine now")
        v.command("ADD_SVC_COMMENT;web01;HTTP;1;bob;written after the save")
        blocks = self.status(v, lambda b: any(c.get("author") == "bob" for c in comments_of(b, "HTTP")),
                             "the comment added after the save")
        after_save_id = int(comments_of(blocks, "HTTP")[0]["comment_id"])
        # ... and READ_STATE_INFORMATION puts the saved state back.
        v.command("READ_STATE_INFORMATION")
        blocks = self.status(v, lambda b: service_fields(b, "HTTP").get("plugin_output") == "saved problem",
                             "the saved state back")
        http = service_fields(blocks, "HTTP")
        self.assertEqual((http["current_state"], http["active_checks_enabled"],
                          http["problem_has_been_acknowledged"], http["acknowledgement_type"]),
                         ("2", "0", "1", "2"))
        self.assertEqual(sorted(c["comment_data"] for c in comments_of(blocks, "HTTP")),
                         ["kept by the file", "working on it"])
        # Comment ids never go back: a comment added now gets a new one.
        v.command("ADD_SVC_COMMENT;web01;HTTP;0;carol;after the read")
        blocks = self.status(v, lambda b: any(c.get("author") == "carol" for c in comments_of(b, "HTTP")),
                             "the comment added after the read")
        new_id = [int(c["comment_id"]) for c in comments_of(blocks, "HTTP") if c["author"] == "carol"][0]
        self.assertGreater(new_id, after_save_id)
        # The restored state is the running one: a recovery ends the acknowledgement as usual.
        self.result(v, "HTTP", 0, "recovered")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;OK;HARD;1;recovered")
        # Without the file, the command fails as Naemon's does.
        os.remove(v.path("retention.dat"))
        v.command("READ_STATE_INFORMATION")
        v.wait_for(r"Error: External command failed -> READ_STATE_INFORMATION;$")
        self.assertNotIn("Warning: External command 'READ_STATE_INFORMATION' is not supported", v.log())

    def flap(self, v, round_name):
        for i in range(6):  # OK, CRITICAL, OK, …: the weighted percent passes 10%
            self.result(v, "FLAPPY", 2 if i % 2 else 0, "%s flip %d" % (round_name, i))

    def steady(self, v, round_name):
        for i in range(22):  # the old changes weigh less with each result until the percent drops to 5%
            self.result(v, "FLAPPY", 2, "%s steady %d" % (round_name, i))

    def flapping_comments(self, blocks):
        return [c for c in comments_of(blocks, "FLAPPY") if c["entry_type"] == "3"]

    def test_flapping_comment_across_a_reload_and_a_restart(self):
        v = self.start("enable_flap_detection=1\n" + RETENTION)
        self.flap(v, "first")
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STARTED;")
        blocks = self.status(v, lambda b: self.flapping_comments(b), "the flapping comment")
        flapping_id = self.flapping_comments(blocks)[0]["comment_id"]

        # A reload keeps the comment, with its id, and the object still points at it.
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Configuration reloaded: ")
        v.command("ADD_SVC_COMMENT;web01;FLAPPY;1;alice;a comment of my own")
        blocks = self.status(v, lambda b: len(comments_of(b, "FLAPPY")) == 2, "two comments after the reload")
        self.assertEqual([c["comment_id"] for c in self.flapping_comments(blocks)], [flapping_id])
        self.assertEqual(service_fields(blocks, "FLAPPY")["is_flapping"], "1")
        self.steady(v, "first")
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STOPPED;")
        blocks = self.status(v, lambda b: not self.flapping_comments(b), "the flapping comment to go")
        self.assertEqual([c["comment_data"] for c in comments_of(blocks, "FLAPPY")], ["a comment of my own"])

        # Flapping again, then a restart: as in Naemon, the flapping comment (not persistent) is not read back
        # and the object flaps on without one; nothing is left pointing at a comment that is gone.
        self.flap(v, "second")
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STARTED;", count=2)
        self.status(v, lambda b: self.flapping_comments(b), "the second flapping comment")
        self.assertEqual(v.stop(), 0)
        with open(v.path("retention.dat")) as f:
            self.assertIn("entry_type=3", f.read(), "written, as Naemon writes it")
        v.start()
        blocks = self.status(v, lambda b: service_fields(b, "FLAPPY").get("is_flapping") == "1"
                             and comments_of(b, "FLAPPY"), "FLAPPY after the restart")
        self.assertEqual(self.flapping_comments(blocks), [])
        self.assertEqual([c["comment_data"] for c in comments_of(blocks, "FLAPPY")], ["a comment of my own"])
        self.steady(v, "second")
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STOPPED;", count=2)
        self.applied(v, "stopped after the restart")
        blocks = self.status(v, lambda b: service_fields(b, "FLAPPY").get("is_flapping") == "0",
                             "FLAPPY stopped flapping")
        self.assertEqual([c["comment_data"] for c in comments_of(blocks, "FLAPPY")], ["a comment of my own"])

        # Flapping once more after the restart: a new comment, deleted when it stops.
        self.flap(v, "third")
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STARTED;", count=3)
        blocks = self.status(v, lambda b: self.flapping_comments(b), "the third flapping comment")
        self.assertNotEqual(self.flapping_comments(blocks)[0]["comment_id"], flapping_id)
        self.steady(v, "third")
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STOPPED;", count=3)
        self.status(v, lambda b: not self.flapping_comments(b) and len(comments_of(b, "FLAPPY")) == 1,
                    "only my comment left")


if __name__ == "__main__":
    unittest.main()
