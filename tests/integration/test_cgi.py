"""The classic CGIs (Debian's nagios4-cgi) read what the running daemon writes: objects.cache and status.dat.

The real daemon runs on a temporary configuration whose scripted checks settle in known states (a host UP,
a host DOWN, services OK, WARNING and CRITICAL, all HARD); once status.dat shows them, status.cgi and
extinfo.cgi run as CGIs (REQUEST_METHOD=GET, QUERY_STRING, REMOTE_USER) with NAGIOS_CGI_CONFIG naming a
cgi.cfg that points at the daemon's main config, and the pages they render must show those hosts and
services in those states. Nagios 4's CGIs refuse Naemon's objects.cache (its check_timeout lines), so the
daemon writes it with object_cache_format=nagios (docs/compatibility.md, "objects.cache"). The daemon
starts on a retention.dat holding an acknowledgement of web01;HTTP with its comment and a comment on
web01, which the CGIs find in status.dat.
"""
import os
import re
import subprocess
import time
import unittest

import running_daemon
import status_dat

CGI_DIR = os.environ.get("NAGIOS_CGI_DIR", "/usr/lib/cgi-bin/nagios4")
STATUS_CGI = os.path.join(CGI_DIR, "status.cgi")
EXTINFO_CGI = os.path.join(CGI_DIR, "extinfo.cgi")

OBJECTS = """
define host {
  name                  test-host
  register              0
  check_period          24x7
  check_interval        1
  retry_interval        1
  max_check_attempts    1
  contacts              admin
}
define host {
  host_name      web01
  alias          Web server
  address        192.0.2.10
  use            test-host
  check_command  check_state_file!$USER1$/web01.state
  notes          Serves the shop
}
define host {
  host_name      db01
  alias          Database server
  address        192.0.2.20
  use            test-host
  check_command  check_state_file!$USER1$/db01.state
}
define service {
  name                  test-service
  register              0
  check_period          24x7
  check_interval        1
  retry_interval        1
  max_check_attempts    2
  contacts              admin
}
define service {
  host_name            web01
  service_description  HTTP
  use                  test-service
  check_command        check_state_file!$USER1$/http.state
}
define service {
  host_name            web01
  service_description  PING
  use                  test-service
  check_command        check_state_file!$USER1$/ping.state
}
define service {
  host_name            db01
  service_description  MySQL
  use                  test-service
  check_command        check_state_file!$USER1$/mysql.state
  max_check_attempts   1
}
"""

# What the scripted checks return, and the HARD states they settle in (status_dat.settled_by).
STATES = {"web01.state": (0, "OK - web01 answers"), "db01.state": (2, "CRITICAL - db01 unreachable"),
          "http.state": (2, "HTTP CRITICAL - 503 Service Unavailable"), "ping.state": (0, "PING OK - rta 0.1 ms"),
          "mysql.state": (1, "MySQL WARNING - 42 slow queries")}
SETTLED = {"hosts": {"web01": 0, "db01": 1},
           "services": {"web01;HTTP": 2, "web01;PING": 0, "db01;MySQL": 1}, "unchecked": []}

# Naemon's format (xrddefault.c): web01;HTTP HARD CRITICAL since {since} and acknowledged, with the
# acknowledgement's comment, and a persistent comment on web01.
RETENTION = """\
info {{
created={now}
version=1.5.2
}}
service {{
host_name=web01
service_description=HTTP
has_been_checked=1
current_state=2
last_state=2
last_hard_state=2
current_attempt=2
max_attempts=2
state_type=1
last_state_change={since}
last_hard_state_change={since}
last_time_critical={since}
plugin_output=HTTP CRITICAL - 503 Service Unavailable
last_check={since}
problem_has_been_acknowledged=1
acknowledgement_type=1
}}
hostcomment {{
host_name=web01
entry_type=1
comment_id=3
source=1
persistent=1
entry_time={since}
author=alice
comment_data=Rack 12 is being rewired
}}
servicecomment {{
host_name=web01
service_description=HTTP
entry_type=4
comment_id=4
source=1
persistent=0
entry_time={since}
author=bob
comment_data=Looking into the 503s
}}
"""

CGI_CFG = """\
main_config_file={main}
physical_html_path=/usr/share/nagios4/htdocs
url_html_path=/nagios4
use_authentication=1
use_pending_states=1
authorized_for_all_hosts=tester
authorized_for_all_services=tester
authorized_for_system_information=tester
authorized_for_configuration_information=tester
escape_html_tags=1
"""


class _ClassScope:
    """What RunningVedette needs of a test case, for one daemon shared by the whole class."""
    def __init__(self, cls):
        self.addCleanup = cls.addClassCleanup


