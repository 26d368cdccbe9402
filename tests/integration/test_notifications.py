"""Notifications and event handlers with the real daemon: a problem's whole life (first notification,
re-notification, escalation, acknowledgement, recovery), downtime and custom notifications, host
notifications, the notification macros the commands receive, timeouts and failures of notification
commands, and event handlers on soft and hard state changes.

Results come in as passive check results, so the timeline is the test's own. interval_length is 1, so
notification_interval 2 means two seconds."""
import os
import time
import unittest

import status_dat

from running_daemon import RunningVedette

MAIN = """\
status_file=status.dat
status_update_interval=1
enable_notifications=1
enable_event_handlers=1
global_service_event_handler=log-global-handler
"""

# Each notification command appends one line of macros to notes.txt; handlers append to handlers.txt.
RECORDER = """\
#!/bin/sh
file="$1"; shift
( IFS='|'; echo "$*" ) >> "$file"
"""

OBJECTS = """
define command {
  command_name notify-file
  command_line $USER1$/record.sh $USER1$/notes.txt "$CONTACTNAME$" "$NOTIFICATIONTYPE$" "$SERVICENOTIFICATIONNUMBER$" "$NOTIFICATIONISESCALATED$" "$NOTIFICATIONAUTHOR$" "$NOTIFICATIONAUTHORNAME$" "$NOTIFICATIONCOMMENT$" "$SERVICESTATE$" "$SERVICEOUTPUT$" "$NOTIFICATIONRECIPIENTS$" "$SERVICEACKAUTHOR$"
}
define command {
  command_name host-notify-file
  command_line $USER1$/record.sh $USER1$/notes.txt "$CONTACTNAME$" "$NOTIFICATIONTYPE$" "$HOSTNOTIFICATIONNUMBER$" "$HOSTSTATE$" "$HOSTOUTPUT$" "$CONTACTEMAIL$"
}
define command {
  command_name notify-slow
  command_line /bin/sleep 5
}
define command {
  command_name notify-fails
  command_line /bin/sh -c 'echo mail server down && exit 3'
}
define command {
  command_name log-handler
  command_line $USER1$/record.sh $USER1$/handlers.txt "$SERVICEDESC$" "$SERVICESTATE$" "$SERVICESTATETYPE$" "$SERVICEATTEMPT$" "$ARG1$"
}
define command {
  command_name log-global-handler
  command_line $USER1$/record.sh $USER1$/handlers.txt GLOBAL "$SERVICEDESC$" "$SERVICESTATE$"
}
define command {
  command_name log-ocsp
  command_line $USER1$/record.sh $USER1$/ocsp.txt "$HOSTNAME$" "$SERVICEDESC$" "$SERVICESTATEID$" "$SERVICEOUTPUT$"
}
define contact {
  contact_name alice
  alias Alice Admin
  email alice@example.com
  host_notification_commands host-notify-file
  service_notification_commands notify-file
  host_notification_period 24x7
  service_notification_period 24x7
  host_notification_options d,u,r
  service_notification_options w,u,c,r,f,s
}
define contact {
  contact_name boss
  host_notification_commands host-notify-file
  service_notification_commands notify-file
  host_notification_period 24x7
  service_notification_period 24x7
  service_notification_options w,u,c,r,f,s
}
define contact {
  contact_name sloth
  service_notification_commands notify-slow,notify-fails
  host_notification_commands notify
  host_notification_period 24x7
  service_notification_period 24x7
  service_notification_options w,u,c,r
}
define host {
  host_name web01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  active_checks_enabled 0
  notification_interval 0
  contacts alice
}
define service {
  host_name web01
  service_description HTTP
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  notification_interval 2
  contacts alice
}
define serviceescalation {
  host_name web01
  service_description HTTP
  first_notification 2
  last_notification 0
  notification_interval 2
  contacts boss
}
define service {
  host_name web01
  service_description SLOW
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  notification_interval 0
  contacts sloth
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
  contacts alice
}
define service {
  host_name web01
  service_description APP
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 3
  check_interval 0
  retry_interval 1
  notification_interval 0
  event_handler log-handler!restart-app
  contacts alice
}
"""


