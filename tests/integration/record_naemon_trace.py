"""Records what Naemon does on a trace into the trace file's `expected` (tests/fixtures/naemon-traces/).

    python3 record_naemon_trace.py --naemon /path/to/bin/naemon TRACE.json [TRACE.json ...]

The Naemon binary is one you built yourself from naemon-core 1.5.2's public sources, outside this
repository (nothing of Naemon is kept here). test_naemon_traces.py replays each trace on Vedette and
compares with what was recorded.
"""
import argparse
import glob
import json
import os

import naemon_trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--naemon", required=True, help="the naemon binary")
    ap.add_argument("--livestatus", help="naemon-livestatus' livestatus.so (default: found under the "
                    "naemon binary's prefix), for traces with Livestatus queries")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(a.naemon)))
    env = {"LD_LIBRARY_PATH": ":".join(glob.glob(os.path.join(prefix, "lib*")))}
    modules = glob.glob(os.path.join(prefix, "lib*", "**", "livestatus.so"), recursive=True)
    livestatus = a.livestatus or (modules[0] if modules else naemon_trace.DEFAULT_LIVESTATUS_MODULE)
    for path in a.traces:
        trace = naemon_trace.load(path)
        trace["expected"] = naemon_trace.record(trace, [a.naemon], env, livestatus_module=livestatus)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(trace, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("recorded", path)


if __name__ == "__main__":
    main()
