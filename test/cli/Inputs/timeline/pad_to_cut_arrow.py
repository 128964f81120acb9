#!/usr/bin/env python3
"""Prints a word that, as one more argument of a traced program, moves the
--timeline-limit cut between the two ends of one of its flow arrows.

Usage: pad_to_cut_arrow.py UNCAPPED_TRACE LIMIT_BYTES

UNCAPPED_TRACE is the same run without a limit. The program's command line is
in the trace's first events (streamlife_trace), so an argument of N
characters moves every later event N + 1 bytes on (the space before it), the
way a longer build-directory path moves the cut of the run-timeline tests.
The writer keeps an event when the trace, up to its end, fits in the limit:
with the word, a flow's start fits and its end does not, so a writer that
cut there would leave a lone start.
"""
import json
import sys


def event_ends(data):
    """(event text, offset just past it) for each event of a trace file."""
    at = len(b"[\n")
    for text in data[at:].split(b",\n"):
        text = text.rstrip(b"\n]")
        yield text, at + len(text)
        at += len(text) + len(b",\n")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        data = f.read()
    limit = int(argv[2])
    ends = {}  # flow id -> {"s": offset, "f": offset}
    for text, end in event_ends(data):
        if not text.startswith(b'{"ph":"s"') and not text.startswith(b'{"ph":"f"'):
            continue
        event = json.loads(text)
        ends.setdefault(event["id"], {})[event["ph"]] = end
    # The smallest shift: start + shift <= limit < finish + shift, with a
    # word of one character at least (shift 2).
    shifts = []
    for flow_id, at in ends.items():
        if "s" in at and "f" in at and at["s"] < at["f"]:
            shift = max(2, limit - at["f"] + 1)
            if shift <= limit - at["s"]:
                shifts.append(shift)
    if shifts:
        print("x" * (min(shifts) - 1))
        return 0
    print("%s: no flow whose ends a shift can put on either side of %d bytes"
          % (argv[1], limit), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
