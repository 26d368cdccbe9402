"""Native check_http (docs/native-checks.md): the installed plugin and `vedette --native-check` against the
same local servers — plain and TLS with a self-signed certificate —, their output, perfdata and exit codes
compared byte for byte once measured times are masked, and the requests they send compared byte for byte
too. Then the daemon: `-v` counts a check_http command native and its result lands in status.dat.
"""
import os
import re
import ssl
import time
import unittest

import native_compare
import running_daemon
from native_compare import Server, closed_port, run
import status_dat
import vedette_test

PLUGINS = "/usr/lib/nagios/plugins"
CHECK_HTTP = os.path.join(PLUGINS, "check_http")
TLS_DIR = os.path.join(vedette_test.source_dir(), "tests", "fixtures", "tls")


def have_plugin():
    return os.access(CHECK_HTTP, os.X_OK)


def mask(text):
    """Measured times, and the thread id OpenSSL prints first on its error lines, may differ."""
    text = re.sub(r"\d+\.\d{3} second response time", "T second response time", text)
    text = re.sub(r"(time\w*)=\d+\.\d{6}s", r"\1=Ts", text)
    return re.sub(r"(?m)^[0-9A-F]+:error:", "X:error:", text)


class HttpServer(Server):
    """Answers every connection with `response` (bytes) after reading the request; records each request."""

    def __init__(self, testcase, response, delay=0.0, tls=None, close_notify=True):
        self.response = response
        self.delay = delay
        self.requests = []
        self.server_names = []
        self.tls = tls
        self.close_notify = close_notify
        super().__init__(testcase, self.answer)

    def answer(self, conn):
        sock = conn
        if self.tls is not None:
            sock = self.tls.wrap_socket(conn, server_side=True)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"(?im)^content-length: *(\d+)", head)
        while length and len(body) < int(length.group(1)):
            body += sock.recv(65536)
        self.requests.append(data[:len(head) + 4] + body)
        time.sleep(self.delay)
        sock.sendall(self.response)
        if self.tls is not None and self.close_notify:
            sock.unwrap()


def tls_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(TLS_DIR, "cert.pem"), os.path.join(TLS_DIR, "key.pem"))
    return ctx


def response(status, headers=(), body=b""):
    head = b"HTTP/1.1 " + status + b"\r\n" + b"".join(h + b"\r\n" for h in headers)
    return head + b"\r\n" + body


OK_PAGE = response(b"200 OK", (b"Content-Type: text/html", b"Content-Length: 27"), b"<html>Hello, world!</html>\n")


