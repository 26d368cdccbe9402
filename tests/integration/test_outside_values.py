"""Text from outside the configuration never changes the shape of a command (issue 33, docs/compatibility.md
"Macros"): an acknowledgement comment or a custom notification's comment reaching a command with no shell
syntax stays plain words and runs no shell, as a hostile plugin output does in notification and event
handler commands that run under /bin/sh (printf … | … > file). Canary files the hostile text tries to
create must never appear, and the commands must receive the text verbatim.

illegal_macro_output_chars holds only '^' here (the base config has Naemon's sample list), so that every byte
of the hostile text reaches the commands: with the sample list most of them would be stripped first."""
import os
import subprocess
import time
import unittest

from running_daemon import RunningVedette

MAIN = """\
status_file=status.dat
enable_notifications=1
enable_event_handlers=1
illegal_macro_output_chars=^
"""

# Writes its arguments as [a][b]… on one line of the file named first.
ARGV_RECORDER = """\
#!/bin/sh
file="$1"; shift
{ printf '[%s]' "$@"; echo; } >> "$file"
"""

# A plugin whose output is the first line of the file named first, and CRITICAL.
FILE_PLUGIN = """\
#!/bin/sh
cat "$1"
exit 2
"""

OBJECTS = """
define command {
  command_name notify-argv
  command_line $USER1$/argv.sh $USER1$/argv.txt $NOTIFICATIONCOMMENT$ $SERVICEACKCOMMENT$
}
define command {
  command_name notify-mail-like
  command_line /usr/bin/printf "%b" "Service: $SERVICEDESC$\\nState: $SERVICESTATE$\\nInfo: $SERVICEOUTPUT$\\n" | /bin/cat > $USER1$/mail.txt
}
define command {
  command_name handle-words
  command_line /usr/bin/printf '%s\\n' $SERVICEOUTPUT$ | /bin/cat > $USER1$/handler.txt
}
define contact {
  contact_name alice
  service_notification_commands notify-argv
  host_notification_commands notify
  host_notification_period 24x7
  service_notification_period 24x7
  service_notification_options w,u,c,r,f,s
}
define contact {
  contact_name mailer
  service_notification_commands notify-mail-like
  host_notification_commands notify
  host_notification_period 24x7
  service_notification_period 24x7
  service_notification_options c
}
define host {
  host_name web01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  active_checks_enabled 0
  contacts admin
}
define service {
  host_name web01
  service_description HTTP
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  notification_interval 0
  contacts alice
}
define service {
  host_name web01
  service_description FILE
  check_command run!$USER1$/file_plugin.sh $USER1$/output.txt
  max_check_attempts 1
  check_interval 1
  notification_interval 0
  event_handler handle-words
  contacts mailer
}
"""


class OutsideValuesTest(unittest.TestCase):
    def start(self, plugin_output):
        """The daemon, its FILE plugin printing plugin_output(the test's directory)."""
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        for name, text in (("argv.sh", ARGV_RECORDER), ("file_plugin.sh", FILE_PLUGIN)):
            with open(v.path(name), "w") as f:
                f.write(text)
            os.chmod(v.path(name), 0o755)
        output = plugin_output(v.dir)
        with open(v.path("output.txt"), "w") as f:
            f.write(output + "\n")
        v.start()
        return v, output

    def wait_for_text(self, v, name, lines=1, timeout=15):
        """The file's text once it has at least `lines` lines."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(v.path(name)) as f:
                    text = f.read()
            except FileNotFoundError:
                text = ""
            if text.count("\n") >= lines:
                return text
            if time.monotonic() > deadline:
                self.fail("%s has %r\nlog:\n%s" % (name, text, v.log()))
            time.sleep(0.05)

    def assert_no_canary(self, v, *names):
        for name in names:
            self.assertFalse(os.path.exists(v.path(name)), "%s was created; log:\n%s" % (name, v.log()))

    def test_comments_reach_a_command_without_shell_as_plain_words(self):
        v, _ = self.start(lambda d: "OK")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;2;down")
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;notify-argv;down$")
        self.wait_for_text(v, "argv.txt", 1)
        x = v.path("x")
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;HTTP;1;1;0;alice;looking; touch %s" % x)
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;ACKNOWLEDGEMENT \(CRITICAL\);notify-argv;")
        # Notification commands run in parallel on the executors: let this one finish before the next.
        self.wait_for_text(v, "argv.txt", 2)
        y = v.path("y")
        v.command("SEND_CUSTOM_SVC_NOTIFICATION;web01;HTTP;0;bob;hello; touch %s" % y)
        v.wait_for(r"SERVICE NOTIFICATION: alice;web01;HTTP;CUSTOM \(CRITICAL\);notify-argv;")
        lines = self.wait_for_text(v, "argv.txt", 3).splitlines()
        self.assertEqual(lines[0], "[]", "no comment in a problem notification")
        self.assertEqual(lines[1], "[looking;][touch][%s][looking;][touch][%s]" % (x, x))
        self.assertEqual(lines[2], "[hello;][touch][%s]" % y)
        time.sleep(0.5)
        self.assert_no_canary(v, "x", "y")

    def test_hostile_plugin_output_in_shell_commands(self):
        v, output = self.start(lambda d: (
            'CRIT "; touch {d}/a; " $(touch {d}/b) `touch {d}/c` \'; touch {d}/d; \' '
            '\\"; touch {d}/e #\' & > {d}/f ~ * ; touch {d}/g $HOME \\n\\c end').format(d=d))
        v.wait_for(r"SERVICE EVENT HANDLER: web01;FILE;CRITICAL;HARD;1;handle-words$")
        v.wait_for(r"SERVICE NOTIFICATION: mailer;web01;FILE;CRITICAL;notify-mail-like;")
        # As in Naemon, the core turns the output's ';' into ':'; the rest is the macros' value as printed.
        output = output.replace(";", ":")
        self.assertIn("SERVICE ALERT: web01;FILE;CRITICAL;HARD;1;" + output + "\n", v.log())
        mail = self.wait_for_text(v, "mail.txt", 3)
        words = self.wait_for_text(v, "handler.txt", len(output.split()))
        time.sleep(0.5)
        self.assert_no_canary(v, "a", "b", "c", "d", "e", "f", "g")
        # What printf prints given the text as its argument, with no shell in between.
        want = subprocess.run(["/usr/bin/printf", "%b", "Service: FILE\nState: CRITICAL\nInfo: %s\n" % output],
                              stdout=subprocess.PIPE, check=True).stdout.decode()
        self.assertEqual(mail, want)
        # Unquoted in the handler's line, the output is split at blanks as Naemon splits it, and nothing more.
        self.assertEqual(words.splitlines(), output.split())


if __name__ == "__main__":
    unittest.main()