class ClassicCgis(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [p for p in (STATUS_CGI, EXTINFO_CGI) if not os.access(p, os.X_OK)]
        if missing:
            raise unittest.SkipTest("the classic CGIs are not installed (%s): install the nagios4-cgi package "
                                    "(scripts/install-deps.sh)" % ", ".join(missing))
        cls.v = v = running_daemon.RunningVedette(_ClassScope(cls), OBJECTS, start=False)
        with open(v.path("vedette.cfg"), "a") as f:
            # Absolute paths: the CGIs read these lines of the main config too.
            f.write("status_file=%s\nobject_cache_file=%s\nobject_cache_format=nagios\nstatus_update_interval=1\n"
                    "retain_state_information=1\nstate_retention_file=%s\n"
                    % (v.path("status.dat"), v.path("objects.cache"), v.path("retention.dat")))
        now = int(time.time())
        with open(v.path("retention.dat"), "w") as f:
            f.write(RETENTION.format(now=now, since=now - 600))
        for name, (code, text) in STATES.items():
            v.set_state(name, code, text)
        with open(v.path("cgi.cfg"), "w") as f:
            f.write(CGI_CFG.format(main=v.path("vedette.cfg")))
        v.start()
        cls.addClassCleanup(v.stop)
        status_dat.wait_until(v.path("status.dat"), status_dat.settled_by(SETTLED), 60,
                              "the checks to settle in status.dat")

    def cgi(self, program, query):
        env = dict(os.environ, NAGIOS_CGI_CONFIG=self.v.path("cgi.cfg"), REQUEST_METHOD="GET",
                   QUERY_STRING=query, REMOTE_USER="tester", SCRIPT_NAME="/cgi-bin/nagios4/" +
                   os.path.basename(program))
        proc = subprocess.run([program], env=env, cwd=self.v.dir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=30, text=True, errors="replace")
        page = proc.stdout
        self.assertEqual(proc.returncode, 0, "%s?%s failed: %s" % (program, query, proc.stderr))
        self.assertNotIn("Could not read object configuration data", page, "objects.cache was refused")
        self.assertNotIn("Could not read host and service status information", page, "status.dat was refused")
        self.assertNotIn("It appears as though you do not have permission", page)
        return page

    def service_row(self, page, host, service):
        """The state cell and plugin output of a service's row in status.cgi's service table."""
        link = re.escape("extinfo.cgi?type=2&host=%s&service=%s'>%s</a>" % (host, service, service))
        m = re.search(link + r".*?<td class='status(\w+)'>(\w+)</td>(.*?)</tr>", page, re.S)
        self.assertIsNotNone(m, "no row for %s;%s in:\n%s" % (host, service, page))
        output = re.findall(r"<td class='status\w+' valign='center'>(.*?)&nbsp;</td>", m.group(3), re.S)
        return m.group(1), m.group(2), output[-1] if output else None

    def host_row(self, page, host):
        link = re.escape("extinfo.cgi?type=1&host=%s'" % host)
        m = re.search(link + r".*?<td class='status(HOST\w+)'>(\w+)</td>", page, re.S)
        self.assertIsNotNone(m, "no row for host %s in:\n%s" % (host, page))
        return m.group(1), m.group(2)

    @staticmethod
    def text(page):
        return re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", page)).replace("&nbsp;", " ")

    def test_status_cgi_lists_services_in_their_states(self):
        page = self.cgi(STATUS_CGI, "host=all")
        # Acknowledged (retention.dat): status.cgi marks the state cell so.
        self.assertEqual(self.service_row(page, "web01", "HTTP"),
                         ("CRITICALACK", "CRITICAL", "HTTP CRITICAL - 503 Service Unavailable"))
        self.assertEqual(self.service_row(page, "web01", "PING"), ("OK", "OK", "PING OK - rta 0.1 ms"))
        self.assertEqual(self.service_row(page, "db01", "MySQL"),
                         ("WARNING", "WARNING", "MySQL WARNING - 42 slow queries"))
        self.assertIn("Results 1 - 3 of 3 Matching Services", self.text(page))

    def test_status_cgi_lists_hosts_in_their_states(self):
        page = self.cgi(STATUS_CGI, "hostgroup=all&style=hostdetail")
        self.assertEqual(self.host_row(page, "web01"), ("HOSTUP", "UP"))
        self.assertEqual(self.host_row(page, "db01"), ("HOSTDOWN", "DOWN"))
        text = self.text(page)
        self.assertIn("OK - web01 answers", text)
        self.assertIn("CRITICAL - db01 unreachable", text)

    def test_extinfo_cgi_shows_a_down_host(self):
        text = self.text(self.cgi(EXTINFO_CGI, "type=1&host=db01"))
        self.assertRegex(text, r"Host Status: +DOWN ")
        self.assertIn("Status Information: CRITICAL - db01 unreachable", text)
        self.assertRegex(text, r"Current Attempt: 1/1 +\(HARD state\)")
        self.assertIn("Database server", text)
        self.assertIn("192.0.2.20", text)

    def test_extinfo_cgi_shows_a_hard_critical_service(self):
        text = self.text(self.cgi(EXTINFO_CGI, "type=2&host=web01&service=HTTP"))
        self.assertRegex(text, r"Current Status: +CRITICAL ")
        self.assertIn("Status Information: HTTP CRITICAL - 503 Service Unavailable", text)
        self.assertRegex(text, r"Current Attempt: 2/2 +\(HARD state\)")
        self.assertIn("Check Type: ACTIVE", text)

    def test_extinfo_cgi_shows_the_acknowledgement_and_its_comment(self):
        text = self.text(self.cgi(EXTINFO_CGI, "type=2&host=web01&service=HTTP"))
        self.assertRegex(text, r"Current Status: +CRITICAL +\(for [^)]*\) +\(Has been acknowledged\)")
        self.assertIn("Remove problem acknowledgement", text)
        self.assertRegex(text, r"Service Comments .* bob Looking into the 503s 4 No Acknowledgement N/A")

    def test_extinfo_cgi_shows_a_host_comment(self):
        text = self.text(self.cgi(EXTINFO_CGI, "type=1&host=web01"))
        self.assertRegex(text, r"Host Comments .* alice Rack 12 is being rewired 3 Yes User N/A")

    def test_extinfo_cgi_shows_object_details_from_objects_cache(self):
        text = self.text(self.cgi(EXTINFO_CGI, "type=1&host=web01"))
        self.assertRegex(text, r"Host Status: +UP ")
        self.assertIn("Web server", text)
        self.assertIn("Serves the shop", text)


if __name__ == "__main__":
    unittest.main()
