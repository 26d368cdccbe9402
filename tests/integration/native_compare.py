"""The differential step of the native-check tests: the installed plugin and `vedette --native-check` on the
same arguments, their output compared once `mask` has blanked measured values, and the exit codes. And the
services their daemon tests run."""
import socket
import subprocess
import threading

import vedette_test

NOT_NATIVE = 125  # --native-check's exit code when the command line would run as a process


def run(argv, timeout=60):
    r = subprocess.run(argv, capture_output=True, timeout=timeout)
    return r.stdout.decode("latin-1"), r.returncode


def compare(testcase, plugin, args, mask, wrap=lambda argv: argv, expect_rc=None):
    """Runs both (each argv through `wrap`, e.g. into a namespace); returns the native output."""
    real_out, real_rc = run(wrap([plugin] + list(args)))
    native_out, native_rc = run(wrap([vedette_test.vedette_bin(), "--native-check", plugin] + list(args)))
    testcase.assertNotEqual(native_rc, NOT_NATIVE, "did not run natively: %r" % (args,))
    testcase.assertEqual(mask(native_out), mask(real_out), "output of %r" % (args,))
    testcase.assertEqual(native_rc, real_rc, "exit code of %r: %r" % (args, real_out))
    if expect_rc is not None:
        testcase.assertEqual(real_rc, expect_rc, real_out)
    return native_out


def services(host, described):
    """Object text: a service on `host` checked every interval for each (description, check_command)."""
    return "".join("""
define service {
  host_name %s
  service_description %s
  check_command %s
  max_check_attempts 1
  check_interval 1
  retry_interval 1
  contacts admin
}
""" % (host, description, command) for description, command in described)


class Server:
    """A TCP listener on 127.0.0.1 with a behaviour per accepted connection, on its own thread."""

    def __init__(self, testcase, handler, backlog=16):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(backlog)
        self.port = self.sock.getsockname()[1]
        self.handler = handler
        self.stopping = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()
        testcase.addCleanup(self.stop)

    def serve(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn):
        try:
            self.handler(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def stop(self):
        self.stopping = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