@unittest.skipUnless(have_plugin(), "monitoring-plugins-basic is not installed")
class NativeHttpDifferential(unittest.TestCase):
    def compare(self, *args, expect_rc=None):
        return native_compare.compare(self, CHECK_HTTP, args, mask, expect_rc=expect_rc)

    def serve(self, payload, **kwargs):
        return HttpServer(self, payload, **kwargs)

    def test_status_codes(self):
        for status, rc in ((b"200 OK", 0), (b"301 Moved Permanently", 0), (b"404 Not Found", 1),
                           (b"500 Internal Server Error", 2), (b"302 Found", 0), (b"100 Continue", 0)):
            srv = self.serve(response(status, (b"Location: /elsewhere",), b"body\n"))
            out = self.compare("-H", "127.0.0.1", "-p", str(srv.port), expect_rc=rc)
            self.assertIn(status.decode(), out)
        srv = self.serve(response(b"301 Moved Permanently", (b"Location: /x",)))
        for state, rc in (("ok", 0), ("warning", 1), ("critical", 2), ("unknown", 3)):
            self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-f", state, expect_rc=rc)

    def test_invalid_responses(self):
        for payload in (b"garbage\r\n\r\n", b"HTTP/1.1 2x0 Odd\r\n\r\n", b"HTTP/1.1 600 Beyond\r\n\r\n",
                        b"HTTP/1.0 099 Low\r\n\r\n", b"HTTP/1.1 200 OK\nLF: only\n\nbody", b"HTTP/1.1 204 No Content"):
            srv = self.serve(payload)
            self.compare("-H", "127.0.0.1", "-p", str(srv.port))
            self.compare("-I", "127.0.0.1", "-p", str(srv.port), "-e", "HTTP/1.1 2,garb")
        srv = self.serve(b"")
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), expect_rc=2)  # No data received

    def test_expected_status_line(self):
        srv = self.serve(OK_PAGE)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-e", "200", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-e", "404,302", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-e", ",,", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "--expect=HTTP/1.1 200", "-B", expect_rc=0)

    def test_body_and_header_matches(self):
        srv = self.serve(OK_PAGE)
        p = str(srv.port)
        self.compare("-H", "127.0.0.1", "-p", p, "-s", "Hello", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", p, "-s", "Goodbye", "-u", "/page?x=1", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-s", "a string far longer than thirty characters", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-s", "exactly twenty-nine characte", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-d", "text/html", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", p, "-d", "X-Missing", "-s", "nope", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-r", "w.rld", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", p, "-r", "WORLD", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-R", "WORLD", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", p, "--invert-regex", "-r", "world", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-l", "--ereg", "</html>.$", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", p, "--ereg", "</html>.$", expect_rc=2)

    def test_chunked_bodies(self):
        chunked = response(b"200 OK", (b"Transfer-Encoding: chunked",), b"7\r\nHello, \r\n6;ext=1\r\nworld!\r\n0\r\n\r\n")
        srv = self.serve(chunked)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-s", "Hello, world!", expect_rc=0)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-s", "7", "-B", expect_rc=2)
        srv = self.serve(response(b"200 OK", (b"transfer-encoding:   Chunked",), b"0\r\n\r\n"))
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-s", "x", expect_rc=2)
        srv = self.serve(response(b"200 OK", (b"Transfer-Encoding: chunked",), b"zz\r\n"))
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), expect_rc=3)  # Failed to unchunk

    def test_requests_are_the_same_bytes(self):
        cases = (
            ("-H", "www.example.test", "-I", "127.0.0.1"),
            ("-I", "127.0.0.1", "-u", "/status"),  # no host name: HTTP/1.0, no Host header
            ("-H", "127.0.0.1:{port}", "-j", "HEAD"),
            ("-I", "127.0.0.1", "-H", "vhost:8080", "-A", "probe/1.0", "-k", "X-One: 1", "-k", "Host: forced"),
            ("-I", "127.0.0.1", "-k", "Host: dropped without -H"),
            ("-I", "127.0.0.1", "-H", "h", "-P", "a=1&b=2", "-T", "application/json", "-a", "user:secret",
             "-b", "proxy:pw"),
            ("-I", "127.0.0.1", "-H", "h", "-j", "OPTIONS", "-P", "x", "-a", "ab"),
            ("127.0.0.1", "named.example", "-t", "5"),  # the two operands: address, then host name
        )
        for case in cases:
            srv = self.serve(OK_PAGE)
            args = [a.format(port=srv.port) for a in case]
            if "-p" not in args and not any(a.endswith(":%d" % srv.port) for a in args):
                args += ["-p", str(srv.port)]
            self.compare(*args)
            self.assertEqual(len(srv.requests), 2, args)
            self.assertEqual(srv.requests[1], srv.requests[0], args)

    def test_thresholds_and_page_sizes(self):
        srv = self.serve(OK_PAGE, delay=0.3)
        p = str(srv.port)
        self.compare("-H", "127.0.0.1", "-p", p, "-w", "0.1", "-c", "5", expect_rc=1)
        self.compare("-H", "127.0.0.1", "-p", p, "-w", "0.1", "-c", "0.2", expect_rc=2)
        self.compare("-H", "127.0.0.1", "-p", p, "-w", "@0:5", expect_rc=1)
        self.compare("-H", "127.0.0.1", "-p", p, "-w", "~:4", "-c", "12", expect_rc=0)  # -c raises -t to 13
        self.compare("-H", "127.0.0.1", "-p", p, "-m", "500", expect_rc=1)
        self.compare("-H", "127.0.0.1", "-p", p, "-m", "10:50", expect_rc=1)
        self.compare("-H", "127.0.0.1", "-p", p, "-m", "50:1000", "-E", expect_rc=0)

    def test_no_body_and_extended_perfdata(self):
        srv = self.serve(OK_PAGE)
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-N", "-s", "Hello")
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-N", "-E")
        srv = self.serve(b"HTTP/1.0 200 OK\nServer: lf\n\nLF body")
        self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-N", "-s", "LF body")

    def test_slow_server_times_out(self):
        srv = self.serve(OK_PAGE, delay=3)
        started = time.monotonic()
        out = self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-t", "1", expect_rc=2)
        self.assertEqual(out, "CRITICAL - Socket timeout after 1 seconds\n")
        self.assertLess(time.monotonic() - started, 5)

    def test_connect_errors(self):
        self.compare("-H", "127.0.0.1", "-p", str(closed_port()), expect_rc=2)
        self.compare("-I", "name.invalid", "-p", "80", expect_rc=2)
        self.compare("-H", "::1", "-p", str(closed_port()), "-6", expect_rc=2)

    def test_tls_with_a_self_signed_certificate(self):
        for close_notify in (True, False):
            srv = self.serve(OK_PAGE, tls=tls_context(), close_notify=close_notify)
            self.compare("-H", "localhost", "-p", str(srv.port), "-S", "-s", "world", expect_rc=0)
            self.compare("-I", "127.0.0.1", "-p", str(srv.port), "--ssl", "-E", "-w", "5", expect_rc=0)

    def test_tls_sends_sni_only_when_asked(self):
        names = []
        ctx = tls_context()
        ctx.sni_callback = lambda sock, name, _: names.append(name)
        srv = self.serve(OK_PAGE, tls=ctx)
        self.compare("-H", "sni.example", "-I", "127.0.0.1", "-p", str(srv.port), "-S", "--sni")
        self.compare("-H", "sni.example", "-I", "127.0.0.1", "-p", str(srv.port), "-S")
        self.assertEqual(names, ["sni.example", "sni.example", None, None])

    def test_tls_against_a_plain_server(self):
        srv = Server(self, lambda conn: conn.sendall(OK_PAGE))  # answers the ClientHello with plain HTTP
        out = self.compare("-H", "127.0.0.1", "-p", str(srv.port), "-S", expect_rc=2)
        self.assertTrue(out.startswith("CRITICAL - Cannot make SSL connection.\n"), out)

    def test_unsupported_lines_run_the_process(self):
        srv = self.serve(OK_PAGE)
        p = str(srv.port)
        for extra in (["-C", "30"], ["-f", "follow"], ["-L"], ["-v"], ["-S1.2"], ["--ssl=1.2"], ["-M", "1d"],
                      ["-t", "0"], ["-j", "CONNECT"], ["-w", "5:1"], ["-h"], ["/tmp/socket"]):
            args = ["-I", "127.0.0.1" if extra != ["/tmp/socket"] else "/tmp/socket", "-p", p] + \
                (extra if extra != ["/tmp/socket"] else [])
            out, rc = run([vedette_test.vedette_bin(), "--native-check", CHECK_HTTP] + args)
            self.assertEqual(rc, native_compare.NOT_NATIVE, "%r ran natively: %r" % (args, out))


