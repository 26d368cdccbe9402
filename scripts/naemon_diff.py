#!/usr/bin/env python3
"""The differential fuzzer against Naemon (../shared/tools/naemon-diff/diff_fuzz.py), taught the
differences docs/compatibility.md argues for, so that `every seed agrees` means Vedette behaves as Naemon
wherever it means to.

    scripts/naemon_diff.py --naemon-ready READY --candidate build/release/vedette --seeds 1-40 --steps 300

Takes diff_fuzz.py's options unchanged (--fuzzer PATH if it is not at ../shared/tools/naemon-diff). The
Naemon it compares with is one you built yourself from its public sources, outside this repository.

Expected differences: none.

Tolerated input timing (not a difference of the cores, reported as "tolerated"): the fuzzer writes each
command to Naemon, then to Vedette, a fraction of a millisecond apart, and now and then that straddles a
second boundary (the logs show the same SCHEDULE_*_DOWNTIME at :05 in one and :06 in the other). Both run
the downtime's later events at the fraction of the second the command came in (Naemon's timed events), so
that downtime's stop lands .99 s into its second in one core and .00 s in the other, and a timed event of
another downtime due in the same second goes before it in one and after it in the other. A step whose log
lines are the same lines in another order, among them one of such a downtime's object, is tolerated.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FUZZER = os.path.join(HERE, "..", "..", "shared", "tools", "naemon-diff")


def logged_commands(path):
    """The EXTERNAL COMMAND lines of a core's log: (epoch second, command text), in order."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^\[(\d+)\] EXTERNAL COMMAND: (.*)$", line.rstrip("\n"))
            if m:
                out.append((int(m.group(1)), m.group(2)))
    return out


def straddled_objects(run):
    """The objects (as log lines name them: "h4;" or "h1;s0;") of downtimes scheduled by a command the two
    cores logged in different seconds."""
    ref, cand = (logged_commands(side.inst.log_path) for side in run.sides)
    objects = set()
    for (ta, a), (tb, b) in zip(ref, cand):
        if ta == tb or a != b:
            continue
        name, _, rest = a.partition(";")
        args = rest.split(";")
        if name == "SCHEDULE_SVC_DOWNTIME" and len(args) > 1:
            objects.add("%s;%s;" % (args[0], args[1]))
        elif name.startswith("SCHEDULE_") and name.endswith("DOWNTIME") and "HOST" in name and args:
            objects.add("%s;" % args[0])
    return objects


def tolerate_straddles(run, original):
    original(run)
    objects = straddled_objects(run)
    if not objects:
        return
    kept = []
    for d in run.diffs:
        la, lb = d["expected"], d["got"]
        if d["kind"] == "log" and sorted(la) == sorted(lb):
            moved = [x for x, y in zip(la, lb) if x != y]
            if any(": " + o in line for line in moved for o in objects):
                print("  tolerated at step %d: timed events in another order after a downtime command the "
                      "cores logged in different seconds (%s)" % (d["step"], ", ".join(sorted(objects))))
                continue
        kept.append(d)
    run.diffs[:] = kept


def main():
    fuzzer = DEFAULT_FUZZER
    if "--fuzzer" in sys.argv:
        i = sys.argv.index("--fuzzer")
        fuzzer = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    sys.path.insert(0, os.path.abspath(fuzzer))
    import diff_fuzz

    compare_steps = diff_fuzz.Run.compare_steps
    diff_fuzz.Run.compare_steps = lambda run: tolerate_straddles(run, compare_steps)
    sys.argv[0] = os.path.join(fuzzer, "diff_fuzz.py")
    diff_fuzz.main()


if __name__ == "__main__":
    main()
