#!/usr/bin/env python3
"""Where a process's CPU time went, from the CPU sampler's files
(bench/runtime/cpu/cpu_sampler.c), by library and by symbol, and what a
validated run spent beyond a plain one.

  bench/runtime/cpu_samples.py FILE... [--log LOG] [--steps N] [--top K] [--threads]
  bench/runtime/cpu_samples.py --compare 'plain:PREFIX.*' 'streamlife:FILE,...' [--log-of plain:LOG ...] ...

A file holds one process's executable mappings and samples. Only the samples
inside the workload's timed steps count when a window is known: the workload
prints `rank R timed window (monotonic ns): START END` under the sampler
(test/gpu/Inputs/workloads/workload_common.py), and --log names that output.
A sample stands for its thread's CPU time since that thread's previous sample
(the sampler records each thread's CPU clock; cpu_sampler.c says why), or in a
file of an older sampler for `weight x interval` (the kernel checks CPU timers
at its tick), so the figures are CPU milliseconds, per step when --steps is
given.

The comparison's question is the self-profile's blind spot: the validator's
own library shows what it spent in its own code, including the interposers the
self-profile does not time; the other libraries' growth is what the validator
made the program, CUPTI and the driver spend (their dispatch around the
validator's callbacks, the program's code run with colder caches).

--threads adds two tables: by thread name, and by thread name and library. A
validated run's process CPU time is not what its step waits for: the
validator's replay thread ("streamlife-rpl") works beside the program's
threads, on another core, so the cost a step pays is the validator's library
on the program's own threads (the main thread, autograd's). A thread's name is
the one it had at its last sample (the sampler reads it at every sample);
threads of one name are summed. A thread that blocks the sampler's signal
(the replay thread does) takes no sample: its time shows only in its last
record, at its exit, as "(after the last sample)" (the replay thread's comes
when the process ends, after the timed steps).

Exit 0, 1 when a file cannot be read, 2 on bad usage.
"""
import argparse
import bisect
import functools
import glob
import os
import re
import struct
import subprocess
import sys

WINDOW = re.compile(r"^rank (\d+) timed window \(monotonic ns\): (\d+) (\d+)$", re.M)


class BadFile(Exception):
    pass


def read_samples(path):
    """(interval in ms, [(start, end, offset, path)], [(time ns, thread, address, weight, thread CPU ns or
    None)], {thread: name}) of one file."""
    maps, samples, names, interval = [], [], {}, None
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if parts[0] == "cpu_sampler" and len(parts) >= 4 and parts[2] == "interval_us":
                    interval = int(parts[3]) / 1000.0
                elif parts[0] == "map" and len(parts) >= 6:
                    start, end = (int(x, 16) for x in parts[1].split("-"))
                    name = " ".join(parts[6:]) if len(parts) > 6 else "[anonymous]"
                    maps.append((start, end, int(parts[3], 16), name))
                elif parts[0] == "sample" and len(parts) in (5, 6):
                    cpu_ns = int(parts[5]) if len(parts) == 6 else None
                    samples.append((int(parts[1]), int(parts[2]), int(parts[3], 16), int(parts[4]), cpu_ns))
                elif parts[0] == "thread" and len(parts) >= 2:
                    # The name may hold spaces, or be empty.
                    names[int(parts[1])] = line.rstrip("\n").split(" ", 2)[2] if len(parts) > 2 else ""
                elif parts[0] not in ("lost", "map", "sample", "cpu_sampler", "thread"):
                    raise BadFile(f"{path}:{number}: not a cpu_sampler line")
    except OSError as e:
        raise BadFile(f"cannot read {path}: {e.strerror}")
    except ValueError:
        raise BadFile(f"{path}: malformed number")
    if interval is None:
        raise BadFile(f"{path}: no 'cpu_sampler' header (not a cpu_sampler file)")
    maps.sort()
    return interval, maps, samples, names


def windows_in(log_text):
    """The timed windows a workload printed, one per rank."""
    return [(int(a), int(b)) for _, a, b in WINDOW.findall(log_text)]


def mapping_of(maps, starts, address):
    """The mapping holding address; starts: the maps' start addresses, in order."""
    i = bisect.bisect_right(starts, address) - 1
    if i >= 0 and address < maps[i][1]:
        return maps[i]
    return None


def library_name(path):
    return os.path.basename(path) if path.startswith("/") else path


