#!/usr/bin/env python3
"""Print the call site of each part of the first finding in a validator's stderr.

  first_frames.py STDERR_FILE

For the first `streamlife: error:` block, prints one line per part that has a
stack: `<part>: <function> <file name>:<line>` for a Python frame
(`release: pipeline no_lifetime_management.py:28`) or `<part>: <frame>` for a
native one, so that tests can demand exact Python lines with grep -x.
Exit 1 when there is no finding.
"""
import os
import re
import sys

PART = re.compile(r"^  ([a-z ]+): ")
FRAME = re.compile(r"^    #0 (.*)$")
PYTHON_FRAME = re.compile(r"^(\S+) \((.*):(\d+)\)$")


def main(path):
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("streamlife: error:")), None)
    if start is None:
        print("first_frames: no finding in %s" % path, file=sys.stderr)
        return 1
    part = None
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        m = PART.match(line)
        if m:
            part = m.group(1)
            continue
        m = FRAME.match(line)
        if m and part:
            frame = m.group(1)
            py = PYTHON_FRAME.match(frame)
            if py and py.group(2).endswith(".py"):
                frame = "%s %s:%s" % (py.group(1), os.path.basename(py.group(2)), py.group(3))
            print("%s: %s" % (part, frame))
            part = None
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: first_frames.py STDERR_FILE", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
