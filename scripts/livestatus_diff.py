#!/usr/bin/env python3
"""Thruk's recorded Livestatus requests (tests/fixtures/thruk-3.20.2/queries.txt) sent to Naemon with
naemon-livestatus and to Vedette, on the same objects and the same state, and the answers compared.

    scripts/livestatus_diff.py --naemon-ready READY --candidate build/release/vedette [--keep] [--all]

READY names the Naemon you built yourself (NAEMON_BIN=…, NAEMON_LIVESTATUS=…), as for scripts/naemon_diff.py;
the harness that starts both cores is the differential fuzzer's (../shared/tools/naemon-diff, --fuzzer PATH).

Both cores load the objects of tests/integration/test_thruk_queries.py with passive checks only, are given the
same results, acknowledgement, downtime and comments through their command files, and then answer every GET
request of the fixture (the time filters opened to cover the run). Cells whose value depends on when each core
ran (times, latencies, pids, ids of the run, counters of the process) are compared by kind only. What differs
is printed per table and column, with an example, minus the differences docs/compatibility.md lists as
naemon-livestatus's bugs (--all shows them too). Exit 1 if anything else differs.
"""
import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_FUZZER = os.path.join(ROOT, "..", "shared", "tools", "naemon-diff")
QUERIES = os.path.join(ROOT, "tests", "fixtures", "thruk-3.20.2", "queries.txt")

SERVICES = ["HTTP", "SSH", "NTP", "App Status", "Queue Length"]

# Columns whose value is a moment or a duration of this run, or a fact of the process: both sides must give a
# value of the same kind, not the same value.
VOLATILE = re.compile(
    r"(^|_)(time|times|last_[a-z_]*|next_[a-z_]*|[a-z_]*_time|latency|execution_time|program_start|nagios_pid|"
    r"entry_time|start_time|end_time|expire_time|last_command_check|last_log_rotation|"
    r"[a-z_]*_rate|connections|requests|neb_callbacks|log_messages|forks|host_checks|service_checks|"
    r"cached_log_messages|livestatus_version|program_version|"
    r"percent_state_change|last_time_[a-z]+|lineno)$")

# Differences docs/compatibility.md ("Livestatus") explains: naemon-livestatus's answer is wrong there.
DOCUMENTED = {
    ("hostgroups", "num_services_hard_ok"), ("hostgroups", "num_services_hard_warn"),
    ("hostgroups", "num_services_hard_crit"), ("hostgroups", "num_services_hard_unknown"),
    ("hostgroups", "worst_service_hard_state"), ("comments", "source"),
}


# Log lines only Naemon writes, about parts Vedette does not have: its query handler, the NEB modules it
# loads, the command file worker process, and the deprecation warnings of options Vedette also ignores.
NAEMON_ONLY_LOG = re.compile(
    r"^(qh: |nerd: |Loading neb modules|Reading all config object data|Successfully launched command file "
    r"worker|livestatus: |Event broker module '.*' initialized successfully|Warning: \S+ is deprecated )")


def log_rows(cols, rows, drop_naemon_only):
    """Log rows as a multiset, each cell normalised: lines of the same second come in the order each core
    wrote them, which commands sent a fraction of a millisecond apart can split across a second boundary."""
    at = cols.index("message") if "message" in cols else None
    out = []
    for row in rows:
        if at is not None and drop_naemon_only and NAEMON_ONLY_LOG.match(re.sub(r"^\[\d+\] ", "", row[at])):
            continue
        # Naemon passes a service's NULL output to printf in INITIAL/CURRENT SERVICE STATE lines
        # (docs/compatibility.md); the host lines and Vedette write "".
        out.append(json.dumps([normalise(c, re.sub(r"^\[\d+\] ", "", v.replace("(NULL)", "")))
                               if isinstance(v, str) else normalise(c, v) for c, v in zip(cols, row)]))
    return sorted(out)


