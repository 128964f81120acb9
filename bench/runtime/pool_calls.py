#!/usr/bin/env python3
"""A PyTorch workload's cost over plain, pooled over several device calls of one build.

  bench/runtime/pool_calls.py CALL_OUTPUT [CALL_OUTPUT ...] [--bar 1.1] [--confidence 0.9]

Each CALL_OUTPUT is what one torch_workloads.py invocation printed: its per-run lines,
`torch_workloads: run WORKLOAD ALLOC MODE #R: X ms/step (median host step Y), findings F, rc 0, S s`,
one call on one lent host. One call's 6-11 runs a side leave FSDP2's ratio about +-8%, and a host's
plain steps differ from another's by more than the validator costs, so calls are pooled as blocks
(shift.py): for each workload, allocator and validated mode, a call's runs are compared only with the
same call's plain runs, and every call shares one cost. Two lines per row: from each run's mean step,
and from its median host step, as torch_workloads.py reads them. Mixing builds is the caller's to
avoid: a call of another build is another cost.

Runs that failed (rc other than 0, or no ms/step) are left out; a call with no plain run, or no run of
a mode, adds no block to that mode's row. Exit 0; 2 on bad usage (a file that cannot be read, or one
with no run line).
"""
import argparse
import re
import sys

import shift

RUN_LINE = re.compile(r"^torch_workloads: run (?P<workload>\S+) (?P<alloc>\S+) (?P<mode>\S+) #\d+: "
                      r"(?P<ms>[0-9.]+) ms/step(?: \(median host step (?P<step>[0-9.]+)\))?, "
                      r"findings \S+, rc (?P<rc>\S+),")
ANY_RUN = re.compile(r"^torch_workloads: run \S+ \S+ \S+ #\d+: ")


def usage_error(text):
    print(f"pool_calls.py: error: {text}", file=sys.stderr)
    sys.exit(2)


def read_call(path):
    """{(workload, alloc, mode): {"ms": [...], "step": [...]}} of one call's successful runs."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        usage_error(f"cannot read '{path}': {e.strerror}")
    if not any(ANY_RUN.match(line) for line in lines):
        usage_error(f"'{path}' has no torch_workloads.py run line")
    runs = {}
    for line in lines:
        m = RUN_LINE.match(line)
        if not m or m["rc"] != "0":
            continue
        row = runs.setdefault((m["workload"], m["alloc"], m["mode"]), {"ms": [], "step": []})
        row["ms"].append(float(m["ms"]))
        if m["step"]:
            row["step"].append(float(m["step"]))
    return runs


def pooled_lines(calls, bar, confidence):
    rows = sorted({(w, a, mode) for call in calls for (w, a, mode) in call if mode != "plain"})
    lines = []
    for workload, alloc, mode in rows:
        for key, reading in (("ms", ""), ("step", ", median host step")):
            blocks = []
            for call in calls:
                plain = call.get((workload, alloc, "plain"), {}).get(key, [])
                validated = call.get((workload, alloc, mode), {}).get(key, [])
                if plain and validated:
                    blocks.append((plain, validated))
            if blocks:
                line, _ = shift.judge_blocks(blocks, bar, ratio=True, confidence=confidence)
                lines.append(f"pooled{reading}: {workload} ({alloc}) {mode}: {line}")
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outputs", nargs="+", metavar="CALL_OUTPUT", help="one torch_workloads.py call's output")
    parser.add_argument("--bar", type=float, default=1.1, help="the target ratio (default 1.1)")
    parser.add_argument("--confidence", type=float, default=0.9)
    args = parser.parse_args(argv)
    if not 0 < args.confidence < 1:
        parser.error("--confidence must be between 0 and 1")
    calls = [read_call(path) for path in args.outputs]
    lines = pooled_lines(calls, args.bar, args.confidence)
    if not lines:
        print("pool_calls.py: no validated mode has runs beside plain runs of its call")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
