#!/usr/bin/env python3
"""The validator's own time per step, read from the table `streamlife run
--self-profile` prints at exit (runtime-validator/intercept/SelfProfile.cpp):

  streamlife: self-profile: <name>   <calls>   <total ms>   <ns/call>

first the intercepted calls, then the rows after "callbacks outside CUDA
calls:", then those after "on the validator's own thread, beside the
program's:" (the replay thread's replays), then the rows after "phases, inside
the calls and callbacks above:".

The rule: own time = the intercepted calls' rows + the callbacks' rows (the
phases are inside those rows, so they are not added again), less the phase
"kernel first sight" (each kernel's first launch: warm-up, not a step's cost).
The replay thread's time is not in it: it runs beside the program's threads,
not inside their calls (own_time reports it apart, as beside_ms).
Per step, it is divided by every step the profiled process ran, warm-up steps
included (fsdp2_loop.py --steps 40: 3 warm-up + 40 timed = 43), because the
table covers the whole process; the workload's `ms/step` covers the timed steps
only, so dividing by those would charge the warm-up steps' validator time to
them (+7.5% at 3 of 43). What is left in is an over-estimate of a timed step's
cost: the set-up before the loop, the warm-up steps' other first-time work, and
the profile's own clock reads (about N timings x the header's ns; reported,
not subtracted).

  bench/runtime/self_profile_table.py LOG... [--steps N] [--plain MS]

prints, per log, the estimate and the rows' shares of the own time. Without
--steps, the steps come from the command on the log's first line (as
torch_workloads.py writes it): see steps_seen(). --plain MS adds the ratio the
estimate implies against a plain run of MS ms/step: 1 + own / plain.
"""
import argparse
import re
import sys

PREFIX = "streamlife: self-profile: "
HEADER = PREFIX + "the validator's own time"
CALLBACKS = PREFIX + "callbacks outside CUDA calls:"
BESIDE = PREFIX + "on the validator's own thread, beside the program's:"
PHASES = PREFIX + "phases, inside the calls and callbacks above:"
FIRST_SIGHT = "kernel first sight"
ROW = re.compile(r"^" + re.escape(PREFIX) + r"(\S.*?)\s+(\d+)\s+([0-9.]+)\s+(\d+)\s*$")
CLOCK = re.compile(r"each timing includes about ([0-9.]+) ns")

# Warm-up steps the workloads run before their timed ones when the command
# says no --warmup: workload_common.parse's default, jax_program.py's own;
# the seed's examples (--trials) time every trial, so theirs are all counted.
DEFAULT_WARMUP = 3
SCRIPT_WARMUP = {"jax_program.py": 2}


def parse_tables(text):
    """Every self-profile table in text (one per profiled process: a rank
    each), in order; a table is a dict of "rows", (name, kind, calls,
    total_ms) with kind one of "call", "callback", "beside", "phase", and "clock_ns",
    the header's cost of a timing's two clock reads (None if it says none)."""
    tables = []
    kind = "call"
    for line in text.splitlines():
        if line.startswith(HEADER):
            tables.append({"rows": [], "clock_ns": None})
            found = CLOCK.search(line)
            tables[-1]["clock_ns"] = float(found.group(1)) if found else None
            kind = "call"
        elif not tables:
            continue
        elif line.startswith(CALLBACKS):
            kind = "callback"
        elif line.startswith(BESIDE):
            kind = "beside"
        elif line.startswith(PHASES):
            kind = "phase"
        else:
            # Other lines (the program's, another rank's) may come between
            # the rows: only the prefix says what is a row.
            row = ROW.match(line)
            if row:
                tables[-1]["rows"].append((row.group(1), kind, int(row.group(2)), float(row.group(3))))
    return [t for t in tables if t["rows"]]


def own_time(table, steps):
    """The validator's own time of one table by the rule above, over `steps`
    steps: a dict of calls_ms, callbacks_ms, first_sight_ms, own_ms,
    own_ms_per_step, clock_ms (the timers' own clock reads, an estimate) and
    rows (name, kind, total_ms) of the calls, callbacks and phases."""
    rows = table["rows"]
    calls = sum(ms for _, kind, _, ms in rows if kind == "call")
    callbacks = sum(ms for _, kind, _, ms in rows if kind == "callback")
    beside = sum(ms for _, kind, _, ms in rows if kind == "beside")
    first_sight = sum(ms for name, kind, _, ms in rows if kind == "phase" and name == FIRST_SIGHT)
    own = calls + callbacks - first_sight
    timings = sum(n for _, _, n, _ in rows)
    clock = timings * table["clock_ns"] / 1e6 if table["clock_ns"] is not None else None
    return {"calls_ms": calls, "callbacks_ms": callbacks, "beside_ms": beside, "first_sight_ms": first_sight,
            "own_ms": own,
            "steps": steps, "own_ms_per_step": own / steps if steps else None, "clock_ms": clock,
            "rows": [(name, kind, ms) for name, kind, _, ms in rows]}