@functools.lru_cache(maxsize=None)
def load_segments(path):
    """The PT_LOAD segments (file offset, file size, virtual address) of an ELF64 file."""
    try:
        with open(path, "rb") as f:
            header = f.read(64)
            if header[:4] != b"\x7fELF" or header[4] != 2:
                return ()
            phoff, = struct.unpack_from("<Q", header, 32)
            phentsize, phnum = struct.unpack_from("<HH", header, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return ()
    segments = []
    for i in range(phnum):
        kind, _, offset, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
        if kind == 1:
            segments.append((offset, filesz, vaddr))
    return tuple(segments)


@functools.lru_cache(maxsize=None)
def symbols_of(path):
    """Sorted [(address, size, name)] of a file's defined functions (its symbol table, else its dynamic one)."""
    found = []
    for extra in ([], ["-D"]):
        try:
            out = subprocess.run(["nm", "-C", "-S", "--defined-only"] + extra + [path], capture_output=True,
                                 text=True, timeout=120).stdout
        except (OSError, subprocess.TimeoutExpired):
            return []
        for line in out.splitlines():
            parts = line.split(None, 3)
            if len(parts) == 4 and parts[2] in "tTwWiI":
                found.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
        if found:
            break
    found.sort()
    return found


def symbol_at(path, file_offset):
    """The function holding a file offset of an ELF file, or None (no symbol covers it)."""
    vaddr = None
    for offset, size, base in load_segments(path):
        if offset <= file_offset < offset + size:
            vaddr = file_offset - offset + base
            break
    if vaddr is None:
        return None
    table = symbols_of(path)
    i = bisect.bisect_right(table, (vaddr, float("inf"), "")) - 1
    if i >= 0 and table[i][0] <= vaddr < table[i][0] + max(table[i][1], 1):
        return table[i][2]
    return None


def sample_files(pattern):
    """One run's sample files (PREFIX.<pid>, or a glob pattern of them), without the half-written ones
    (cpu_sampler.c writes PREFIX.<pid>.tmp and renames it)."""
    return [path for path in sorted(glob.glob(pattern)) if not path.endswith(".tmp")]


def sample_times(samples, interval):
    """(time ns, thread, address, CPU ms it stands for) of each sample. A sample with its thread's CPU
    clock stands for that thread's CPU time since the thread's previous sample (cpu_sampler.c says why:
    a timer's overruns can stand for other threads' time); one without (an older file) for its weight in
    intervals."""
    previous = {}
    for when, thread, address, weight, cpu_ns in sorted(samples, key=lambda s: (s[0], s[4] or 0)):
        if cpu_ns is None:
            yield when, thread, address, weight * interval
        else:
            yield when, thread, address, max(0, cpu_ns - previous.get(thread, 0)) / 1e6
            previous[thread] = cpu_ns


def profile(files, windows=()):
    """CPU ms by library, by (library, symbol), by thread name and by (thread name, library) over the
    files' samples inside any of the windows (all samples without one). Cached: the tables of the same
    runs read the files once."""
    return _profile(tuple(files), tuple(windows))


@functools.lru_cache(maxsize=None)
def _profile(files, windows):
    by_library, by_symbol, by_thread, by_thread_library = {}, {}, {}, {}
    for path in files:
        interval, maps, samples, names = read_samples(path)
        starts = [m[0] for m in maps]
        for when, thread, address, ms in sample_times(samples, interval):
            if windows and not any(a <= when <= b for a, b in windows):
                continue
            mapping = mapping_of(maps, starts, address) if address else None
            # Address 0: a thread's last record, its time since its last sample (cpu_sampler.c).
            library = library_name(mapping[3]) if mapping else ("(after the last sample)" if not address
                                                                 else "[unmapped]")
            by_library[library] = by_library.get(library, 0.0) + ms
            name = None
            if mapping and mapping[3].startswith("/"):
                name = symbol_at(mapping[3], address - mapping[0] + mapping[2])
            key = (library, name or "(no symbol)")
            by_symbol[key] = by_symbol.get(key, 0.0) + ms
            # A file written before threads were named, or a full name table: one row for them all.
            thread_name = names.get(thread) or "(unnamed)"
            by_thread[thread_name] = by_thread.get(thread_name, 0.0) + ms
            by_thread_library[(thread_name, library)] = by_thread_library.get((thread_name, library), 0.0) + ms
    return by_library, by_symbol, by_thread, by_thread_library


# The tables compare() can print, by level (the index of the profile's table): the first column's name,
# the library of a key (None: `only`, a library, does not filter that table), and how a key is written.
LEVELS = {
    0: ("library", lambda k: k, lambda k: k),
    1: ("symbol", lambda k: k[0], lambda k: f"{k[1]} ({k[0]})"),
    2: ("thread", None, lambda k: k),
    3: ("thread: library", lambda k: k[1], lambda k: f"{k[0]}: {k[1]}"),
}


VALIDATOR_LIBRARY = "libstreamlife_rt"
VALIDATOR_THREADS = "streamlife"


def program_threads_cpu(files, windows=()):
    """(CPU ms of the program's threads, of which in the validator's library) over the files' samples in
    the windows. The program's threads are every sampled thread but the validator's own (named
    streamlife-*, as the replay thread is). They run one at a time in a step that waits for the host
    (the main thread, then autograd's), so their CPU time is the step's host time, and the validator's
    library in them is the cost the step pays for it."""
    by_thread_library = profile(files, windows)[3]
    total = inside = 0.0
    for (thread, library), ms in by_thread_library.items():
        if thread.startswith(VALIDATOR_THREADS):
            continue
        total += ms
        if VALIDATOR_LIBRARY in library:
            inside += ms
    return total, inside


def median(values):
    values = sorted(values)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def compare(runs, steps, top, minimum=0.02, only=None, levels=(0, 1), micro=False):
    """Lines of tables (LEVELS: per library, per symbol, per thread name, per thread name and library),
    CPU ms per step of each mode (the median of its runs) and each mode's difference from the first;
    with only, the rows of the libraries whose name contains it. runs: [(mode, [(files, windows)])]."""
    per_step = (1000.0 if micro else 1.0) / steps if steps else 1.0
    unit = ("µs/step" if micro else "ms/step") if steps else "ms"
    if micro:
        minimum /= 1000.0
    tables = []
    for mode, repeats in runs:
        profiles = [profile(files, windows) for files, windows in repeats]
        tables.append((mode, profiles))
    lines = []
    for level in sorted(levels):
        name, library_of, label_of = LEVELS[level]
        keys = set()
        for _, profiles in tables:
            for p in profiles:
                keys.update(k for k in p[level] if not only or library_of is None or only in library_of(k))
        rows = []
        for key in keys:
            values = [median([p[level].get(key, 0.0) for p in profiles]) * per_step for _, profiles in tables]
            rows.append((key, values))
        first = lambda values: values[0] or 0.0
        # Ties in name order: the keys come from sets, whose order changes from run to run.
        rows.sort(key=lambda r: (-max(abs(v - first(r[1])) for v in r[1]) if len(r[1]) > 1 else -r[1][0],
                                 str(r[0])))
        header = " | ".join(f"{mode} {unit}" for mode, _ in tables)
        diffs = " | ".join(f"{mode} - {tables[0][0]}" for mode, _ in tables[1:])
        lines.append(f"| {name} | {header} |" + (f" {diffs} |" if diffs else ""))
        lines.append("|---" * (1 + len(tables) + max(0, len(tables) - 1)) + "|")
        if level in (0, 2):
            totals = [sum(v[i] for _, v in rows) for i in range(len(tables))]
            rows = [("(all)", totals)] + rows
        shown = 0
        for key, values in rows:
            if key != "(all)" and max(values) < minimum and all(abs(v - first(values)) < minimum for v in values):
                continue
            if level in (1, 3) and shown >= top:
                break
            label = key if key == "(all)" else label_of(key)
            cells = " | ".join(f"{v:.3f}" for v in values)
            delta = " | ".join(f"{v - first(values):+.3f}" for v in values[1:])
            lines.append(f"| {label} | {cells} |" + (f" {delta} |" if delta else ""))
            shown += 1
        lines.append("")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="one run's sample files (its processes)")
    parser.add_argument("--log", help="the run's output, for its timed window")
    parser.add_argument("--compare", nargs="+", metavar="MODE:FILE,FILE",
                        help="runs to compare, the first being the reference; a mode named twice is a repeat; "
                             "FILE may be a glob pattern (one run's processes)")
    parser.add_argument("--log-of", nargs="+", default=[], metavar="MODE:LOG",
                        help="with --compare: each run's output, in the order of --compare's runs of that mode")
    parser.add_argument("--steps", type=int, help="the timed steps, for ms/step")
    parser.add_argument("--top", type=int, default=25, help="symbols listed (default 25)")
    parser.add_argument("--only", help="list only the symbols of the libraries whose name contains this")
    parser.add_argument("--us", action="store_true", help="with --steps: µs per step (short steps: a launch)")
    parser.add_argument("--threads", action="store_true",
                        help="also the tables by thread name, and by thread name and library")
    options = parser.parse_args()
    if bool(options.files) == bool(options.compare):
        parser.error("give either FILE... or --compare")
    try:
        if options.files:
            windows = windows_in(open(options.log).read()) if options.log else []
            runs = [("run", [(options.files, windows)])]
        else:
            logs = {}
            for item in options.log_of:
                mode, _, path = item.partition(":")
                logs.setdefault(mode, []).append(windows_in(open(path).read()))
            order, grouped = [], {}
            for item in options.compare:
                mode, _, files = item.partition(":")
                if not files:
                    parser.error(f"--compare takes MODE:FILE,..., not '{item}'")
                if mode not in grouped:
                    order.append(mode)
                    grouped[mode] = []
                index = len(grouped[mode])
                windows = logs.get(mode, [])[index] if index < len(logs.get(mode, [])) else []
                # Patterns are expanded here (a shell leaves MODE:PATTERN alone); one that matches
                # nothing stays, to be reported as unreadable.
                paths = [path for pattern in files.split(",") for path in sample_files(pattern) or [pattern]]
                grouped[mode].append((paths, windows))
            runs = [(mode, grouped[mode]) for mode in order]
        levels = (1,) if options.only else (0, 1)
        if options.threads:
            levels += (3,) if options.only else (2, 3)
        for line in compare(runs, options.steps, options.top, only=options.only, levels=levels, micro=options.us):
            print(line)
    except (BadFile, OSError) as e:
        print(f"cpu_samples: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
