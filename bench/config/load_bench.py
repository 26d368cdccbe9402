#!/usr/bin/env python3
"""Config load benchmark: `vedette -v` against `nagios4 -v` and `naemon -v` on the same generated configuration.

For each size (small = 100x10, 100k = 10,000x10, 600k = 60,000x10, 1m = 100,000x10 services) bench/gen_config.py
writes one set of objects with two main configs (vedette.cfg with Naemon's option names, nagios.cfg for Nagios 4).
The shapes that once made the loader superlinear are sizes too: 1host-25k, 1host-50k, 1host-100k (every service on
one host), depchain-200k (one host, 200k services, each depending on the one before), tmplchain-4k and
tmplchain-10k (a host template chain adding one custom variable per level; nagios4 needs minutes there, so
--no-nagios). Every core verifies it --reps times, alternating which goes first. Per run: wall time
(perf_counter around spawn to reap) and the child's peak RSS (ru_maxrss from wait4). All must exit 0 with
"Total Errors: 0" and report the same "Checked N <kind>" counts.

--bin may be given more than once as NAME=PATH to measure builds side by side (before=/tmp/vedette-old
after=build/release/vedette). --naemon-bin adds Naemon (built by hand; it refuses to run as root, so as root it
verifies as `nobody`, and the configuration directory is made readable). --pause N waits N seconds before each
run: on a virtual machine memory a process has just freed is quick to touch again, while memory the hypervisor
has taken back costs a fault on the host per page, which is what a core meets when it starts on a quiet machine.

Prints a Markdown table and the targets: wall <= 1/5 of nagios4 and <= 1/4 of naemon (median), 600k in <= 1 s,
peak RSS <= 150 MB at 100k. Exit status: 1 on errors (a core fails, error count != 0, counts differ, binary
missing), 0 otherwise, also when a target is missed. Without nagios4 installed, it is left out. Stdlib only.

  python3 bench/config/load_bench.py --bin build/release/vedette [--sizes small,100k] [--reps 3]
  python3 bench/config/load_bench.py --bin before=/tmp/vedette-old --bin after=build/release/vedette \\
      --naemon-bin /opt/naemon/bin/naemon --no-nagios --sizes 100k,600k,1m --pause 5
  python3 bench/config/load_bench.py --sizes 1host-25k,1host-50k,1host-100k,depchain-200k
  python3 bench/config/load_bench.py --sizes tmplchain-4k,tmplchain-10k --no-nagios
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "integration"))
import gen_config  # noqa: E402
from vedette_test import parse_counts, parse_totals  # noqa: E402

WALL_RATIO_TARGET = 0.2      # vedette median wall <= 1/5 of nagios4's
NAEMON_RATIO_TARGET = 0.25   # and <= 1/4 of naemon's (issue 36)
SECONDS_600K_TARGET = 1.0    # 600k services in <= 1 s (issue 36)
RSS_TARGET_MB = 150.0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# Runs one command and reports its wall time and peak RSS. A separate, minimal interpreter (no site,
# only os/sys/time) so the child starts from a small address space: ru_maxrss keeps the high-water
# mark of the memory a process had before execve, and after fork that is the forking process's
# resident anonymous memory (this benchmark's own would be tens of MB after generating 100k services).
_SPAWNER = r"""
import os, sys, time
result, user, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        if user != "-":
            uid, gid = (int(x) for x in user.split(":"))
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(result, "w") as f:
    f.write("%d %.6f %d %.6f\n" % (os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss,
                                  usage.ru_utime + usage.ru_stime))
