#!/usr/bin/env python3
"""Prints the findings `streamlife check` must report over examples/cuda/*.cu,
examples/aten/*.cpp (and examples/python/*.py), one "FILE:LINE CHECK" per line, sorted, derived
from the examples themselves so that editing an example does not silently
break the test:

  - a C++ program whose header comment says "BUGGY." (or "FLAGGED." for correct
    code a check still warns about, such as record_stream in a loop) must be
    flagged, once, with the check its header names ("`streamlife check` warns
    at the ... (CHECK" or streamlife-free-before-wait when it names none), at
    its release: in a .cu file the first *FreeAsync( call after its "// BUG:"
    comment; in a .cpp file (ATen, where releases are reassignments, resets,
    pops and returns) the first line of code after the "// BUG:" comment;
  - a Python program whose docstring starts with "BUGGY" must be flagged once,
    at its "# BUG:" line: streamlife-free-before-wait when that line releases
    (`del`, `= None`, a pop) or, when it is a wait on the wrong stream, at the
    first release after it; otherwise (a use) streamlife-use-before-alloc.
    Programs listed in STATIC_BLIND_SPOTS are the exception, with the reason;
  - every `.record_stream(` written inside a Python loop is flagged by
    streamlife-record-stream-in-loop (correct code, but not for hot loops);
  - every other program must not be flagged at all.

  expected_example_findings.py DIR        the expected list
  expected_example_findings.py --actual   turns `streamlife check` text output
                                          (stdin) into the same form
"""
import glob
import os
import re
import sys


# Buggy Python examples whose bug this static analysis does not see, and why.
STATIC_BLIND_SPOTS = {
}

RELEASE = re.compile(r"^\s*del\b|=\s*None\s*(#|$)|\.pop(left)?\(")
PY_LOOP = re.compile(r"^(\s*)(for|while)\b")


def expected_python(path, lines):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        text = f.read().splitlines()
    # record_stream inside a loop: flagged whatever the program's verdict.
    loops = []  # indentation of the open loops
    for i, line in enumerate(text):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        loops = [l for l in loops if l < indent]
        if re.match(r"\s*def\b", line):
            loops = []
        m = PY_LOOP.match(line)
        if m:
            loops.append(len(m.group(1)))
        elif ".record_stream(" in line and loops:
            lines.append(f"{name}:{i + 1} streamlife-record-stream-in-loop")
    if not (text and text[0].lstrip('"').startswith("BUGGY")):
        return 0
    if name in STATIC_BLIND_SPOTS:
        return 1
    marker = next((i for i, l in enumerate(text) if "# BUG:" in l), None)
    if marker is None:
        sys.exit(f"error: {name} says BUGGY but has no '# BUG:' comment")
    code = text[marker].split("#")[0]
    if RELEASE.search(code):
        lines.append(f"{name}:{marker + 1} streamlife-free-before-wait")
    elif "wait_event(" in code or "wait_stream(" in code:
        release = next((i for i in range(marker + 1, len(text))
                        if RELEASE.search(text[i].split("#")[0])), None)
        if release is None:
            sys.exit(f"error: {name}: no release after its '# BUG:' wait")
        lines.append(f"{name}:{release + 1} streamlife-free-before-wait")
    else:
        lines.append(f"{name}:{marker + 1} streamlife-use-before-alloc")
    return 1


def expected(directory):
    lines = []
    buggy = 0
    for path in sorted(glob.glob(os.path.join(directory, "*.py"))):
        buggy += expected_python(path, lines)
    for path in sorted(glob.glob(os.path.join(directory, "*.cu")) +
                       glob.glob(os.path.join(directory, "*.cpp"))):
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
    if len(argv) == 2 and argv[1] != "--actual":
        for name, why in sorted(STATIC_BLIND_SPOTS.items()):
            if os.path.exists(os.path.join(argv[1], name)):
                print(f"# not expected: {name}: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
