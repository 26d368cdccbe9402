"""status.dat as Naemon writes it (xsddefault.c), parsed and masked for comparison (stdlib only).

Used by test_status_dat.py and by tests/fixtures/status_dat/regenerate.py, which runs the reference Naemon
on the same configuration: both sides are masked the same way, so the committed fixture and Vedette's file
can be compared block by block and field by field.

    blocks = parse(text)                 # [("hoststatus", [("host_name", "web-1"), ...]), ...]
    text = render(mask(blocks), header(text))   # the committed fixture's form
"""
import os
import re
import time

# Values that depend on when and how fast the run went: times, durations, pids, the version, and the
# counts of checks in the last minutes. Masked to "<time>" (or "<value>"), except that a time of 0 stays 0:
# "never" against "at some time" is a real difference.
TIME_KEYS = {
    "created", "program_start", "last_log_rotation", "last_check", "next_check", "last_state_change",
    "last_hard_state_change", "last_time_up", "last_time_down", "last_time_unreachable", "last_time_ok",
    "last_time_warning", "last_time_unknown", "last_time_critical", "last_notification",
    "next_notification", "problem_start", "problem_end", "acknowledgement_end_time", "last_update",
    "last_host_notification", "last_service_notification", "entry_time", "expire_time", "start_time",
    "end_time", "flex_downtime_start",
}
VALUE_KEYS = {"version", "nagios_pid", "check_execution_time", "check_latency"}
STATS_SUFFIX = "_check_stats"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def parse(text):
    """The blocks of a status.dat: [(type, [(key, value), ...]), ...] in file order."""
    blocks = []
    current = None
    for line in text.splitlines():
        if current is None:
            m = re.match(r"^(\w+) \{$", line)
            if m:
                current = (m.group(1), [])
            continue
        if line == "\t}":
            blocks.append(current)
            current = None
            continue
        key, sep, value = line.lstrip("\t").partition("=")
        if not sep:
            raise ValueError("not a key=value line in block %s: %r" % (current[0], line))
        current[1].append((key, value))
    if current is not None:
        raise ValueError("unterminated block %s" % current[0])
    return blocks


def checked_services(path):
    """The servicestatus fields of the services checked so far, by description ({} before the first write)."""
    if not os.path.exists(path):
        return {}
    with open(path, errors="replace") as f:
        blocks = parse(f.read())
    fields = [dict(b) for kind, b in blocks if kind == "servicestatus"]
    return {f["service_description"]: f for f in fields if f.get("has_been_checked") == "1"}


def mask_value(key, value):
    if key in TIME_KEYS:
        if value in ("0", "0.000000"):
            return value
        return "<time>"
    if key in VALUE_KEYS or key.endswith(STATS_SUFFIX):
        return "<value>"
    if key.endswith("_problem_id") and UUID.match(value):
        return "<uuid>"
    return value


def mask(blocks):
    return [(kind, [(k, mask_value(k, v)) for k, v in fields]) for kind, fields in blocks]


def header(text):
    """The comment lines before the first block (Naemon's banner), each with its newline."""
    lines = []
    for line in text.splitlines(True):
        if re.match(r"^\w+ \{$", line.rstrip("\n")):
            break
        lines.append(line)
    return "".join(lines)


def render(blocks, head=""):
    """The file again from parsed blocks, after `head` (header())."""
    out = []
    for kind, fields in blocks:
        out.append("%s {" % kind)
        out.extend("\t%s=%s" % kv for kv in fields)
        out.append("\t}")
        out.append("")
    return head + "\n".join(out) + "\n"


def block_name(kind, fields):
    """What names a block: its type and first field(s), e.g. "servicestatus web-1;disk"."""
    d = dict(fields)
    if "service_description" in d:
        return "%s %s;%s" % (kind, d.get("host_name"), d["service_description"])
    for key in ("host_name", "contact_name"):
        if key in d:
            return "%s %s" % (kind, d[key])
    return kind


def differences(expected, actual):
    """Every difference between two parsed (masked) files, as readable lines: missing or extra blocks,
    block order, and per block missing/extra/reordered keys and differing values."""
    out = []
    names_e = [block_name(*b) for b in expected]
    names_a = [block_name(*b) for b in actual]
    if names_e != names_a:
        out.append("block order/set differs:\n  naemon:  %s\n  vedette: %s" % (names_e, names_a))
    by_name = {block_name(*b): b for b in actual}
    for kind, fields in expected:
        name = block_name(kind, fields)
        other = by_name.get(name)
        if other is None:
            out.append("%s: missing" % name)
            continue
        keys_e = [k for k, _ in fields]
        keys_a = [k for k, _ in other[1]]
        if keys_e != keys_a:
            out.append("%s: keys differ\n  naemon:  %s\n  vedette: %s" % (name, keys_e, keys_a))
        values_a = dict(other[1])
        for k, v in fields:
            if k in values_a and values_a[k] != v:
                out.append("%s: %s naemon=%r vedette=%r" % (name, k, v, values_a[k]))
    return out


def wait_until(path, settled, timeout, what):
    """Polls the status.dat at `path` until settled(parse(its text)) is true; returns the text."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            text = None
        if text:
            try:
                blocks = parse(text)
            except ValueError:
                blocks = None
            if blocks is not None and settled(blocks):
                return text
            last = text
        time.sleep(0.2)
    raise AssertionError("timed out waiting for %s; last status.dat:\n%s" % (what, last))


def settled_by(spec):
    """A predicate over parsed blocks: every host and service of spec (settled.json) checked and HARD in
    its state, the 'unchecked' ones never checked."""
    def settled(blocks):
        seen = {}
        for kind, fields in blocks:
            d = dict(fields)
            if kind == "hoststatus":
                seen[d["host_name"]] = d
            elif kind == "servicestatus":
                seen["%s;%s" % (d["host_name"], d["service_description"])] = d
        for name, state in list(spec["hosts"].items()) + list(spec["services"].items()):
            d = seen.get(name)
            if d is None or d["has_been_checked"] != "1" or d["state_type"] != "1" or \
                    d["current_state"] != str(state):
                return False
        return all(name in seen and seen[name]["has_been_checked"] == "0" for name in spec["unchecked"])
    return settled
