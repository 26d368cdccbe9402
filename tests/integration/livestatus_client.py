"""A raw Livestatus client for the tests (stdlib only): one request per connection, or several on one
KeepAlive connection.

    rows = query(v.path("live"), "GET hosts\\nColumns: name state\\n")  # csv text
    code, body = query_fixed16(v.path("live"), "GET nosuchtable\\n")   # (404, "...")
"""
import json
import socket
import time


def connect(address, timeout=10):
    """A connected socket: `address` is a Unix socket path or a (host, port) pair."""
    if isinstance(address, tuple):
        s = socket.create_connection(address, timeout=timeout)
    else:
        # A full listen backlog (256, the module's default) refuses a Unix connect with EAGAIN: retry.
        deadline = time.monotonic() + timeout
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            try:
                s.connect(address)
                break
            except BlockingIOError:
                s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
    return s


def read_all(s):
    chunks = []
    while True:
        data = s.recv(1 << 16)
        if not data:
            return b"".join(chunks).decode()
        chunks.append(data)


def read_exactly(s, n):
    data = b""
    while len(data) < n:
        more = s.recv(n - len(data))
        if not more:
            raise AssertionError("connection closed after %d of %d bytes" % (len(data), n))
        data += more
    return data


def query(address, request, timeout=10):
    """Sends one request (the empty line that ends it is added) and closes its side, as unixcat does; reads
    the answer until the server closes."""
    s = connect(address, timeout)
    try:
        s.sendall((request.rstrip("\n") + "\n\n").encode())
        s.shutdown(socket.SHUT_WR)
        return read_all(s)
    finally:
        s.close()


def read_fixed16(s):
    """One answer with a fixed16 header: (code, body)."""
    header = read_exactly(s, 16).decode()
    code, length = int(header[:3]), int(header[4:15])
    return code, read_exactly(s, length).decode()


def query_fixed16(address, request, timeout=10):
    s = connect(address, timeout)
    try:
        s.sendall((request.rstrip("\n") + "\nResponseHeader: fixed16\n\n").encode())
        return read_fixed16(s)
    finally:
        s.close()


def query_json(address, request, timeout=10):
    code, body = query_fixed16(address, request.rstrip("\n") + "\nOutputFormat: json\n", timeout)
    if code != 200:
        raise AssertionError("%d %s" % (code, body))
    return json.loads(body)


def wait_for_socket(path, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        try:
            connect(path, 1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError("no Livestatus socket at %s" % path)
            time.sleep(0.05)
