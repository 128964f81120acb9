#!/usr/bin/env python3
"""Run a command N times and check the runtime validator's verdict in every run.

The point of a happens-before validator is that its verdict does not depend on
timing, so a GPU test runs the same program many times and demands the same
answer each time:

  repeat.py --runs 20 --expect-finding unsafe-free -- CMD ARGS...
      every run's stderr has a line starting `streamlife: error: unsafe-free:`
  repeat.py --runs 20 --expect-clean -- CMD ARGS...
      no run has a `streamlife: error:` line

In both modes every run must also print the validator's
`streamlife: summary: N finding(s)` line (so a run in which the validator did
not load, or died, fails the test instead of passing it quietly), exit with
--expect-exit (default 0), and, with --expect-result, print that exact
`result:` line on stdout.

Output: one line per check, e.g.
  repeat: unsafe-free reported in 20 of 20 runs (program said: result: ok x20)
and, on a mismatch, the first offending run's exit status, stdout and stderr.
Exit 0 when every run met the expectation, 1 otherwise, 2 on bad usage.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

SUMMARY = re.compile(r"^streamlife: summary: (\d+) findings?$", re.M)
ANY_FINDING = re.compile(r"^streamlife: error: ([a-z-]+):", re.M)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--expect-finding", metavar="KIND",
                      help="every run reports a finding of this kind")
    mode.add_argument("--expect-clean", action="store_true",
                      help="no run reports anything")
    parser.add_argument("--expect-exit", type=int, default=0,
                        help="exit status every run must have (default 0)")
    parser.add_argument("--expect-result", metavar="LINE",
                        help="exact `result:` line every run must print")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds allowed per run")
    parser.add_argument("--jobs", type=int, default=1,
                        help="runs at a time (Python programs spend seconds importing "
                             "PyTorch; the runs stay independent processes)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    if not args.command:
        parser.error("no command given (put it after --)")
    if args.runs <= 0:
        parser.error("--runs must be positive")
    if args.jobs <= 0:
        parser.error("--jobs must be positive")
    return args


def result_line(stdout):
    lines = [l for l in stdout.splitlines() if l.startswith("result:")]
    return lines[-1] if lines else "(no result line)"


def tail(text, lines=40):
    kept = text.splitlines()[-lines:]
    return "\n".join("    | " + l for l in kept) if kept else "    | (empty)"


def problems_of_run(args, proc):
    """What is wrong with one run, as a list of short phrases (empty: fine)."""
    problems = []
    if proc.returncode != args.expect_exit:
        problems.append("exit status %d, expected %d" % (proc.returncode, args.expect_exit))
    summary = SUMMARY.search(proc.stderr)
    kinds = ANY_FINDING.findall(proc.stderr)
    if summary is None:
        problems.append("no 'streamlife: summary:' line (validator not loaded or died?)")
    if args.expect_finding:
        if args.expect_finding not in kinds:
            problems.append("no '%s' finding (found: %s)" % (args.expect_finding, ", ".join(kinds) or "none"))
        if summary is not None and int(summary.group(1)) == 0:
            problems.append("summary says 0 findings")
    else:
        if kinds:
            problems.append("unexpected findings: %s" % ", ".join(kinds))
        if summary is not None and int(summary.group(1)) != 0:
            problems.append("summary says %s finding(s)" % summary.group(1))
    if args.expect_result is not None and result_line(proc.stdout) != args.expect_result:
        problems.append("printed '%s', expected '%s'" % (result_line(proc.stdout), args.expect_result))
    return problems


def main(argv):
    args = parse_args(argv)
    program = args.command[0]
    if os.sep in program and not os.path.exists(program):
        print("repeat: error: %s does not exist (are the CUDA examples built? configure with "
              "-DSTREAMLIFE_BUILD_EXAMPLES_CUDA=ON)" % program, file=sys.stderr)
        return 2
    print("repeat: %d runs of: %s" % (args.runs, " ".join(args.command)))
    sys.stdout.flush()

    def one_run(_):
        return subprocess.run(args.command, capture_output=True, text=True,
                              timeout=args.timeout)

    good = 0
    results = collections.Counter()
    first_bad = None
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            procs = list(pool.map(one_run, range(args.runs)))
    except subprocess.TimeoutExpired:
        print("repeat: a run timed out after %gs" % args.timeout)
        return 1
    except OSError as error:
        print("repeat: error: cannot run %s: %s" % (program, error), file=sys.stderr)
        return 2
    for run, proc in enumerate(procs):
        results[result_line(proc.stdout)] += 1
        problems = problems_of_run(args, proc)
        if problems:
            if first_bad is None:
                first_bad = (run + 1, problems, proc)
        else:
            good += 1

    said = ", ".join("%s x%d" % (line, count) for line, count in sorted(results.items()))
    if args.expect_finding:
        what = "%s reported" % args.expect_finding
    else:
        what = "clean (0 findings)"
    print("repeat: %s in %d of %d runs (program said: %s)" % (what, good, args.runs, said))
    if first_bad is None:
        return 0
    run, problems, proc = first_bad
    print("repeat: FAIL: run %d: %s" % (run, "; ".join(problems)))
    print("  stdout:\n" + tail(proc.stdout))
    print("  stderr:\n" + tail(proc.stderr))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