def objects():
    out = []
    for g in ("web-servers", "db-servers", "linux-servers", "scripted"):
        out.append("define hostgroup {\n  hostgroup_name %s\n  alias %s\n}\n" % (g, g))
    out.append("define servicegroup {\n  servicegroup_name App\n  alias App\n}\n")
    out.append("define contact {\n  contact_name thrukadmin\n  host_notification_commands notify_host\n"
               "  service_notification_commands notify_svc\n  host_notification_period 24x7\n"
               "  service_notification_period 24x7\n}\n")
    for i in range(51):
        host = "host-%03d" % i
        groups = ["linux-servers", "web-servers" if i % 2 else "db-servers"] + (["scripted"] if i % 5 == 0 else [])
        out.append("define host {\n  use base-host\n  host_name %s\n  alias Host %d\n  active_checks_enabled 0\n"
                   "  hostgroups %s\n  contacts thrukadmin\n}\n" % (host, i, ",".join(groups)))
        for s in SERVICES:
            group = "  servicegroups App\n" if s == "App Status" else ""
            out.append("define service {\n  use base-svc\n  host_name %s\n  service_description %s\n"
                       "  max_check_attempts 1\n  active_checks_enabled 0\n%s  contacts thrukadmin\n}\n"
                       % (host, s, group))
    return "".join(out)


def state_commands(now):
    """The same state for both: results of every kind, an acknowledgement, a downtime, comments."""
    out = []
    for i in range(51):
        host = "host-%03d" % i
        out.append("PROCESS_HOST_CHECK_RESULT;%s;%d;%s" % (host, 1 if i in (3, 7) else 0,
                                                          "DOWN - no route" if i in (3, 7) else "UP - fine"))
        for j, s in enumerate(SERVICES):
            code = (i + j) % 4 if (i + j) % 3 == 0 else 0
            out.append("PROCESS_SERVICE_CHECK_RESULT;%s;%s;%d;%s - %s is %d|load=%d.5;1;2;0;9 t=%dms"
                       % (host, s, code, ["OK", "WARNING", "CRITICAL", "UNKNOWN"][code], s, i, i % 9, j))
    out.append("ACKNOWLEDGE_SVC_PROBLEM;host-001;HTTP;2;1;1;thrukadmin;looking into it")
    out.append("ACKNOWLEDGE_HOST_PROBLEM;host-003;1;1;0;thrukadmin;cable")
    out.append("SCHEDULE_SVC_DOWNTIME;host-002;SSH;%d;%d;1;0;3600;thrukadmin;maintenance" % (now - 5, now + 3600))
    out.append("SCHEDULE_HOST_DOWNTIME;host-010;%d;%d;1;0;7200;thrukadmin;move" % (now - 5, now + 7200))
    out.append("ADD_HOST_COMMENT;host-004;1;thrukadmin;a host comment")
    out.append("ADD_SVC_COMMENT;host-005;NTP;0;thrukadmin;a service comment")
    return out


def requests():
    with open(QUERIES, encoding="utf-8") as f:
        return [r.strip("\n") for r in f.read().split("\n\n") if r.strip()]


def with_times(request, start, end):
    """Thruk's time filters (@TS@ in the fixture) opened to cover the whole run."""
    out = []
    for line in request.split("\n"):
        if "@TS@" in line:
            low = re.search(r"\s>=?\s", line) is not None
            line = line.replace("@TS@", str(start if low else end))
        out.append(line)
    return "\n".join(out)


def columns_of(request):
    cols = []
    for line in request.split("\n"):
        if line.startswith("Columns:"):
            cols += line[len("Columns:"):].split()
    stats = sum(1 for line in request.split("\n") if line.startswith("Stats:"))
    for line in request.split("\n"):
        m = re.match(r"Stats(And|Or): (\d+)", line)
        if m:
            stats -= int(m.group(2)) - 1
    return cols + ["stats_%d" % i for i in range(stats)]


def rows(body):
    """The rows of a json or wrapped_json answer."""
    answer = json.loads(body.decode("utf-8", "replace"))
    return answer.get("data") if isinstance(answer, dict) else answer


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    return type(v).__name__


def normalise(column, v):
    if VOLATILE.search(column):
        return "<%s>" % kind(v)
    if isinstance(v, str):
        return re.sub(r"(Vedette|Naemon) (?:[0-9.]+ )?(starting\.\.\.|successfully initialized) \(PID=\d+\)",
                      r"<core> \2", v)
    return v


