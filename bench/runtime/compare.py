#!/usr/bin/env python3
"""Run the runtime benchmarks side by side and print the comparison table.

Called by run.sh after it has built the programs. Each workload runs plain,
under `streamlife run`, and under
`compute-sanitizer --tool memcheck --track-stream-ordered-races all`, the
three modes interleaved within each repeat so that drift (clocks, other
tenants) hits them alike. Reported numbers are medians over repeats of each
program's own median:

  launch-bound: host microseconds per launch (launch + event record + wait);
                the validator's cost is the difference, target <= 0.5 us
  gpu-bound:    wall milliseconds per pipeline trial; the validator's cost
                is the ratio, target <= 1.1x

Below the table, each cost is given again as the Hodges-Lehmann shift (or
ratio) over every pair of runs, with its 90% interval, and the target as met,
MISSED or not settled by that interval (shift.py): on a host whose runs spread
by more than the validator's cost, a difference of medians alone decides by
the luck of one run.

Every run must also compute the right result, and the validator must find
nothing (both workloads are correct programs); otherwise the table says so
and the exit status is 1. Exit 2 when a program cannot be run at all.

With --timeline, each workload also runs under `streamlife run --timeline`,
interleaved with the others, and the cost of drawing the timeline is the
ratio to `streamlife run` alone (target <= 1.2x).

With --also NAME=FLAGS, each workload also runs under `streamlife run FLAGS`
(interleaved with the others), given with its uncertainty over plain and
against the default `streamlife run`: two settings of one build compared on
one host, in one call.

With --self-profile, one more run of each workload under
`streamlife run --self-profile` prints the validator's own time per
intercepted call and per phase, so that a cost over the target shows where it
comes from (those runs are not in the table: timing perturbs them).

With --workloads, only those workloads run: the launch loop alone takes about
half a second a run on an H200, so a call fits hundreds of rounds of it, and
its cost's interval narrows with the square root of the rounds.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shift  # noqa: E402  (beside this script)

METRICS = {
    "launch-bound": ("host_us_per_launch_median", "host us per launch"),
    "gpu-bound": ("wall_ms_median", "wall ms per trial"),
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True, help="where launch_bound and gpu_bound are")
    parser.add_argument("--streamlife", required=True, help="the streamlife CLI")
    parser.add_argument("--sanitizer", default="", help="compute-sanitizer ('' to skip)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sanitizer-repeat", type=int, default=1)
    parser.add_argument("--launches", type=int, default=100000)
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--timeout", type=float, default=400, help="seconds per run")
    parser.add_argument("--log-dir", required=True, help="keeps every run's stdout/stderr")
    parser.add_argument("--timeline", action="store_true",
                        help="also run each workload under streamlife run --timeline (its cost, "
                             "side by side with streamlife run alone)")
    parser.add_argument("--cpus", default="",
                        help="run every mode on these CPUs (taskset -c LIST): a run that lands on other "
                             "cores, or migrates, does not move its time")
    parser.add_argument("--self-profile", action="store_true",
                        help="after the table, one run per workload with streamlife's --self-profile")
    parser.add_argument("--also", action="append", default=[], metavar="NAME=FLAGS",
                        help="one more mode, streamlife run FLAGS (space separated), interleaved with the "
                             "others and given with its uncertainty, over plain and against the default "
                             "(e.g. pauses=--replay-thread-nap-ns=0); repeatable")
    parser.add_argument("--workloads", default=",".join(METRICS),
                        help="which workloads to run, comma separated (default: all): the launch loop alone "
                             "fits several times the rounds in the same time")
    args = parser.parse_args(argv)
    args.workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in args.workloads if w not in METRICS]
    if unknown or not args.workloads:
        parser.error("--workloads takes a comma-separated list of %s, not '%s'" % (
            " and ".join(METRICS), ",".join(unknown)))
    also = {}
    for item in args.also:
        name, _, flags = item.partition("=")
        if not name or not flags or not name.replace("-", "").isalnum() or name in also:
            parser.error("--also takes NAME=FLAGS, a new name of letters, digits and '-', not '%s'" % item)
        also[name] = flags.split()
    args.also = also
    return args


class Run:
    def __init__(self, value=None, result=None, findings=None, problem=None):
        self.value, self.result, self.findings, self.problem = value, result, findings, problem


def run_once(args, workload, mode, index):
    program = {"launch-bound": [os.path.join(args.bin_dir, "launch_bound"),
                                "--launches", str(args.launches)],
               "gpu-bound": [os.path.join(args.bin_dir, "gpu_bound"),
                             "--layers", str(args.layers)]}[workload]
    # The timeline goes to the log folder, one file per process, replaced by
    # the next repeat.
    timeline = os.path.join(args.log_dir, "%s.timeline-%%p.json" % workload)
    prefix = {"plain": [],
              "streamlife": [args.streamlife, "run", "--"],
              **{"streamlife-" + name: [args.streamlife, "run"] + flags + ["--"]
                 for name, flags in args.also.items()},
              "streamlife-timeline": [args.streamlife, "run", "--timeline", timeline, "--"],
              "self-profile": [args.streamlife, "run", "--self-profile", "--"],
              "compute-sanitizer": [args.sanitizer, "--tool", "memcheck",
                                    "--track-stream-ordered-races", "all"]}[mode]
    command = prefix + program
    if args.cpus:
        command = ["taskset", "-c", args.cpus] + command
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return Run(problem="timed out after %gs" % args.timeout)
    except OSError as error:
        print("compare: error: cannot run %s: %s" % (command[0], error), file=sys.stderr)
        sys.exit(2)
    stem = os.path.join(args.log_dir, "%s.%s.%d" % (workload, mode, index))
    with open(stem + ".out", "w") as f:
        f.write(proc.stdout)
    with open(stem + ".err", "w") as f:
        f.write(proc.stderr)

    key = METRICS[workload][0]
    match = re.search(r"\b%s=([0-9.]+)" % key, proc.stdout)
    result = re.findall(r"^result: (.*)$", proc.stdout, re.M)
    findings = None
    if mode.startswith("streamlife"):
        summary = re.search(r"^streamlife: summary: (\d+) findings?$", proc.stderr, re.M)
        findings = int(summary.group(1)) if summary else None
    elif mode == "compute-sanitizer":
        summary = re.search(r"ERROR SUMMARY: (\d+) error", proc.stdout + proc.stderr)
        findings = int(summary.group(1)) if summary else None
    if proc.returncode != 0 or match is None:
        first_error = next((l for l in proc.stderr.splitlines() if l.strip()), "no stderr")
        return Run(problem="exit %d%s (%s), see %s.err" % (
            proc.returncode, "" if match else ", no %s= line" % key, first_error, stem))
    return Run(float(match.group(1)), result[-1] if result else "(none)", findings)


def fmt(value, unit=""):
    return "-" if value is None else "%.3f%s" % (value, unit)


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.log_dir, exist_ok=True)
    also = ["streamlife-" + name for name in args.also]
    modes = (["plain", "streamlife"] + also + (["streamlife-timeline"] if args.timeline else []) +
             (["compute-sanitizer"] if args.sanitizer else []))
    runs = {(w, m): [] for w in args.workloads for m in modes}
    for index in range(max(args.repeat, args.sanitizer_repeat)):
        for workload in args.workloads:
            for mode in modes:
                wanted = args.sanitizer_repeat if mode == "compute-sanitizer" else args.repeat
                if index >= wanted:
                    continue
                run = run_once(args, workload, mode, index)
                print("compare: %-12s %-17s #%d: %s" % (
                    workload, mode, index + 1,
                    run.problem or "%s=%g, result: %s, findings: %s" % (
                        METRICS[workload][0], run.value, run.result, run.findings)))
                sys.stdout.flush()
                runs[(workload, mode)].append(run)

    def values(workload, mode):
        return [r.value for r in runs.get((workload, mode), []) if r.value is not None]

    def median(workload, mode):
        found = values(workload, mode)
        return statistics.median(found) if found else None

    problems = []
    for (workload, mode), rs in runs.items():
        for r in rs:
            if r.problem:
                problems.append("%s under %s: %s" % (workload, mode, r.problem))
            elif r.result != "ok":
                problems.append("%s under %s printed result: %s" % (workload, mode, r.result))
            elif mode.startswith("streamlife") and r.findings != 0:
                problems.append("%s under %s: %s finding(s) in a correct program" % (
                    workload, mode, "no summary line, so unknown" if r.findings is None else r.findings))

    print()
    print("streamlife runtime benchmark: medians of %d repeat(s) (compute-sanitizer: %d)" % (
        args.repeat, args.sanitizer_repeat))
    header = ("workload", "metric", "plain", "streamlife", "cost", "target", "compute-sanitizer", "cs cost")
    rows = [header]
    verdicts = []
    settled = []  # the cost against its target, with the uncertainty of the repeats (shift.py)
    judged = []
    for workload in args.workloads:
        label = METRICS[workload][1]
        plain = median(workload, "plain")
        validated = median(workload, "streamlife")
        sanitized = median(workload, "compute-sanitizer")
        if workload == "launch-bound":
            cost = None if None in (plain, validated) else validated - plain
            cost_text = "-" if cost is None else "%+.3f us" % cost
            met = cost is not None and cost <= 0.5
            target = "<=0.5 us: " + ("met" if met else "MISSED")
            cs_cost = "-" if None in (plain, sanitized) else "%+.3f us (%.1fx)" % (sanitized - plain, sanitized / plain)
            bar, ratio = 0.5, False
        else:
            cost = None if None in (plain, validated) or not plain else validated / plain
            cost_text = "-" if cost is None else "%.3fx" % cost
            met = cost is not None and cost <= 1.1
            target = "<=1.1x: " + ("met" if met else "MISSED")
            cs_cost = "-" if None in (plain, sanitized) or not plain else "%.2fx" % (sanitized / plain)
            bar, ratio = 1.1, True
        if values(workload, "plain") and values(workload, "streamlife"):
            line, said = shift.judge(values(workload, "plain"), values(workload, "streamlife"), bar, ratio)
            settled.append("cost with its uncertainty  %-12s %s" % (workload, line))
            judged.append(said)
        # The other settings (--also): over plain, and against the default side by side.
        for mode in also:
            if values(workload, "plain") and values(workload, mode):
                line, _ = shift.judge(values(workload, "plain"), values(workload, mode), bar, ratio)
                settled.append("cost with its uncertainty  %-12s %s: %s" % (workload, mode, line))
            if values(workload, "streamlife") and values(workload, mode):
                settled.append("  %s against streamlife: %s" % (
                    mode, shift.estimate(values(workload, "streamlife"), values(workload, mode), ratio)))
        verdicts.append(met)
        rows.append((workload, label, fmt(plain), fmt(validated), cost_text, target,
                     fmt(sanitized) if args.sanitizer else "n/a", cs_cost if args.sanitizer else "n/a"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print()
    # The table's verdicts compare medians; on a host whose runs spread by more than the validator's
    # cost, these say whether the repeats settle the target at all.
    for line in settled:
        print(line)
    if settled:
        print()
    if args.timeline:
        # What --timeline adds to a validated run: the same metric, side by side.
        for workload in args.workloads:
            label = METRICS[workload][1]
            validated = median(workload, "streamlife")
            traced = median(workload, "streamlife-timeline")
            ratio = None if None in (validated, traced) or not validated else traced / validated
            met = ratio is not None and ratio <= 1.2
            verdicts.append(met)
            print("timeline cost  %-12s %s: streamlife %s, with --timeline %s: %s (target <=1.2x: %s)" % (
                workload, label, fmt(validated), fmt(traced),
                "-" if ratio is None else "%.3fx" % ratio, "met" if met else "MISSED"))
        print()
    for problem in problems:
        print("compare: PROBLEM: " + problem)
    if args.self_profile:
        for workload in args.workloads:
            run = run_once(args, workload, "self-profile", 0)
            stem = os.path.join(args.log_dir, "%s.self-profile.0" % workload)
            print()
            print("compare: %s under streamlife --self-profile (%s):" % (
                workload, run.problem or "%s=%g" % (METRICS[workload][0], run.value)))
            with open(stem + ".err") as f:
                for line in f:
                    if line.startswith("streamlife: self-profile:"):
                        print("  " + line.rstrip())
    print("compare: logs in %s" % args.log_dir)
    print("compare: targets %s by the medians%s" % (
        "met" if all(verdicts) else "MISSED",
        "; with their uncertainty: " + ", ".join("%d %s" % (judged.count(v), v) for v in
                                                  ("met", "MISSED", "not settled") if v in judged)
        if judged else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