"""


def measure(binary, cfg, timeout, outdir, as_user=None):
    """One `binary -v cfg` (as `as_user`, "uid:gid", when given): returns dict(rc, wall, rss_mb, stdout)."""
    out_path = os.path.join(outdir, "verify.out")
    res_path = os.path.join(outdir, "verify.res")
    if os.path.exists(res_path):
        os.unlink(res_path)
    with open(out_path, "w+") as out:
        proc = subprocess.Popen([sys.executable, "-S", "-I", "-c", _SPAWNER, res_path, as_user or "-", binary, "-v",
                                 cfg],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)  # its own session: the spawner and the core
            proc.wait()
        out.seek(0)
        text = out.read()
    try:
        with open(res_path) as f:
            rc, wall, maxrss_kb, cpu = f.read().split()
        return {"rc": int(rc), "wall": float(wall), "rss_mb": int(maxrss_kb) / 1024.0, "cpu": float(cpu),
                "stdout": text}
    except (OSError, ValueError):
        return {"rc": proc.returncode if proc.returncode else -1, "wall": float("nan"), "rss_mb": float("nan"),
                "cpu": float("nan"),
                "stdout": text + "\n(killed after %.0f s or spawner failed)" % timeout}


def spawner_floor_mb(workdir):
    """Peak RSS the spawner itself gives a child (measured with /bin/true): the floor of every RSS figure."""
    r = measure("/bin/true", "-v", 30, workdir)  # /bin/true ignores its arguments
    return r["rss_mb"]


def check_run(core, size, run, errors):
    """Append error strings for a failed verification; returns True when the run is clean."""
    warnings, errs = parse_totals(run["stdout"])
    problems = []
    if run["rc"] != 0:
        problems.append("exit %d" % run["rc"])
    if errs != 0:
        problems.append("Total Errors: %s" % ("missing" if errs is None else errs))
    if not parse_counts(run["stdout"]):
        problems.append("no 'Checked N ...' lines")
    if problems:
        tail = "\n".join(run["stdout"].splitlines()[-25:])
        errors.append("%s %s: %s\n%s" % (core, size, ", ".join(problems), tail))
        return False
    return True


def fmt(x, digits=3):
    return "n/a" if x is None else ("%.*f" % (digits, x))


def parse_bins(values):
    """--bin values (PATH or NAME=PATH) as [(name, absolute path)]; a lone PATH is named "vedette"."""
    out = []
    for v in values or ["build/release/vedette"]:
        name, sep, path = v.partition("=")
        if not sep:
            name, path = "vedette", v
        out.append((name, os.path.abspath(path)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", action="append", help="vedette binary, or NAME=PATH (repeatable)")
    p.add_argument("--nagios-bin", default=os.environ.get("NAGIOS_BIN", "/usr/sbin/nagios4"))
    p.add_argument("--naemon-bin", default=os.environ.get("NAEMON_BIN"), help="naemon binary (built by hand)")
    p.add_argument("--sizes", default="small,100k", help="comma list of: %s" % ",".join(sorted(gen_config.SIZES)))
    p.add_argument("--no-nagios", action="store_true",
                   help="leave nagios4 out (it is itself superlinear in the template chain shapes)")
    p.add_argument("--reps", type=int, default=3, help="runs per core and size (default 3)")
    p.add_argument("--pause", type=float, default=0, help="seconds to wait before each run (default 0)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run before it is killed")
    p.add_argument("--workdir", help="where to generate configs (default: a temp dir, removed afterwards)")
    p.add_argument("--keep", action="store_true", help="keep the generated configs")
    a = p.parse_args(argv)

    sizes = [s.strip() for s in a.sizes.split(",") if s.strip()]
    bad = [s for s in sizes if s not in gen_config.SIZES]
    if bad or not sizes:
        p.error("unknown size(s): %s (known: %s)" % (", ".join(bad) or "none", ", ".join(sorted(gen_config.SIZES))))
    if a.reps < 1:
        p.error("--reps must be >= 1")
    builds = parse_bins(a.bin)
    if len({name for name, _ in builds}) != len(builds):
        p.error("--bin names must differ")
    for name, path in builds:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            log("error: vedette binary %s not found or not executable: %s" % (name, path))
            return 1
    have_nagios = not a.no_nagios and os.path.isfile(a.nagios_bin) and os.access(a.nagios_bin, os.X_OK)
    if not have_nagios and not a.no_nagios:
        log("note: %s not found (package nagios4-core): leaving it out" % a.nagios_bin)
    naemon = os.path.abspath(a.naemon_bin) if a.naemon_bin else None
    if naemon and not (os.path.isfile(naemon) and os.access(naemon, os.X_OK)):
        log("error: naemon binary not found or not executable: %s" % naemon)
        return 1
    naemon_user = None
    if naemon and os.geteuid() == 0:  # "do not start naemon as root user", also for -v
        import pwd
        nobody = pwd.getpwnam("nobody")
        naemon_user = "%d:%d" % (nobody.pw_uid, nobody.pw_gid)

    workdir = os.path.abspath(a.workdir) if a.workdir else tempfile.mkdtemp(prefix="vedette-load-bench-")
    os.makedirs(workdir, exist_ok=True)
    os.chmod(workdir, 0o755)  # nagios4 -v as root checks paths as the nagios user; naemon runs as nobody
    errors = []
    rows = []
    floor = None
    try:
        floor = spawner_floor_mb(workdir)
        for size in sizes:
            h, s, chain, depth = gen_config.SIZES[size]
            t0 = time.perf_counter()
            gen = gen_config.generate(os.path.join(workdir, size), h, s, chain, depth)
            log("%s: generated %d hosts x %d services%s%s in %.1f s (%s)"
                % (size, h, s, " + a servicedependency chain" if chain else "",
                   " + a %d deep template chain" % depth if depth else "", time.perf_counter() - t0, gen["outdir"]))
            cores = [(name, path, gen["vedette_cfg"], None) for name, path in builds]
            if have_nagios:
                cores.append(("nagios4", a.nagios_bin, gen["nagios_cfg"], None))
            if naemon:
                cores.append(("naemon", naemon, gen["vedette_cfg"], naemon_user))
            runs = {name: [] for name, _, _, _ in cores}
            counts = {}
            for rep in range(a.reps):
                order = cores if rep % 2 == 0 else list(reversed(cores))
                for name, binary, cfg, user in order:
                    if a.pause > 0:
                        time.sleep(a.pause)
                    r = measure(binary, cfg, a.timeout, workdir, user)
                    ok = check_run(name, size, r, errors)
                    log("  %s rep %d: %.3f s wall, %.3f s CPU, %.1f MB, exit %d%s"
                        % (name, rep + 1, r["wall"], r["cpu"], r["rss_mb"], r["rc"], "" if ok else " (ERROR)"))
                    runs[name].append(r)
                    if ok:
                        c = parse_counts(r["stdout"])
                        if name in counts and counts[name] != c:
                            errors.append("%s %s: counts changed between runs: %s vs %s" % (name, size, counts[name], c))
                        counts.setdefault(name, c)
            first = builds[0][0]
            for other in counts:
                if first in counts and counts[other] != counts[first]:
                    diff = sorted(k for k in set(counts[first]) | set(counts[other])
                                  if counts[first].get(k) != counts[other].get(k))
                    errors.append("%s: object counts differ: %s" % (size, "; ".join(
                        "%s: %s %s, %s %s" % (k, first, counts[first].get(k), other, counts[other].get(k))
                        for k in diff)))
            for name, _, _, _ in cores:
                walls = [r["wall"] for r in runs[name]]
                c = counts.get(name, {})
                rows.append({"size": size, "core": name, "services": c.get("services", h * s),
                             "median": statistics.median(walls), "min": min(walls),
                             "cpu": statistics.median(r["cpu"] for r in runs[name]),
                             "rss": max(r["rss_mb"] for r in runs[name])})
    finally:
        if a.keep or a.workdir:
            log("configs kept in %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    peers = " and ".join(["`%s -v`" % n for n in ("nagios4", "naemon") if any(r["core"] == n for r in rows)])
    print("## Config load: `vedette -v`%s (%d reps, pause %g s, %s, %d CPUs)\n"
          % (" vs " + peers if peers else "", a.reps, a.pause, platform.node() or "host", os.cpu_count() or 0))
    print("| size | core | services | median wall s | min wall s | median CPU s | peak RSS MB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print("| %s | %s | %d | %.3f | %.3f | %.3f | %.1f |"
              % (r["size"], r["core"], r["services"], r["median"], r["min"], r["cpu"], r["rss"]))
    print()
    print("| size | build | wall / nagios4 (<= %.2f) | wall / naemon (<= %.2f) | 600k in <= %.0f s | RSS at 100k <= %.0f MB |"
          % (WALL_RATIO_TARGET, NAEMON_RATIO_TARGET, SECONDS_600K_TARGET, RSS_TARGET_MB))
    print("| --- | --- | ---: | ---: | --- | --- |")

    def ratio(v, peer, target):
        n = next((r for r in rows if r["size"] == v["size"] and r["core"] == peer), None)
        if n is None or n["median"] <= 0:
            return "n/a"
        x = v["median"] / n["median"]
        return "%.3f %s" % (x, "PASS" if x <= target else "FAIL")

    for size in sizes:
        for name, _ in builds:
            v = next((r for r in rows if r["size"] == size and r["core"] == name), None)
            if v is None:
                continue
            seconds = ("%s (%.2f s)" % ("PASS" if v["median"] <= SECONDS_600K_TARGET else "FAIL", v["median"])
                       if size == "600k" else "")
            rss = ("%s (%.1f MB)" % ("PASS" if v["rss"] <= RSS_TARGET_MB else "FAIL", v["rss"])
                   if size == "100k" else "")
            print("| %s | %s | %s | %s | %s | %s |" % (size, name, ratio(v, "nagios4", WALL_RATIO_TARGET),
                                                   ratio(v, "naemon", NAEMON_RATIO_TARGET), seconds, rss))
    print("\nWall = fork to reap of the core; peak RSS = the core's ru_maxrss "
          "(floor from the spawner: %s MB, /bin/true); MB = 2^20 bytes. CPU = user + sys of the core, "
          "a cross-check when the machine is busy." % fmt(floor, 1))
    if errors:
        print("\n**Errors:**\n")
        for e in errors:
            print("- " + e.replace("\n", "\n    "))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
