#!/usr/bin/env python3
"""Validates a Chrome/Perfetto trace-event file (the JSON Array Format).

Usage: check_trace_events.py TRACE [--summary]

Checks what ui.perfetto.dev and chrome://tracing rely on, and what the
streamlife timeline promises on top:
  * the file is strict JSON: an array of objects;
  * every event has a known phase ("ph") and the members that phase needs,
    with the right types: pid/tid integers, ts/dur non-negative numbers,
    names strings, args objects; instants have a scope; counters numeric args;
  * metadata events name processes and threads;
  * complete events (X) of one thread nest properly (no partial overlap),
    which the viewers need to stack them;
  * flows are paired: every id has exactly one start (s) and one end (f) of
    the same category, and each end lies inside a complete event of its own
    thread, the slice it binds to ("bp":"e" on ends); a trace capped by
    --timeline-limit keeps whole arrows only, so a lone end is an error there
    too;
  * the trace says which clock placed the GPU work (streamlife_trace) and
    closes with a summary (streamlife_summary).
Prints one line per problem and exits 1 when there is one; --summary prints
counts (events per phase, lanes, flows by category) for tests to check.
"""
import collections
import json
import sys

PHASES = {"X", "i", "s", "f", "M", "C"}
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name",
            "thread_sort_index", "streamlife_trace", "streamlife_summary"}


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check(events):
    problems = []

    def problem(index, text):
        problems.append("event %d: %s" % (index, text))

    slices = collections.defaultdict(list)  # (pid, tid) -> [(start, end, index)]
    flows = collections.defaultdict(list)   # id -> [(ph, cat, pid, tid, ts, index)]
    names = {"process": set(), "thread": set()}
    counts = collections.Counter()
    trace_info = summary = None
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            problem(index, "not an object")
            continue
        ph = event.get("ph")
        counts[ph] += 1
        if ph not in PHASES:
            problem(index, "unknown phase %r" % ph)
            continue
        if not isinstance(event.get("name"), str) or not event["name"]:
            problem(index, "no name")
        if not is_int(event.get("pid")) or event["pid"] < 0:
            problem(index, "pid is not a non-negative integer")
        if not is_int(event.get("tid")) or event["tid"] < 0:
            problem(index, "tid is not a non-negative integer")
        if "args" in event and not isinstance(event["args"], dict):
            problem(index, "args is not an object")
        if ph != "M" and (not is_number(event.get("ts")) or event["ts"] < 0):
            problem(index, "ts is not a non-negative number")
        key = (event.get("pid"), event.get("tid"))
        if ph == "M":
            if event.get("name") not in METADATA:
                problem(index, "unknown metadata %r" % event.get("name"))
            args = event.get("args", {})
            if event.get("name") in ("process_name", "thread_name"):
                if not isinstance(args.get("name"), str) or not args["name"]:
                    problem(index, "%s without a name" % event["name"])
                names["process" if event["name"] == "process_name" else "thread"].add(
                    key if event["name"] == "thread_name" else key[0])
            if event.get("name") == "streamlife_trace":
                trace_info = args
            if event.get("name") == "streamlife_summary":
                summary = args
        elif ph == "X":
            if not is_number(event.get("dur")) or event["dur"] < 0:
                problem(index, "complete event without a non-negative dur")
            else:
                slices[key].append((event["ts"], event["ts"] + event["dur"], index))
        elif ph == "i":
            if event.get("s") not in ("g", "p", "t"):
                problem(index, "instant without a scope (s: g, p or t)")
        elif ph in ("s", "f"):
            if not is_int(event.get("id")):
                problem(index, "flow without an integer id")
                continue
            if not isinstance(event.get("cat"), str):
                problem(index, "flow without a category")
            if ph == "f" and event.get("bp") != "e":
                problem(index, "flow end that does not bind to its enclosing slice (bp: e)")
            flows[event["id"]].append((ph, event.get("cat"), key, event["ts"], index))
        elif ph == "C":
            args = event.get("args")
            if not isinstance(args, dict) or not args or not all(is_number(v) for v in args.values()):
                problem(index, "counter without numeric args")

    # Slices of one thread nest: each starts after the enclosing one starts
    # and ends before it ends (touching ends are fine).
    epsilon = 1e-6
    for key, items in slices.items():
        items.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, end, index in items:
            while stack and stack[-1][1] <= start + epsilon:
                stack.pop()
            if stack and end > stack[-1][1] + epsilon:
                problem(index, "slice [%.3f, %.3f] on pid %s tid %s overlaps slice %d [%.3f, %.3f] "
                               "without nesting" % (start, end, key[0], key[1], stack[-1][2],
                                                    stack[-1][0], stack[-1][1]))
            stack.append((start, end, index))

    def enclosing(key, ts):
        for start, end, _ in slices.get(key, ()):
            if start - epsilon <= ts <= end + epsilon:
                return True
        return False

    flow_categories = collections.Counter()
    for flow_id, ends in flows.items():
        starts = [e for e in ends if e[0] == "s"]
        finishes = [e for e in ends if e[0] == "f"]
        if len(starts) != 1 or len(finishes) != 1:
            problem(ends[0][4], "flow %d has %d starts and %d ends (one of each expected)"
                    % (flow_id, len(starts), len(finishes)))
            continue
        if starts[0][1] != finishes[0][1]:
            problem(finishes[0][4], "flow %d changes category" % flow_id)
        for ph, cat, key, ts, index in ends:
            if not enclosing(key, ts):
                problem(index, "flow %d %s at %.3f is inside no slice of pid %s tid %s"
                        % (flow_id, "start" if ph == "s" else "end", ts, key[0], key[1]))
        flow_categories[starts[0][1]] += 1

    for key in slices:
        if key not in names["thread"]:
            problems.append("pid %s tid %s has slices but no thread_name" % key)
    if trace_info is None:
        problems.append("no streamlife_trace event (which clock placed the GPU work)")
    elif trace_info.get("clock") not in ("gpu", "order"):
        problems.append("streamlife_trace: unknown clock %r" % trace_info.get("clock"))
    if summary is None:
        problems.append("no streamlife_summary event: the trace was not finished")
    return problems, {"counts": counts, "lanes": len(names["thread"]), "flows": flow_categories,
                      "clock": (trace_info or {}).get("clock"), "summary": summary or {}}


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            events = json.load(f)
    except (OSError, ValueError) as error:
        print("%s: not a JSON trace: %s" % (argv[1], error))
        return 1
    if not isinstance(events, list):
        print("%s: not the JSON Array Format (an array of events)" % argv[1])
        return 1
    problems, facts = check(events)
    for text in problems[:50]:
        print("%s: %s" % (argv[1], text))
    if len(problems) > 50:
        print("%s: %d more problems" % (argv[1], len(problems) - 50))
    if "--summary" in argv[2:]:
        counts = facts["counts"]
        print("events: %d" % sum(counts.values()))
        for ph in sorted(counts):
            print("phase %s: %d" % (ph, counts[ph]))
        print("lanes: %d" % facts["lanes"])
        for cat in sorted(facts["flows"]):
            print("flows %s: %d" % (cat, facts["flows"][cat]))
        print("clock: %s" % facts["clock"])
        for key in sorted(facts["summary"]):
            print("summary %s: %s" % (key, facts["summary"][key]))
    print("%s: %s" % (argv[1], "valid" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
