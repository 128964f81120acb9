#!/usr/bin/env python3
"""A PyTorch workload's cost over plain, pooled over several device calls of one build.

  bench/runtime/pool_calls.py CALL_OUTPUT [CALL_OUTPUT ...] [--bar 1.1] [--confidence 0.9] [--against MODE]

Each CALL_OUTPUT is what one torch_workloads.py invocation printed: its per-run lines,
`torch_workloads: run WORKLOAD ALLOC MODE #R: X ms/step (median host step Y), findings F, rc 0, S s`,
one call on one lent host. One call's 6-11 runs a side leave FSDP2's ratio about +-8%, and a host's
plain steps differ from another's by more than the validator costs, so calls are pooled as blocks
(shift.py): for each workload, allocator and validated mode, a call's runs are compared only with the
same call's plain runs, and every call shares one cost. Two lines per row: from each run's mean step,
and from its median host step, as torch_workloads.py reads them. Mixing builds is the caller's to
avoid: a call of another build is another cost.

A call made with --together (its run lines end in `, CPUs LIST`) ran each round's modes at the same
moment: its runs are pairs, a round's run against the plain run of the same round (#R), and the pairs
of every such call pool as one set (shift.py --paired), in lines of their own ("pooled, pairs run
together"); the other calls pool as blocks.

--against MODE reads every other validated mode against MODE's runs instead of plain's (a change
against the build before it, run as mode `baseline` in the same rounds: `--against baseline --bar 1.0`);
its lines say "against MODE".

Runs that failed (rc other than 0, no ms/step, or a validated run whose output had no streamlife
summary: the validator may not have run at all) are left out, each named in a line `left out: FILE:
WORKLOAD ALLOC MODE #R (why)` before the pooled lines; a call with no plain run, or no run of a mode,
adds no block to that mode's row, and a round without both runs no pair. Exit 0; 2 on bad usage (a file
that cannot be read, or one with no run line).
"""
import argparse
import re
import sys

import shift

RUN_LINE = re.compile(r"^torch_workloads: run (?P<workload>\S+) (?P<alloc>\S+) (?P<mode>\S+) #(?P<round>\d+): "
                      r"(?:(?P<ms>[0-9.]+) ms/step(?: \(median host step (?P<step>[0-9.]+)\))?|no ms/step), "
                      r"findings (?P<findings>.+?), rc (?P<rc>\S+),(?P<rest>.*)$")
TOGETHER = re.compile(r", CPUs \S+$")
ANY_RUN = re.compile(r"^torch_workloads: run (?P<run>\S+ \S+ \S+ #\d+): ")


def left_out_because(m):
    """Why a run line cannot be pooled, or None."""
    if not m:
        return "unreadable run line"
    if m["rc"] != "0":
        return f"rc {m['rc']}"
    if not m["ms"]:
        return "no ms/step"
    if m["findings"] == "no summary":
        return "no streamlife summary"
    return None


def usage_error(text):
    print(f"pool_calls.py: error: {text}", file=sys.stderr)
    sys.exit(2)


def read_call(path):
    """{(workload, alloc, mode): {"ms": [(round, value), ...], "step": [...]}} of one call's successful
    runs, whether the call ran its rounds' modes together, and the runs left out (with why)."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        usage_error(f"cannot read '{path}': {e.strerror}")
    if not any(ANY_RUN.match(line) for line in lines):
        usage_error(f"'{path}' has no torch_workloads.py run line")
    runs, together, left_out = {}, False, []
    for line in lines:
        run = ANY_RUN.match(line)
        if not run:
            continue
        m = RUN_LINE.match(line)
        why = left_out_because(m)
        if why:
            left_out.append(f"{run['run']} ({why})")
            continue
        together |= bool(TOGETHER.search(m["rest"]))
        row = runs.setdefault((m["workload"], m["alloc"], m["mode"]), {"ms": [], "step": []})
        row["ms"].append((int(m["round"]), float(m["ms"])))
        if m["step"]:
            row["step"].append((int(m["round"]), float(m["step"])))
    return runs, together, left_out


def pooled_lines(calls, bar, confidence, against="plain"):
    rows = sorted({(w, a, mode) for call, _ in calls for (w, a, mode) in call if mode not in ("plain", against)})
    label = "" if against == "plain" else f" against {against}"
    lines = []
    for workload, alloc, mode in rows:
        for key, reading in (("ms", ""), ("step", ", median host step")):
            blocks, pairs = [], []
            for call, together in calls:
                plain = call.get((workload, alloc, against), {}).get(key, [])
                validated = call.get((workload, alloc, mode), {}).get(key, [])
                if together:
                    plain_of = dict(plain)
                    pairs += [(plain_of[r], v) for r, v in validated if r in plain_of]
                elif plain and validated:
                    blocks.append(([v for _, v in plain], [v for _, v in validated]))
            if blocks:
                line, _ = shift.judge_blocks(blocks, bar, ratio=True, confidence=confidence)
                lines.append(f"pooled{reading}: {workload} ({alloc}) {mode}{label}: {line}")
            if pairs:
                line, _ = shift.judge_paired(pairs, bar, ratio=True, confidence=confidence)
                lines.append(f"pooled{reading}, pairs run together: {workload} ({alloc}) {mode}{label}: {line}")
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outputs", nargs="+", metavar="CALL_OUTPUT", help="one torch_workloads.py call's output")
    parser.add_argument("--bar", type=float, default=1.1, help="the target ratio (default 1.1)")
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument("--against", default="plain", metavar="MODE",
                        help="the mode the others are read against (default plain)")
    args = parser.parse_args(argv)
    if not 0 < args.confidence < 1:
        parser.error("--confidence must be between 0 and 1")
    read = [read_call(path) for path in args.outputs]
    for path, (_, _, left_out) in zip(args.outputs, read):
        for run in left_out:
            print(f"left out: {path}: {run}")
    calls = [(runs, together) for runs, together, _ in read]
    lines = pooled_lines(calls, args.bar, args.confidence, args.against)
    if not lines:
        print(f"pool_calls.py: no validated mode has runs beside {args.against} runs of its call")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