OBJECTS = running_daemon.BASE_OBJECTS + """
define command {
  command_name http
  command_line $USER1$/check_http -H 127.0.0.1 -p $ARG1$ -s Hello
}
define command {
  command_name https_cert
  command_line $USER1$/check_http -H 127.0.0.1 -p $ARG1$ -S -C 30
}
define host {
  host_name web01
  address 127.0.0.1
  check_command check_dummy!0
  max_check_attempts 1
  check_period 24x7
  contacts admin
}
"""


@unittest.skipUnless(have_plugin(), "monitoring-plugins-basic is not installed")
class NativeHttpInTheDaemon(unittest.TestCase):
    def test_native_http_check_results(self):
        srv = HttpServer(self, OK_PAGE)
        d = vedette_test.make_temp_dir(self)
        with open(os.path.join(d, "resource.cfg"), "w") as f:
            f.write("$USER1$=%s\n" % PLUGINS)
        with open(os.path.join(d, "objects.cfg"), "w") as f:
            f.write(OBJECTS + native_compare.services("web01", (("web", "http!%d" % srv.port),
                                                                 ("cert", "https_cert!%d" % srv.port))))
        cfg = os.path.join(d, "vedette.cfg")
        with open(cfg, "w") as f:
            f.write("cfg_file=objects.cfg\nresource_file=resource.cfg\nlog_file=vedette.log\n"
                    "status_file=status.dat\nstatus_update_interval=1\ncommand_file=vedette.cmd\n"
                    "interval_length=1\nillegal_macro_output_chars=`~$&|'\"<>\n")
        rc, out, err = vedette_test.run_verify(cfg)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("\tcheck_http: 1 native, 1 as a process (unsupported option -C)\n", out)
        vedette_test.start_daemon(self, cfg)
        status_path = os.path.join(d, "status.dat")
        vedette_test.wait_until("both services checked", lambda: len(status_dat.checked_services(status_path)) == 2,
                                timeout=30, describe=lambda: repr(status_dat.checked_services(status_path).keys()))
        s = status_dat.checked_services(status_path)
        self.assertRegex(s["web"]["plugin_output"],
                         r"^HTTP OK: HTTP/1\.1 200 OK - %d bytes in \d\.\d{3} second response time$" % len(OK_PAGE))
        self.assertRegex(s["web"]["performance_data"], r"^time=\d\.\d{6}s;;;0\.000000;10\.000000 size=%dB;;;0;$" % len(OK_PAGE))
        self.assertEqual(s["web"]["current_state"], "0")
        self.assertEqual(s["cert"]["current_state"], "2")  # the process: TLS against a plain server


if __name__ == "__main__":
    unittest.main()