def estimate(text, steps):
    """own_time() of the log's most expensive table (the slowest rank, as the
    ms/step column takes the slowest rank's), with "tables" the number of
    tables; None without a table."""
    tables = parse_tables(text)
    if not tables:
        return None
    best = max((own_time(t, steps) for t in tables), key=lambda o: o["own_ms"])
    best["tables"] = len(tables)
    return best


def steps_seen(command_words):
    """(warm-up steps, timed steps) of a workload command (torch_workloads.py's):
    --steps N or --trials N, and --warmup N or the script's default."""
    def value(flag):
        for i, word in enumerate(command_words[:-1]):
            if word == flag:
                return int(command_words[i + 1])
        return None

    trials = value("--trials")
    if trials is not None:
        return 0, trials
    timed = value("--steps")
    warmup = value("--warmup")
    if warmup is None:
        script = next((w for w in command_words if w.endswith(".py")), "")
        warmup = SCRIPT_WARMUP.get(script.rsplit("/", 1)[-1], DEFAULT_WARMUP)
    return warmup, timed


def implied_ratio(own_ms_per_step, plain_ms):
    """The ratio to plain the self-profile implies: 1 + own / plain."""
    return 1 + own_ms_per_step / plain_ms if own_ms_per_step is not None and plain_ms else None


def steps_said(warmup, timed):
    """How the steps divided by were counted, for describe()."""
    return (f"{warmup} warm-up + {timed} timed: the profile covers the whole run, "
            f"ms/step the timed steps")


def describe(own, how, plain_ms=None, top=6):
    """Lines saying what was divided by what, the estimate, and the largest
    rows' shares of the own time."""
    steps = own["steps"]
    lines = [f"own time {own['own_ms']:.1f} ms = calls {own['calls_ms']:.1f} + callbacks outside calls "
             f"{own['callbacks_ms']:.1f} - kernel first sight {own['first_sight_ms']:.1f} (warm-up)"]
    if own["clock_ms"] is not None:
        lines.append(f"  of which the profile's own clock reads, about {own['clock_ms']:.1f} ms (not subtracted)")
    lines += [f"own ms/step {own['own_ms_per_step']:.2f} = {own['own_ms']:.1f} ms / {steps} steps ({how})"]
    ratio = implied_ratio(own["own_ms_per_step"], plain_ms)
    if ratio:
        lines.append(f"self-profile's estimate: 1 + {own['own_ms_per_step']:.2f} / {plain_ms:.2f} (plain) "
                     f"= {ratio:.2f}x plain")
    if own.get("tables", 1) > 1:
        lines.append(f"the most expensive of {own['tables']} tables (ranks)")
    total = own["own_ms"] or 1.0

    def share(name, ms):
        return f"  {name:<34} {ms:9.1f} ms {ms / steps:7.3f} ms/step {100 * ms / total:5.1f}%"

    outer = sorted(((n, ms) for n, k, ms in own["rows"] if k in ("call", "callback")), key=lambda r: -r[1])
    lines.append("largest calls and callbacks, share of the own time (they add up to it):")
    lines += [share(n, ms) for n, ms in outer[:top]]
    rest = sum(ms for _, ms in outer[top:])
    if rest:
        lines.append(share(f"the other {len(outer) - top}", rest))
    if own["first_sight_ms"]:
        lines.append(share(f"less {FIRST_SIGHT}", -own["first_sight_ms"]) + " (in the launches' rows)")
    if own["beside_ms"]:
        lines.append(f"beside the program's threads, not in the own time: replay thread "
                     f"{own['beside_ms']:.1f} ms ({own['beside_ms'] / steps:.3f} ms/step)")
    phases = sorted(((n, ms) for n, k, ms in own["rows"] if k == "phase" and n != FIRST_SIGHT),
                    key=lambda r: -r[1])
    if phases:
        lines.append("phases inside them, share of the own time:")
        lines += [share(n, ms) for n, ms in phases]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--steps", type=int, help="steps the profiled process ran, warm-up included")
    parser.add_argument("--plain", type=float, help="a plain run's ms/step, for the implied ratio")
    options = parser.parse_args()
    status = 0
    for log in options.logs:
        with open(log) as f:
            text = f.read()
        if options.steps:
            steps, how = options.steps, "given"
        else:
            warmup, timed = steps_seen(text.split("\n", 1)[0].split())
            if timed is None:
                print(f"{log}: no --steps on the first line; give --steps", file=sys.stderr)
                status = 1
                continue
            steps, how = warmup + timed, steps_said(warmup, timed)
        own = estimate(text, steps)
        if own is None:
            print(f"{log}: no self-profile table", file=sys.stderr)
            status = 1
            continue
        print(f"{log}:")
        for line in describe(own, how, options.plain):
            print("  " + line)
    return status


if __name__ == "__main__":
    sys.exit(main())
