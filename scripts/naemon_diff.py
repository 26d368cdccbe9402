#!/usr/bin/env python3
"""The differential fuzzer against Naemon (../shared/tools/naemon-diff/diff_fuzz.py), taught the
differences docs/compatibility.md argues for, so that `every seed agrees` means Vedette behaves as Naemon
wherever it means to.

    scripts/naemon_diff.py --naemon-ready READY --candidate build/release/vedette --seeds 1-40 --steps 300

Takes diff_fuzz.py's options unchanged (--fuzzer PATH if it is not at ../shared/tools/naemon-diff). The
Naemon it compares with is one you built yourself from its public sources, outside this repository.

Expected differences:
- acknowledgement_type after REMOVE_*_ACKNOWLEDGEMENT: Naemon keeps the old type behind the cleared flag
  (status.dat says problem_has_been_acknowledged=0, acknowledgement_type=2); Vedette writes 0. Accepted only
  when both sides say the problem is not acknowledged.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FUZZER = os.path.join(HERE, "..", "..", "shared", "tools", "naemon-diff")


def expected(what, naemon, vedette, snaps):
    """Whether a status.dat difference is one of the documented ones."""
    obj, _, field = what.rpartition(" ")
    if field == "acknowledgement_type":
        a, b = snaps[0].get(obj, {}), snaps[1].get(obj, {})
        return a.get("problem_has_been_acknowledged") == "0" and b.get("problem_has_been_acknowledged") == "0"
    return False


def main():
    fuzzer = DEFAULT_FUZZER
    if "--fuzzer" in sys.argv:
        i = sys.argv.index("--fuzzer")
        fuzzer = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    sys.path.insert(0, os.path.abspath(fuzzer))
    import diff_fuzz

    original = diff_fuzz.diff_status

    def diff_status(a, b):
        for what, naemon, vedette in original(a, b):
            if not expected(what, naemon, vedette, (a, b)):
                yield what, naemon, vedette

    diff_fuzz.diff_status = diff_status
    sys.argv[0] = os.path.join(fuzzer, "diff_fuzz.py")
    diff_fuzz.main()


if __name__ == "__main__":
    main()
