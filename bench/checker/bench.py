#!/usr/bin/env python3
"""How much do the streamlife checks add to parsing? (issue 2: at most 15%)

On the same files, in one run, each file is processed by four commands with
the same compiler arguments, and the whole set is repeated --runs times (in a
shuffled order each round, so that drift on a shared machine hits every
command alike):

  syntax       clang++-22 -fsyntax-only ARGS FILE        the compiler's parse
  tidy-base    clang-tidy-22 --checks=-*,llvm-header-guard FILE -- ARGS
               clang-tidy's own pipeline with the cheapest check there is (it
               refuses to run with none; llvm-header-guard only looks at
               headers' #ifndef lines, which system headers never report):
               the fair parse-only baseline for the clang-tidy path
  tidy-plugin  clang-tidy-22 -load StreamlifeTidyModule.so
               --checks=-*,streamlife-* FILE -- ARGS
  streamlife   streamlife check FILE -- ARGS              the CLI, in-process

Per command it reports the median over rounds of the summed wall time, and
the ratios streamlife/syntax, streamlife/tidy-base and tidy-plugin/tidy-base.
The checks' own cost is best read from tidy-plugin/tidy-base (same pipeline,
the only difference being our checks) and streamlife/tidy-base.

usage: bench.py [options] FILE... [-- ARGS]
       bench.py [options] --manifest LIST     (lines "FILE ARG..."; # comments)
Files that do not parse with `syntax` are reported and left out.
No network, nothing written outside --out.
"""
import argparse
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cuda_args(path, cuda):
    """Host-side CUDA parse, as `streamlife check` sets it up for .cu files."""
    if not path.endswith(".cu"):
        return []
    args = ["-x", "cuda", "--cuda-host-only", "-nocudalib", "--cuda-path=" + cuda]
    cccl = os.path.join(cuda, "include", "cccl")
    if os.path.isdir(cccl):
        args += ["-isystem", cccl]
    return args


def commands(opts, path, extra):
    args = cuda_args(path, opts.cuda_path) + extra
    resource = ["-resource-dir=" + opts.resource_dir] if opts.resource_dir else []
    return {
        "syntax": [opts.clangxx, "-fsyntax-only"] + args + [path],
        "tidy-base": [opts.clang_tidy, "--checks=-*,llvm-header-guard", "--quiet", path, "--"] + args,
        "tidy-plugin": [opts.clang_tidy, "-load", opts.plugin, "--checks=-*,streamlife-*", "--quiet",
                        path, "--"] + args,
        "streamlife": [opts.streamlife, "check", path, "--"] + args + resource,
    }


def timed(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=dict(os.environ, CLANG_NO_DEFAULT_CONFIG="1"))
    return time.perf_counter() - start, proc


def read_manifest(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                parts = shlex.split(line)
                entries.append((parts[0], parts[1:]))
    return entries


def main(argv):
    if "--" in argv:
        split = argv.index("--")
        argv, common = argv[:split], argv[split + 1:]
    else:
        common = []
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--manifest")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--clangxx", default="/usr/lib/llvm-22/bin/clang++")
    p.add_argument("--clang-tidy", default="/usr/lib/llvm-22/bin/clang-tidy")
    p.add_argument("--cuda-path", default="/usr/local/cuda")
    p.add_argument("--resource-dir", default="")
    p.add_argument("--out", help="write the raw timings here (JSON)")
    opts = p.parse_args(argv)
    opts.streamlife = os.path.join(opts.build_dir, "bin", "streamlife")
    opts.plugin = os.path.join(opts.build_dir, "lib", "StreamlifeTidyModule.so")
    for tool in (opts.streamlife, opts.plugin, opts.clangxx, opts.clang_tidy):
        if not os.path.exists(tool):
            sys.exit(f"bench: error: {tool} does not exist (build first)")

    entries = [(f, common) for f in opts.files]
    if opts.manifest:
        entries += [(f, a + common) for f, a in read_manifest(opts.manifest)]
    if not entries:
        sys.exit("bench: error: no files (give FILEs or --manifest)")

    # Warm-up round: fills the page cache, and finds files that do not parse.
    usable = []
    for path, extra in entries:
        elapsed, proc = timed(commands(opts, path, extra)["syntax"])
        if proc.returncode != 0:
            first = proc.stderr.decode(errors="replace").strip().splitlines()[:1]
            print(f"bench: skipped {path}: does not parse ({first[0] if first else '?'})", file=sys.stderr)
            continue
        for name, cmd in commands(opts, path, extra).items():
            _, proc = timed(cmd)
            if proc.returncode not in (0, 1):
                print(f"bench: warning: {name} exits {proc.returncode} on {path}", file=sys.stderr)
        usable.append((path, extra))
    if not usable:
        sys.exit("bench: error: no file parses")

    names = ["syntax", "tidy-base", "tidy-plugin", "streamlife"]
    totals = {n: [] for n in names}
    per_file = {path: {n: [] for n in names} for path, _ in usable}
    rng = random.Random(2026)
    for r in range(opts.runs):
        jobs = [(path, extra, n) for path, extra in usable for n in names]
        rng.shuffle(jobs)
        round_total = {n: 0.0 for n in names}
        for path, extra, n in jobs:
            elapsed, _ = timed(commands(opts, path, extra)[n])
            round_total[n] += elapsed
            per_file[path][n].append(elapsed)
        for n in names:
            totals[n].append(round_total[n])
        print(f"bench: round {r + 1}/{opts.runs}: " +
              ", ".join(f"{n} {round_total[n]:.2f}s" for n in names), file=sys.stderr)

    med = {n: statistics.median(totals[n]) for n in names}
    print(f"files: {len(usable)} (of {len(entries)}), runs: {opts.runs}")
    for n in names:
        print(f"  {n:12} median {med[n]:8.3f} s   (min {min(totals[n]):.3f}, max {max(totals[n]):.3f})")
    ratios = {
        "streamlife/syntax": med["streamlife"] / med["syntax"],
        "streamlife/tidy-base": med["streamlife"] / med["tidy-base"],
        "tidy-plugin/tidy-base": med["tidy-plugin"] / med["tidy-base"],
        "tidy-base/syntax": med["tidy-base"] / med["syntax"],
    }
    for k, v in ratios.items():
        print(f"  ratio {k:22} {v:6.3f}  ({(v - 1) * 100:+.1f}%)")
    # The files where the checks cost most, by median per-file ratio.
    worst = sorted(((statistics.median(t["tidy-plugin"]) / statistics.median(t["tidy-base"]), path)
                    for path, t in per_file.items()), reverse=True)[:5]
    print("  slowest relative to tidy-base (tidy-plugin/tidy-base per file):")
    for ratio, path in worst:
        print(f"    {ratio:6.3f}  {path}")
    target = ratios["streamlife/tidy-base"] <= 1.15 and ratios["tidy-plugin/tidy-base"] <= 1.15
    print("target (checks add at most 15% over parsing): " + ("met" if target else "NOT met"))
    if opts.out:
        with open(opts.out, "w", encoding="utf-8") as f:
            json.dump({"files": [p for p, _ in usable], "totals": totals, "medians": med,
                       "ratios": ratios, "per_file": per_file}, f, indent=1)
    return 0 if target else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
