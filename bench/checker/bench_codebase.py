#!/usr/bin/env python3
"""`streamlife check -p DB -j N` on a whole codebase, against the parallel
runs a team would otherwise use (issue 8: within 10% of the parse-only run).

On one compile database of real files, in one run, three commands with the
same parallelism N, repeated --runs times in a shuffled order per round:

  syntax       clang++-22 -fsyntax-only per database entry, N at a time
               (a process pool, like xargs -P N): the parse alone
  run-tidy     run-clang-tidy-22 -p DB -j N -load StreamlifeTidyModule.so
               -checks=-*,streamlife-*: the checks through clang-tidy's own
               parallel driver
  streamlife   streamlife check -p DB -j N -q

For each: wall time, CPU time (user + system of the whole process tree,
from the reaped children's rusage: robust to other load on a shared machine,
which wall time is not) and peak memory: the largest sum, over the command's
whole process tree, of each process's proportional set size (PSS, from
/proc/PID/smaps_rollup: shared pages such as libLLVM's are split between the
processes sharing them, so forked workers are not counted twice), sampled
every 20 ms.
Prints the medians, min and max per command and the ratio streamlife/syntax
of each round, so that the variance on a shared machine shows.

The files: every .cu/.cpp of an extracted NVIDIA/cuda-samples checkout
(--cuda-samples DIR; never downloaded or committed by this script) with the
include paths and flags their CMake gives each sample (as robustness.sh does),
plus this repository's examples/cuda/*.cu; the files that do not parse with
clang++-22 -fsyntax-only (missing third-party SDK headers) are left out, and
--max-files keeps the first K of the rest in path order.

To get the checkout without network access to GitHub from the bench machine,
extract it from any clone or mirror: `git --git-dir=MIRROR archive c94ff366 |
tar -x -C DIR`.

usage: bench_codebase.py --cuda-samples DIR [--jobs 2] [--runs 3]
                         [--max-files K] [--work DIR] [--out FILE.json]
"""
import argparse
import glob
import json
import os
import random
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Host overloads of min/max(float, float) that nvcc's headers declare
# __host__ __device__ and clang's CUDA wrappers do not (robustness.sh has the
# same shim): a harness shim, not a change to their code.
SHIM = """#pragma once
#if defined(__CUDA__) && !defined(__CUDA_ARCH__)
__host__ static inline float max(float a, float b) { return a < b ? b : a; }
__host__ static inline float min(float a, float b) { return b < a ? b : a; }
#endif
"""


def sample_args(samples, path, cuda, shim):
    d = os.path.dirname(path)
    args = ["-I" + os.path.join(samples, "Common"), "-I" + os.path.join(samples, "Common", "UtilNPP"),
            "-I" + d, "-std=c++17"]
    for inc in (os.path.join(d, "inc"), os.path.join(d, "..", "inc")):
        if os.path.isdir(inc):
            args.append("-I" + inc)
    if path.endswith(".cu"):
        args += ["-include", shim]
        for cm in (os.path.join(d, "CMakeLists.txt"), os.path.join(d, "..", "CMakeLists.txt")):
            if os.path.exists(cm) and "CUDA_SEPARABLE_COMPILATION ON" in open(cm, errors="replace").read():
                args.append("-fgpu-rdc")
                break
    else:
        args += ["-isystem", os.path.join(cuda, "include")]
    return args


def cuda_mode(path, cuda):
    """What streamlife check adds for .cu files; given to every command."""
    if not path.endswith(".cu"):
        return []
    args = ["-x", "cuda", "--cuda-host-only", "-nocudalib", "--cuda-path=" + cuda]
    cccl = os.path.join(cuda, "include", "cccl")
    if os.path.isdir(cccl):
        args += ["-isystem", cccl]
    return args


class PeakRss:
    """Largest total RSS of a process and all its descendants."""

    def __init__(self, pid):
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _children(pid):
        out = []
        for task in glob.glob(f"/proc/{pid}/task/*/children"):
            try:
                out += [int(c) for c in open(task).read().split()]
            except OSError:
                pass
        return out

    @staticmethod
    def _rss_kib(pid):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def _run(self):
        while not self._stop.is_set():
            todo, total, seen = [self.pid], 0, set()
            while todo:
                p = todo.pop()
                if p in seen:
                    continue
                seen.add(p)
                total += self._rss_kib(p)
                todo += self._children(p)
            self.peak = max(self.peak, total)
            self._stop.wait(0.02)

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.peak


