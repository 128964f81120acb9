#!/usr/bin/env python3
"""The Python front end against pyflakes on the same tree (target: at most 0.5x).

pyflakes is the yardstick a Python user already runs on every save: it parses
each file and walks it once. `streamlife check` does more (it loads the local
modules each file imports, lowers the functions into the stream IR and runs
the lifetime analysis), and must stay well under pyflakes' cost to be run the
same way.

Both commands get the same folder (or files), whole, in one process each:

  streamlife   streamlife check --quiet TREE...
  pyflakes     pyflakes3 TREE...

and the pair is repeated --runs times, alternating which goes first, so that
drift on a shared machine hits both alike. Per command: the median over runs of
the wall time and of the CPU time (user + system of the process tree, the
RUSAGE_CHILDREN delta around it: other load on the machine stretches the wall
time far more than the CPU time a command uses), and the ratio
streamlife/pyflakes of both medians and, pair by pair, its median.
--baseline-streamlife BIN adds another build's streamlife as a third command
(before/after a change, under the same load).

usage: vs_pyflakes.py [--runs N] [--streamlife BIN] [--pyflakes BIN]
                      [--baseline-streamlife BIN] TREE...
Exit status: 0, or 2 when a command cannot be run.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(command):
    """(wall seconds, CPU seconds) of one run of COMMAND; its output is dropped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # streamlife exits 1 when it has findings, pyflakes when it has messages.
    if result.returncode not in (0, 1):
        sys.exit("vs_pyflakes.py: %s exited %d" % (command[0], result.returncode))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--streamlife", default=os.path.join(ROOT, "build", "bin", "streamlife"))
    parser.add_argument("--pyflakes", default=shutil.which("pyflakes3") or "pyflakes3")
    parser.add_argument("--baseline-streamlife", help="another build's streamlife, timed alike")
    parser.add_argument("trees", nargs="+", help="folders or .py files")
    args = parser.parse_args()
    for binary in [args.streamlife, args.pyflakes] + (
            [args.baseline_streamlife] if args.baseline_streamlife else []):
        if not shutil.which(binary):
            print("vs_pyflakes.py: cannot run '%s'" % binary, file=sys.stderr)
            return 2
    commands = {
        "streamlife": [args.streamlife, "check", "--quiet"] + args.trees,
        "pyflakes": [args.pyflakes] + args.trees,
    }
    if args.baseline_streamlife:
        commands["baseline"] = [args.baseline_streamlife, "check", "--quiet"] + args.trees
    names = list(commands)
    times = {name: [] for name in names}
    for run in range(args.runs):
        order = names if run % 2 == 0 else list(reversed(names))
        for name in order:
            times[name].append(timed(commands[name]))
        print("run %d/%d: %s" % (run + 1, args.runs, ", ".join(
            "%s %.2fs cpu" % (name, times[name][-1][1]) for name in names)), file=sys.stderr)

    def median(name, index):
        return statistics.median(t[index] for t in times[name])

    print("%-11s %10s %10s" % ("command", "wall s", "cpu s"))
    for name in names:
        print("%-11s %10.3f %10.3f" % (name, median(name, 0), median(name, 1)))
    for name in [n for n in names if n != "pyflakes"]:
        pairs_cpu = [a[1] / b[1] for a, b in zip(times[name], times["pyflakes"]) if b[1] > 0]
        pairs_wall = [a[0] / b[0] for a, b in zip(times[name], times["pyflakes"]) if b[0] > 0]
        print("%s/pyflakes: wall %.3f, cpu %.3f (medians); pair by pair: wall %.3f, cpu %.3f"
              % (name, median(name, 0) / median("pyflakes", 0),
                 median(name, 1) / median("pyflakes", 1),
                 statistics.median(pairs_wall), statistics.median(pairs_cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
