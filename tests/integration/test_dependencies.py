"""Service and host dependencies with the real daemon: a failed execution dependency stops the dependent's
checks (or, with service_skip_check_dependency_status, sets its state and says why), a failed notification
dependency suppresses its notifications, and inherits_parent follows the master's own dependencies."""
import time
import unittest

import status_dat

from running_daemon import HOST, RunningVedette

MAIN = """\
status_file=status.dat
status_update_interval=1
"""

OBJECTS = HOST + """
define contact {
  contact_name ops
  service_notification_commands notify
  host_notification_commands notify
  service_notification_period 24x7
  host_notification_period 24x7
  service_notification_options w,u,c,r
}
define service {
  host_name web01
  service_description DATABASE
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  contacts ops
}
define service {
  host_name web01
  service_description NETWORK
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  contacts ops
}
define service {
  host_name web01
  service_description APP
  check_command check_state_file!app.state
  max_check_attempts 1
  check_interval 1
  retry_interval 1
  contacts ops
}
define service {
  host_name web01
  service_description REPORTS
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  contacts ops
}
define servicedependency {
  host_name web01
  service_description DATABASE
  dependent_host_name web01
  dependent_service_description APP
  execution_failure_criteria c,u
}
define servicedependency {
  host_name web01
  service_description NETWORK
  dependent_host_name web01
  dependent_service_description DATABASE
  notification_failure_criteria c
}
define servicedependency {
  host_name web01
  service_description DATABASE
  dependent_host_name web01
  dependent_service_description REPORTS
  notification_failure_criteria w
  inherits_parent 1
}
"""


def service_status(v, name, predicate, what, timeout=15):
    def matches(blocks):
        for kind, fields in blocks:
            d = dict(fields)
            if kind == "servicestatus" and d["service_description"] == name and predicate(d):
                return True
        return False
    text = status_dat.wait_until(v.path("status.dat"), matches, timeout, what)
    return [dict(f) for k, f in status_dat.parse(text)
            if k == "servicestatus" and dict(f)["service_description"] == name][0]


def passed_over(v, name, since):
    """The status of `name` once the scheduler has reached its check twice after `since` (an epoch time): each
    time it moves next_check on, whether it ran the check or not, so this marks a check not run."""
    return service_status(v, name, lambda d: int(d["next_check"]) >= since + 2, "%s's check reached" % name)


class DependencyTest(unittest.TestCase):
    def start(self, main_extra=""):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN + main_extra, start=False)
        v.set_state("app.state", 0, "app fine")
        v.start()
        return v

    def test_a_failed_execution_dependency_stops_the_checks(self):
        v = self.start()
        service_status(v, "APP", lambda d: d["has_been_checked"] == "1", "APP checked")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;DATABASE;2;db down")
        v.wait_for(r"SERVICE ALERT: web01;DATABASE;CRITICAL;HARD;1;db down")
        # A check of APP may have been under way: once its due time has passed twice since, none is.
        before = passed_over(v, "APP", time.time())
        v.set_state("app.state", 2, "app broken")
        after = passed_over(v, "APP", int(before["next_check"]))
        self.assertEqual(after["last_check"], before["last_check"], "no check of APP while DATABASE is CRITICAL")
        self.assertEqual(after["current_state"], "0")
        self.assertNotIn("SERVICE ALERT: web01;APP;", v.log())
        # The master recovers: APP is checked again and finds its own problem.
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;DATABASE;0;db back")
        v.wait_for(r"SERVICE ALERT: web01;APP;CRITICAL;HARD;1;app broken")

    def test_skip_status_sets_the_state_and_says_why(self):
        v = self.start("service_skip_check_dependency_status=3\n")
        service_status(v, "APP", lambda d: d["has_been_checked"] == "1", "APP checked")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;DATABASE;3;db unknown")
        app = service_status(v, "APP", lambda d: d["current_state"] == "3", "APP UNKNOWN")
        self.assertEqual(app["plugin_output"], "(service dependency check failed) was: app fine")
        app = passed_over(v, "APP", int(app["next_check"]))
        self.assertEqual(app["plugin_output"], "(service dependency check failed) was: app fine", "said once")

    def test_a_failed_notification_dependency_suppresses_notifications(self):
        v = self.start()
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;NETWORK;2;switch down")
        v.wait_for(r"SERVICE NOTIFICATION: ops;web01;NETWORK;CRITICAL;notify;switch down")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;DATABASE;2;db unreachable")
        v.wait_for(r"SERVICE NOTIFICATION SUPPRESSED: web01;DATABASE;Notification blocked due to dependency of "
                   r"another object\.")
        # REPORTS depends on DATABASE (OK-ish for 'w') and inherits DATABASE's dependency on NETWORK.
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;REPORTS;2;no reports")
        v.wait_for(r"SERVICE NOTIFICATION SUPPRESSED: web01;REPORTS;Notification blocked due to dependency of "
                   r"another object\.")
        # NETWORK recovers: DATABASE's next problem result notifies.
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;NETWORK;0;switch up")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;DATABASE;2;db still unreachable")
        v.wait_for(r"SERVICE NOTIFICATION: ops;web01;DATABASE;CRITICAL;notify;db still unreachable")


if __name__ == "__main__":
    unittest.main()