class NotificationTest(unittest.TestCase):
    def start(self, main_extra=""):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN + main_extra, start=False)
        path = v.path("record.sh")
        with open(path, "w") as f:
            f.write(RECORDER)
        os.chmod(path, 0o755)
        v.start()
        return v

    def lines(self, v, name, count, timeout=15):
        """Waits until `name` has at least `count` lines; returns them split on '|'."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(v.path(name)) as f:
                    rows = [line.rstrip("\n").split("|") for line in f if line.strip()]
            except FileNotFoundError:
                rows = []
            if len(rows) >= count:
                return rows
            if time.monotonic() > deadline:
                self.fail("%s has %d of %d lines: %r\nlog:\n%s" % (name, len(rows), count, rows, v.log()))
            time.sleep(0.05)

    def result(self, v, service, code, output):
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;%s;%d;%s" % (service, code, output))

    def test_a_problem_from_first_notification_to_recovery(self):
        v = self.start()
        # t=0: CRITICAL, hard at once: the first notification goes to alice.
        self.result(v, "HTTP", 2, "connection refused")
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;notify-file;connection refused$")
        notes = self.lines(v, "notes.txt", 1)
        self.assertEqual(notes[0], ["alice", "PROBLEM", "1", "0", "", "", "", "CRITICAL", "connection refused",
                                    "alice", ""])
        # t<2: the same problem again is too early for a re-notification.
        self.result(v, "HTTP", 2, "still refused")
        v.wait_for(r"SERVICE NOTIFICATION SUPPRESSED: web01;HTTP;Re-notification blocked for this problem")
        # t>2: the second notification is the escalation's: boss, and not alice.
        time.sleep(2.2)
        self.result(v, "HTTP", 2, "refused again")
        v.wait_for(r"SERVICE NOTIFICATION: boss;web01;HTTP;CRITICAL;notify-file;refused again$")
        notes = self.lines(v, "notes.txt", 2)
        self.assertEqual(notes[1][:4], ["boss", "PROBLEM", "2", "1"])
        # An acknowledgement with notify: ACKNOWLEDGEMENT to the escalated contact, the number unchanged.
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;HTTP;1;1;0;alice;looking at it")
        v.wait_for(r"SERVICE NOTIFICATION: boss;web01;HTTP;ACKNOWLEDGEMENT \(CRITICAL\);notify-file;"
                   r"refused again;alice;looking at it$")
        notes = self.lines(v, "notes.txt", 3)
        self.assertEqual(notes[2], ["boss", "ACKNOWLEDGEMENT", "2", "1", "alice", "alice", "looking at it",
                                    "CRITICAL", "refused again", "boss", "alice"])
        # Acknowledged: later results of the same problem notify no one.
        time.sleep(2.2)
        self.result(v, "HTTP", 2, "refused, acknowledged")
        v.wait_for(r"SERVICE NOTIFICATION SUPPRESSED: web01;HTTP;Notification for problem blocked because it "
                   r"has already been acknowledged\.")
        # The recovery goes to whoever got the last problem notification (escalated: boss), as number 3.
        self.result(v, "HTTP", 0, "back")
        v.wait_for(r"SERVICE NOTIFICATION: boss;web01;HTTP;OK;notify-file;back$")
        notes = self.lines(v, "notes.txt", 4)
        self.assertEqual(notes[3][:4], ["boss", "RECOVERY", "3", "1"])
        time.sleep(0.5)
        self.assertEqual(len(self.lines(v, "notes.txt", 4)), 4, "exactly four notifications")
        log = v.log()
        self.assertEqual(log.count("SERVICE NOTIFICATION: alice;"), 1)
        self.assertEqual(log.count("SERVICE NOTIFICATION: boss;"), 3)
        # After the recovery the counters are back to 0 and the problem id is the last one.
        text = status_dat.wait_until(
            v.path("status.dat"),
            lambda blocks: any(k == "servicestatus" and dict(f).get("service_description") == "HTTP"
                               and dict(f).get("current_state") == "0" for k, f in blocks), 10, "HTTP OK")
        http = [dict(f) for k, f in status_dat.parse(text)
                if k == "servicestatus" and dict(f)["service_description"] == "HTTP"][0]
        self.assertEqual(http["current_notification_number"], "0")
        self.assertEqual(http["current_problem_id"], "")
        self.assertRegex(http["last_problem_id"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-")
        self.assertEqual(http["current_event_id"], str(int(http["last_event_id"]) + 1))

    def test_downtime_custom_and_host_notifications(self):
        v = self.start()
        now = int(time.time())
        v.command("SCHEDULE_SVC_DOWNTIME;web01;HTTP;%d;%d;1;0;0;alice;maintenance" % (now, now + 2))
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;DOWNTIMESTART \(OK\);notify-file;"
                   r"\(No output returned from plugin\)|SERVICE NOTIFICATION: alice;web01;HTTP;DOWNTIMESTART")
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;DOWNTIMEEND \(OK\);notify-file;.*;alice;maintenance$",
                   timeout=10)
        # Notification commands run in parallel on the executors: let the first two finish before the next.
        self.lines(v, "notes.txt", 2)
        v.command("SEND_CUSTOM_SVC_NOTIFICATION;web01;HTTP;0;bob;hello there")
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;CUSTOM \(OK\);notify-file;.*;bob;hello there$")
        notes = self.lines(v, "notes.txt", 3)
        self.assertEqual([n[1] for n in notes], ["DOWNTIMESTART", "DOWNTIMEEND", "CUSTOM"])
        self.assertEqual(notes[2][4:7], ["bob", "", "hello there"], "bob is no contact: no author name")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;1;host is gone")
        v.wait_for(r"HOST NOTIFICATION: alice;web01;DOWN;host-notify-file;host is gone$")
        notes = self.lines(v, "notes.txt", 4)
        self.assertEqual(notes[3], ["alice", "PROBLEM", "1", "DOWN", "host is gone", "alice@example.com"])
        # A service of a host that is down notifies no one.
        self.result(v, "HTTP", 2, "refused")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;refused")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;0;host is back")
        v.wait_for(r"HOST NOTIFICATION: alice;web01;UP;host-notify-file;host is back$")
        self.assertNotIn("SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL", v.log())

    def test_notification_commands_that_hang_or_fail_are_logged(self):
        v = self.start("notification_timeout=1\n")
        self.result(v, "SLOW", 2, "slow down")
        v.wait_for(r"SERVICE NOTIFICATION: sloth;web01;SLOW;CRITICAL;notify-slow;slow down$")
        v.wait_for(r"Warning: Notification command for contact 'sloth' about service 'web01;SLOW' exited with "
                   r"exit code 3\. stdout: 'mail server down")
        v.wait_for(r"Warning: Timeout while notifying contact 'sloth' of service 'SLOW' on host 'web01' by "
                   r"command '/bin/sleep 5'", timeout=10)

    def test_flapping_starts_and_stops(self):
        v = self.start("enable_flap_detection=1\n")
        for i in range(6):  # OK, CRITICAL, OK, …: the weighted percent passes 10%
            self.result(v, "FLAPPY", 2 if i % 2 else 0, "flip %d" % i)
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STARTED; Service appears to have started flapping "
                   r"\([0-9.]+% change >= 10\.0% threshold\)$")
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;FLAPPY;FLAPPINGSTART \((OK|CRITICAL)\);notify-file;flip \d;;$")
        text = status_dat.wait_until(
            v.path("status.dat"),
            lambda blocks: any(k == "servicecomment" and dict(f).get("entry_type") == "3" for k, f in blocks),
            10, "the flapping comment")
        self.assertIn("is_flapping=1", text)
        # While flapping, problems and recoveries notify no one.
        self.result(v, "FLAPPY", 2, "flapping problem")
        v.wait_for(r"SERVICE NOTIFICATION SUPPRESSED: web01;FLAPPY;Notification blocked because the object is "
                   r"flapping\.|SERVICE NOTIFICATION SUPPRESSED: web01;FLAPPY;.*flapping")
        # Stable again: the old changes weigh less with each result until the percent drops to 5%.
        for i in range(22):
            self.result(v, "FLAPPY", 2, "steady %d" % i)
        v.wait_for(r"SERVICE FLAPPING ALERT: web01;FLAPPY;STOPPED; Service appears to have stopped flapping "
                   r"\([0-9.]+% change < 5\.0% threshold\)$")
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;FLAPPY;FLAPPINGSTOP \(CRITICAL\);notify-file;steady \d+;;$")
        text = status_dat.wait_until(
            v.path("status.dat"),
            lambda blocks: not any(k == "servicecomment" for k, f in blocks), 10, "the comment to go")
        self.assertNotIn("is_flapping=1", text)

    def test_contact_commands_and_their_retention(self):
        extra = "retain_state_information=1\nstate_retention_file=retention.dat\n"
        v = self.start(extra)
        v.command("DISABLE_CONTACT_SVC_NOTIFICATIONS;alice")
        v.command("CHANGE_CONTACT_HOST_NOTIFICATION_TIMEPERIOD;alice;never")
        self.result(v, "HTTP", 2, "down")
        # Naemon's text looks at the service's modified attributes, not the contact's.
        v.wait_for(r"SERVICE CONTACT NOTIFICATION SUPPRESSED: alice;web01;HTTP;Notifications are disabled for "
                   r"this object by its configuration\.$")
        self.assertNotIn("SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL", v.log())
        v.command("PROCESS_HOST_CHECK_RESULT;web01;1;down")
        v.wait_for(r"HOST CONTACT NOTIFICATION SUPPRESSED: alice;web01;Notification blocked by timeperiod")

        def alice(blocks):
            for kind, fields in blocks:
                d = dict(fields)
                if kind == "contactstatus" and d["contact_name"] == "alice":
                    return d
            return {}
        text = status_dat.wait_until(v.path("status.dat"), lambda b: alice(b).get("modified_host_attributes")
                                     == "65536", 10, "alice changed in status.dat")
        fields = alice(status_dat.parse(text))
        self.assertEqual((fields["service_notifications_enabled"], fields["modified_service_attributes"],
                          fields["host_notification_period"]), ("0", "1", "never"))
        # A restart keeps it (retention.dat), and enabling again notifies.
        self.assertEqual(v.stop(), 0)
        v.start()
        v.command("PROCESS_HOST_CHECK_RESULT;web01;0;up")
        v.wait_for(r"HOST ALERT: web01;UP;HARD;1;up")
        self.result(v, "FLAPPY", 2, "problem after restart")
        v.wait_for(r"SERVICE CONTACT NOTIFICATION SUPPRESSED: alice;web01;FLAPPY;")
        v.command("ENABLE_CONTACTGROUP_SVC_NOTIFICATIONS;nobody")  # an unknown group: refused, no change
        v.wait_for(r"Warning: External command parse error|Failed validation of contactgroup_name")
        v.command("ENABLE_CONTACT_SVC_NOTIFICATIONS;alice")
        self.result(v, "HTTP", 2, "still down")  # the problem (retained) was never notified: now it is
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;notify-file;still down$")

    def test_ocsp_runs_after_each_result_of_an_obsessed_service(self):
        v = self.start("obsess_over_services=1\nocsp_command=log-ocsp\nocsp_timeout=5\n")
        self.result(v, "HTTP", 2, "down")
        self.result(v, "HTTP", 0, "up")
        # The two commands run in parallel: their lines may land in either order.
        self.assertEqual(sorted(self.lines(v, "ocsp.txt", 2)),
                         [["web01", "HTTP", "0", "up"], ["web01", "HTTP", "2", "down"]])
        v.command("STOP_OBSESSING_OVER_SVC;web01;HTTP")
        self.result(v, "HTTP", 1, "slow")
        self.result(v, "APP", 1, "app slow")
        rows = self.lines(v, "ocsp.txt", 3)
        time.sleep(0.5)
        self.assertEqual(self.lines(v, "ocsp.txt", 3)[2:], [["web01", "APP", "1", "app slow"]])
        self.assertEqual(len(rows), 3)

    def test_event_handlers_on_soft_and_hard_changes(self):
        v = self.start()
        for attempt, output in enumerate(["first", "second", "third"], 1):
            self.result(v, "APP", 2, output)
            v.wait_for(r"SERVICE ALERT: web01;APP;CRITICAL;(SOFT|HARD);%d;%s" % (attempt, output))
        self.result(v, "APP", 2, "fourth")  # hard and unchanged: no handler
        self.result(v, "APP", 0, "fine")
        # Naemon: the recovery is handled at the attempt the problem had.
        v.wait_for(r"SERVICE EVENT HANDLER: web01;APP;OK;HARD;3;log-handler!restart-app$")
        # The handlers run in parallel on the executor: their lines may land in any order.
        rows = sorted(r for r in self.lines(v, "handlers.txt", 8) if r[0] != "GLOBAL")
        self.assertEqual(rows, sorted([["APP", "CRITICAL", "SOFT", "1", "restart-app"],
                                ["APP", "CRITICAL", "SOFT", "2", "restart-app"],
                                ["APP", "CRITICAL", "HARD", "3", "restart-app"],
                                ["APP", "OK", "HARD", "3", "restart-app"]]))
        self.assertEqual(v.log().count("GLOBAL SERVICE EVENT HANDLER: web01;APP;"), 4)
        v.wait_for(r"SERVICE EVENT HANDLER: web01;APP;CRITICAL;SOFT;1;log-handler!restart-app$")
        # Disabled for the service: nothing runs.
        v.command("DISABLE_SVC_EVENT_HANDLER;web01;APP")
        self.result(v, "APP", 2, "again")
        v.wait_for(r"SERVICE ALERT: web01;APP;CRITICAL;SOFT;1;again")
        time.sleep(0.5)
        self.assertEqual(v.log().count("SERVICE EVENT HANDLER: web01;APP;"), 8)


if __name__ == "__main__":
    unittest.main()
