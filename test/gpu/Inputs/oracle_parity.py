#!/usr/bin/env python3
"""Parity of streamlife's verdicts with compute-sanitizer's, case by case.

  oracle_parity.py --streamlife BUILD/bin/streamlife [--runs 3] [--jobs 8]
      [--env NAME=VALUE ...] [--log-dir DIR] -- PROGRAM ARGS... {case}

Runs PROGRAM once per case (`{case}` in the arguments is replaced by the case
name; the cases are CASE-bug / CASE-ok, from `--cases` or from `PROGRAM
--list`), --runs times under `streamlife run` and --runs times under
`compute-sanitizer --tool memcheck --track-stream-ordered-races all`, and
prints one line per case:

  case rt-no-wait-bug: streamlife finding 3/3, compute-sanitizer error 3/3: agree

The verdict of one run: streamlife reported a finding (a
`streamlife: error:` line); compute-sanitizer reported an error (its
`ERROR SUMMARY: N error(s)` with N > 0). With --plain-runs N the program also
runs N times without any tool, and a `result: corrupted` line there is the
ground truth: the race happened and corrupted data.

A case passes when every streamlife run gives the verdict its name says (-bug:
reported, -ok: clean) and compute-sanitizer agrees in every run, or, where it
does not, the case is a -bug case whose plain runs corrupted data (the oracle
missed a race that happens; the line says so). An -ok case must never corrupt.
Exit 0 when every case passes, 1 otherwise, 2 on bad usage or when
compute-sanitizer cannot run here.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

FINDING = re.compile(r"^streamlife: error: ([a-z-]+):", re.M)
SUMMARY = re.compile(r"^streamlife: summary: (\d+) findings?$", re.M)
CS_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--streamlife", required=True)
    p.add_argument("--compute-sanitizer", default="compute-sanitizer")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--jobs", type=int, default=8)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--cases", help="comma-separated case names (default: PROGRAM --list)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="environment for both tools (e.g. PYTORCH_CUDA_ALLOC_CONF=...)")
    p.add_argument("--log-dir", help="keep every run's output here")
    p.add_argument("--plain-runs", type=int, default=0,
                   help="also run the program this many times without a tool and read its "
                        "`result:` line (ground truth)")
    p.add_argument("--oracle-logs", metavar="DIR",
                   help="take compute-sanitizer's runs from an earlier --log-dir instead of running "
                        "it again (its verdicts do not change with streamlife)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.command and a.command[0] == "--":
        a.command = a.command[1:]
    if not a.command or not any("{case}" in x for x in a.command):
        p.error("give the program after --, with {case} where the case name goes")
    return a


def run(cmd, env, timeout):
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        return 124, out.decode(errors="replace") if isinstance(out, bytes) else out


def main(argv):
    a = parse_args(argv)
    env = dict(os.environ)
    for item in a.env:
        name, _, value = item.partition("=")
        env[name] = value
    if a.cases:
        cases = a.cases.split(",")
    else:
        listing = subprocess.run([x.replace("{case}", "--list") for x in a.command],
                                 capture_output=True, text=True, env=env)
        cases = listing.stdout.split()
    if not cases:
        print("oracle_parity: no cases", file=sys.stderr)
        return 2

    def streamlife_cmd(case):
        return [a.streamlife, "run", "--"] + [x.replace("{case}", case) for x in a.command]

    def sanitizer_cmd(case):
        return [a.compute_sanitizer, "--tool", "memcheck", "--track-stream-ordered-races", "all",
                "--error-exitcode", "0"] + [x.replace("{case}", case) for x in a.command]

    jobs = []
    results = {}
    for case in cases:
        for i in range(max(a.runs, a.plain_runs)):
            if i >= a.runs:
                jobs.append(("plain", case, i, [x.replace("{case}", case) for x in a.command]))
                continue
            jobs.append(("streamlife", case, i, streamlife_cmd(case)))
            if i < a.plain_runs:
                jobs.append(("plain", case, i, [x.replace("{case}", case) for x in a.command]))
            if not a.oracle_logs:
                jobs.append(("compute-sanitizer", case, i, sanitizer_cmd(case)))
                continue
            try:
                with open(os.path.join(a.oracle_logs, "%s.compute-sanitizer.%d.log" % (case, i))) as f:
                    head, _, rest = f.read().partition("\n")
                results[("compute-sanitizer", case, i)] = (int(head.split()[1]), rest)
            except (OSError, ValueError, IndexError):
                results[("compute-sanitizer", case, i)] = (2, "no log of an earlier run")
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run, cmd, env, a.timeout): (tool, case, i)
                   for tool, case, i, cmd in jobs}
        for f in concurrent.futures.as_completed(futures):
            results[futures[f]] = f.result()

    if a.log_dir:
        os.makedirs(a.log_dir, exist_ok=True)
        for (tool, case, i), (rc, out) in results.items():
            with open(os.path.join(a.log_dir, "%s.%s.%d.log" % (case, tool, i)), "w") as f:
                f.write("exit %d\n%s" % (rc, out))

    failed = agreed = missed = 0
    oracle_broken = False
    for case in cases:
        expect = case.endswith("-bug")
        verdicts = {}
        problems = []
        for tool in ("streamlife", "compute-sanitizer"):
            hits = 0
            for i in range(a.runs):
                rc, out = results[(tool, case, i)]
                if tool == "streamlife":
                    if not SUMMARY.search(out) or rc != 0:
                        problems.append("streamlife run %d: exit %d, summary %s" %
                                        (i, rc, "present" if SUMMARY.search(out) else "missing"))
                    hits += bool(FINDING.search(out))
                else:
                    m = CS_SUMMARY.search(out)
                    if not m:
                        problems.append("compute-sanitizer run %d: no ERROR SUMMARY (exit %d): %s" %
                                        (i, rc, out.strip().splitlines()[-1:] or ""))
                        oracle_broken = True
                        continue
                    hits += int(m.group(1)) > 0
            verdicts[tool] = hits
        corrupted = sum("result: corrupted" in results[("plain", case, i)][1]
                        for i in range(a.plain_runs))
        want = a.runs if expect else 0
        streamlife_ok = verdicts["streamlife"] == want
        agree = verdicts["compute-sanitizer"] == want
        oracle_missed = expect and not agree and corrupted > 0
        if not expect and corrupted:
            problems.append("the correct twin corrupted data in %d plain runs" % corrupted)
        ok = not problems and streamlife_ok and (agree or oracle_missed)
        agreed += ok and agree
        missed += ok and oracle_missed
        verdict = "agree" if agree else (
            "compute-sanitizer missed a race that corrupts data" if oracle_missed else "DISAGREE")
        plain = ", corrupted without tools %d/%d" % (corrupted, a.plain_runs) if a.plain_runs else ""
        print("case %s: streamlife finding %d/%d, compute-sanitizer error %d/%d%s: %s%s" %
              (case, verdicts["streamlife"], a.runs, verdicts["compute-sanitizer"], a.runs, plain,
               verdict, "" if ok else " (FAILED)"))
        for p in problems:
            print("  " + p)
        failed += not ok
    print("oracle_parity: %d of %d cases pass, %d agree with compute-sanitizer, %d where it "
          "misses a race that corrupts data (%d runs per tool and case)" %
          (len(cases) - failed, len(cases), agreed, missed, a.runs))
    if oracle_broken and failed == len(cases):
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
