#!/usr/bin/env python3
"""Prints the findings `streamlife check` must report over examples/cuda/*.cu
or examples/aten/*.cpp, one "FILE:LINE CHECK" per line, sorted, derived from
the examples themselves so that editing an example does not silently break the
test:

  - a program whose header comment says "BUGGY." (or "FLAGGED." for correct
    code a check still warns about, such as record_stream in a loop) must be
    flagged, once, with the check its header names ("`streamlife check` warns
    at the ... (CHECK" or streamlife-free-before-wait when it names none), at
    its release: in a .cu file the first *FreeAsync( call after its "// BUG:"
    comment; in a .cpp file (ATen, where releases are reassignments, resets,
    pops and returns) the first line of code after the "// BUG:" comment;
  - every other program must not be flagged at all.

  expected_example_findings.py DIR        the expected list
  expected_example_findings.py --actual   turns `streamlife check` text output
                                          (stdin) into the same form
"""
import glob
import os
import re
import sys


def expected(directory):
    lines = []
    buggy = 0
    paths = sorted(glob.glob(os.path.join(directory, "*.cu")) +
                   glob.glob(os.path.join(directory, "*.cpp")))
    for path in paths:
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            text = f.read().splitlines()
        header = "\n".join(l for l in text[:30] if l.startswith("//"))
        if "BUGGY." not in header and "FLAGGED." not in header:
            continue
        buggy += 1
        check = "streamlife-free-before-wait"
        m = re.search(r"warns at the [^(]*\((\w[\w-]*)", header)
        if m:
            check = "streamlife-" + m.group(1)
        bug_marker = next((i for i, l in enumerate(text) if "// BUG:" in l), None)
        if bug_marker is None:
            sys.exit(f"error: {name} says BUGGY but has no '// BUG:' comment")
        if path.endswith(".cpp"):
            release = next((i for i in range(bug_marker, len(text))
                            if text[i].strip() and not text[i].strip().startswith("//")), None)
        else:
            release = next((i for i in range(bug_marker, len(text))
                            if re.search(r"\b(cudaFreeAsync|cuMemFreeAsync)\s*\(", text[i])), None)
        if release is None:
            sys.exit(f"error: {name}: no release after its '// BUG:' comment")
        lines.append(f"{name}:{release + 1} {check}")
    if buggy == 0:
        sys.exit(f"error: no BUGGY example in {directory}")
    return sorted(lines)


def actual(stream):
    out = []
    for line in stream:
        m = re.match(r"^(?:.*/)?([^/:]+):(\d+):\d+: warning: .*\[([\w-]+)\]$", line.rstrip("\n"))
        if m:
            out.append(f"{m.group(1)}:{m.group(2)} {m.group(3)}")
    return sorted(out)


def main(argv):
    if len(argv) == 2 and argv[1] == "--actual":
        result = actual(sys.stdin)
    elif len(argv) == 2:
        result = expected(argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for line in result:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