def compare(request, table, a, b, diffs):
    cols = columns_of(request)
    if not isinstance(a, list) or not isinstance(b, list):
        diffs.append((table, "<answer>", request, a, b))
        return
    if table == "log":
        a, b = log_rows(cols, a, True), log_rows(cols, b, False)
        only_a = sorted(set(a) - set(b))
        only_b = sorted(set(b) - set(a))
        if only_a or only_b:
            diffs.append((table, "<rows>", request, only_a[:3], only_b[:3]))
        return
    if len(a) != len(b):
        diffs.append((table, "<rows>", request, len(a), len(b)))
        return
    for ra, rb in zip(a, b):
        if not isinstance(ra, list) or not isinstance(rb, list) or len(ra) != len(rb):
            diffs.append((table, "<width>", request, ra, rb))
            return
        names = cols if len(cols) == len(ra) else ["col_%d" % i for i in range(len(ra))]
        for name, va, vb in zip(names, ra, rb):
            if normalise(name, va) != normalise(name, vb):
                diffs.append((table, name, request, va, vb))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--naemon-ready", required=True)
    p.add_argument("--candidate", required=True)
    p.add_argument("--fuzzer", default=DEFAULT_FUZZER)
    p.add_argument("--keep", action="store_true", help="keep both run directories")
    p.add_argument("--all", action="store_true", help="also show the documented differences")
    p.add_argument("--dump", metavar="DIR", help="write each request and both answers to DIR")
    a = p.parse_args()
    os.environ["ACC_PEERS_READY"] = os.path.abspath(a.naemon_ready)
    os.environ["ENGINE_CMD"] = os.path.abspath(a.candidate)
    sys.path.insert(0, os.path.abspath(a.fuzzer))
    from lib import engines, harness

    insts = []
    try:
        for engine in (engines.Naemon(), engines.Candidate()):
            ctx = harness.Context(engine, keep=a.keep)
            inst = harness.Instance(ctx, "lsdiff-" + engine.name, objects(), livestatus=True,
                                    main=[("log_initial_states", "1")])
            insts.append(inst)
            inst.start()
        start = int(time.time()) - 60
        now = int(time.time())
        for line in state_commands(now):
            for inst in insts:
                inst.cmd(line, now)
        time.sleep(4)  # both have read their command files and written status.dat
        end = int(time.time()) + 60

        diffs = []
        answered = 0
        for request in requests():
            if request.startswith("COMMAND "):
                continue
            request = with_times(request, start, end)
            if "ResponseHeader:" not in request:
                request += "\nOutputFormat: json\nResponseHeader: fixed16"
            table = request.split("\n", 1)[0].split()[1]
            answers = []
            for inst in insts:
                code, body = harness.parse_fixed16(inst.ls_raw(request))
                answers.append((code, body))
            (ca, ba), (cb, bb) = answers
            if a.dump:
                os.makedirs(a.dump, exist_ok=True)
                with open(os.path.join(a.dump, "%03d.json" % answered), "w") as f:
                    json.dump({"request": request, "naemon": ba.decode("utf-8", "replace"),
                               "vedette": bb.decode("utf-8", "replace")}, f)
            if ca != cb:
                diffs.append((table, "<status>", request, ca, cb))
                continue
            answered += 1
            compare(request, table, rows(ba), rows(bb), diffs)
    finally:
        for inst in insts:
            try:
                inst.stop()
            except Exception:  # noqa: BLE001 - report what differs even if one core is already gone
                pass
            if a.keep:
                print("kept %s" % inst.dir)
            else:
                inst.ctx.cleanup()

    shown = [d for d in diffs if a.all or (d[0], d[1]) not in DOCUMENTED]
    by_column = {}
    for d in shown:
        by_column.setdefault((d[0], d[1]), []).append(d)
    for (table, column), ds in sorted(by_column.items()):
        _, _, request, va, vb = ds[0]
        print("%s.%s: %d cells differ, e.g. naemon-livestatus %s, Vedette %s" % (
            table, column, len(ds), json.dumps(va)[:200], json.dumps(vb)[:200]))
        print("    in: " + " | ".join(request.split("\n")[:3])[:300])
    print("%d requests answered alike by status; %d columns differ (%d documented differences not shown)" % (
        answered, len(by_column), len(diffs) - len(shown)))
    return 1 if by_column else 0


if __name__ == "__main__":
    sys.exit(main())