def children_cpu():
    """User + system seconds of every descendant this process has reaped,
    grandchildren included once their parent waited for them."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def measure(cmd, env):
    """Wall seconds, peak PSS (MiB), CPU seconds (user + system of the whole
    process tree), exit status, stderr. CPU time is what the command costs
    whatever else runs on the machine: on a shared, loaded machine wall time
    grows with the other load, CPU time (nearly) does not. Commands run one
    at a time, so the RUSAGE_CHILDREN delta is this command's tree alone."""
    cpu0 = children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    sampler = PeakRss(proc.pid)
    _, err = proc.communicate()
    peak = sampler.stop()
    wall = time.perf_counter() - start
    return wall, peak / 1024.0, children_cpu() - cpu0, proc.returncode, err.decode(errors="replace")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cuda-samples", required=True)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--max-files", type=int, default=0)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--clangxx", default="/usr/lib/llvm-22/bin/clang++")
    p.add_argument("--clang-tidy", default="/usr/lib/llvm-22/bin/clang-tidy")
    p.add_argument("--run-clang-tidy", default="/usr/bin/run-clang-tidy-22")
    p.add_argument("--cuda-path", default="/usr/local/cuda")
    p.add_argument("--work", help="where the compile database goes (default: a temporary directory)")
    p.add_argument("--out", help="write the raw measurements here (JSON)")
    p.add_argument("--filter-only", action="store_true",
                   help="only find the files that parse (cached in --work), measure nothing")
    o = p.parse_args(argv)
    streamlife = os.path.join(o.build_dir, "bin", "streamlife")
    plugin = os.path.join(o.build_dir, "lib", "StreamlifeTidyModule.so")
    samples = os.path.abspath(o.cuda_samples)
    for tool in (streamlife, plugin, o.clangxx, o.clang_tidy, o.run_clang_tidy):
        if not os.path.exists(tool) and not o.filter_only:
            sys.exit(f"bench: error: {tool} does not exist")
    if not os.path.isdir(os.path.join(samples, "Samples")):
        sys.exit(f"bench: error: {samples} is not a cuda-samples checkout (no Samples/)")
    work = o.work or tempfile.mkdtemp(prefix="streamlife-bench-")
    os.makedirs(work, exist_ok=True)
    shim = os.path.join(work, "host_minmax_shim.h")
    with open(shim, "w") as f:
        f.write(SHIM)

    files = []
    for dirpath, _, names in os.walk(os.path.join(samples, "Samples")):
        files += [os.path.join(dirpath, n) for n in names if n.endswith((".cu", ".cpp"))]
    entries = [(f, cuda_mode(f, o.cuda_path) + sample_args(samples, f, o.cuda_path, shim))
               for f in sorted(files)]
    entries += [(f, cuda_mode(f, o.cuda_path)) for f in sorted(glob.glob(os.path.join(ROOT, "examples", "cuda", "*.cu")))]

    env = dict(os.environ, CLANG_NO_DEFAULT_CONFIG="1")

    def parses(entry):
        path, args = entry
        r = subprocess.run([o.clangxx, "-fsyntax-only"] + args + [path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
        return r.returncode == 0

    # Which files parse does not change between runs on one checkout: kept in
    # the work directory (--work) so that a repeated bench skips this pass.
    cache = os.path.join(work, "parses.json")
    key = [[path, args] for path, args in entries]
    known = None
    if os.path.exists(cache):
        with open(cache) as f:
            saved = json.load(f)
        if saved.get("entries") == key:
            known = saved["ok"]
    if known is None:
        with ThreadPoolExecutor(o.jobs) as pool:
            known = list(pool.map(parses, entries))
        with open(cache, "w") as f:
            json.dump({"entries": key, "ok": known}, f)
    if o.filter_only:
        print(f"bench: {sum(known)} of {len(entries)} files parse", file=sys.stderr)
        return 0
    usable = [e for e, good in zip(entries, known) if good]
    print(f"bench: {len(usable)} of {len(entries)} files parse", file=sys.stderr)
    if o.max_files:
        usable = usable[:o.max_files]
    db_dir = os.path.join(work, "db")
    os.makedirs(db_dir, exist_ok=True)
    with open(os.path.join(db_dir, "compile_commands.json"), "w") as f:
        json.dump([{"directory": os.path.dirname(path), "file": path,
                    "arguments": ["clang++"] + args + ["-c", path]} for path, args in usable], f, indent=1)
    db = db_dir

    syntax_list = os.path.join(work, "syntax.sh")
    with open(syntax_list, "w") as f:
        for path, args in usable:
            f.write(shlex.join([o.clangxx, "-fsyntax-only"] + args + [path]) + "\0")
    commands = {
        # xargs runs N parses at a time, each its own process, as run-clang-tidy does.
        "syntax": ["sh", "-c", f"xargs -0 -P {o.jobs} -n 1 sh -c < {shlex.quote(syntax_list)}"],
        "run-tidy": [o.run_clang_tidy, "-p", db, "-j", str(o.jobs), "-quiet",
                     "-clang-tidy-binary", o.clang_tidy, "-load", plugin, "-checks=-*,streamlife-*"],
        "streamlife": [streamlife, "check", "-p", db, "-j", str(o.jobs), "-q"],
    }
    names = list(commands)
    results = {n: {"wall": [], "cpu": [], "peak_mib": []} for n in names}
    rng = random.Random(2026)
    load_start = os.getloadavg()
    for r in range(o.runs):
        order = names[:]
        rng.shuffle(order)
        for n in order:
            wall, peak, cpu, rc, err = measure(commands[n], env)
            if rc not in (0, 1):
                print(f"bench: warning: {n} exited {rc}: {err.strip().splitlines()[-1:] }", file=sys.stderr)
            results[n]["wall"].append(wall)
            results[n]["cpu"].append(cpu)
            results[n]["peak_mib"].append(peak)
        print(f"bench: round {r + 1}/{o.runs}: " + ", ".join(
            f"{n} {results[n]['wall'][-1]:.1f}s wall {results[n]['cpu'][-1]:.1f}s cpu "
            f"{results[n]['peak_mib'][-1]:.0f}MiB" for n in names) + f" (load {os.getloadavg()[0]:.1f})",
            file=sys.stderr)

    load_end = os.getloadavg()
    print(f"files: {len(usable)} (cuda-samples + examples/cuda), -j {o.jobs}, runs: {o.runs}, "
          f"load average at start {load_start[0]:.1f} / {load_start[1]:.1f} / {load_start[2]:.1f}, "
          f"at end {load_end[0]:.1f} / {load_end[1]:.1f} / {load_end[2]:.1f}")
    print("| command | wall median | min | max | CPU median | min | max | CPU per file | peak PSS median | min | max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    med, cmed = {}, {}
    for n in names:
        w, c, m = results[n]["wall"], results[n]["cpu"], results[n]["peak_mib"]
        med[n], cmed[n] = statistics.median(w), statistics.median(c)
        print(f"| {n} | {med[n]:.1f} s | {min(w):.1f} | {max(w):.1f} | {cmed[n]:.1f} s | {min(c):.1f} | "
              f"{max(c):.1f} | {cmed[n] / len(usable):.3f} s | "
              f"{statistics.median(m):.0f} MiB | {min(m):.0f} | {max(m):.0f} |")
    for base in ("syntax", "run-tidy"):
        per_round = [s / x for s, x in zip(results["streamlife"]["wall"], results[base]["wall"])]
        cpu_round = [s / x for s, x in zip(results["streamlife"]["cpu"], results[base]["cpu"])]
        print(f"streamlife/{base}: wall medians {med['streamlife'] / med[base]:.3f}, per round "
              + ", ".join(f"{x:.3f}" for x in per_round)
              + f"; CPU medians {cmed['streamlife'] / cmed[base]:.3f}, per round "
              + ", ".join(f"{x:.3f}" for x in cpu_round))
    ratio = med["streamlife"] / med["syntax"]
    cratio = cmed["streamlife"] / cmed["syntax"]
    target = ratio <= 1.10
    print(f"target (within 10% of the parse-only run): wall {ratio:.3f} " + ("met" if target else "NOT met")
          + f"; CPU {cratio:.3f} " + ("met" if cratio <= 1.10 else "NOT met"))
    if o.out:
        with open(o.out, "w") as f:
            json.dump({"files": [p for p, _ in usable], "jobs": o.jobs, "results": results,
                       "load_start": load_start, "load_end": load_end, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, indent=1)
    return 0 if target else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
