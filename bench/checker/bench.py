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

Per command it reports the median over rounds of the summed wall time and
of the summed CPU time (user + system of the command's process tree: the
RUSAGE_CHILDREN delta around it; on a shared machine other load stretches
wall time, not much the CPU time the command itself uses), and the ratios
streamlife/syntax, streamlife/tidy-base and tidy-plugin/tidy-base of both.
The checks' own cost is best read from tidy-plugin/tidy-base (same pipeline,
the only difference being our checks) and streamlife/tidy-base; issue 10's
target is streamlife/syntax at most 1.10. --by-dir repeats the streamlife/
syntax ratios for each folder of files (examples/aten apart from
examples/cuda). --baseline-streamlife BIN adds another build's `streamlife
check` as a fifth command, in the same shuffled rounds (before/after a change
to the checks, under the same load).

usage: bench.py [options] FILE... [-- ARGS]
       bench.py [options] --manifest LIST     (lines "FILE ARG..."; # comments)
Files that do not parse with `syntax` are reported and left out.
No network, nothing written outside --out.
"""
import argparse
import json
import os
import random
import resource
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
        **({"streamlife-baseline": [opts.baseline_streamlife, "check", path, "--"] + args + resource}
           if opts.baseline_streamlife else {}),
    }


def children_cpu():
    """User + system seconds of every descendant this process has reaped."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd):
    """Wall seconds, CPU seconds (user + system of the command and whatever it
    forks: the commands run one at a time, so the RUSAGE_CHILDREN delta is
    this command's alone), and the completed process."""
    cpu0 = children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=dict(os.environ, CLANG_NO_DEFAULT_CONFIG="1"))
    return time.perf_counter() - start, children_cpu() - cpu0, proc


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
    p.add_argument("--baseline-streamlife", metavar="BIN",
                   help="another build's streamlife, run as a fifth command (before/after a change)")
    p.add_argument("--by-dir", action="store_true",
                   help="also report streamlife/syntax for each folder of files")
    opts = p.parse_args(argv)
    opts.streamlife = os.path.join(opts.build_dir, "bin", "streamlife")
    opts.plugin = os.path.join(opts.build_dir, "lib", "StreamlifeTidyModule.so")
    for tool in (opts.streamlife, opts.plugin, opts.clangxx, opts.clang_tidy) + (
            (opts.baseline_streamlife,) if opts.baseline_streamlife else ()):
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
        _, _, proc = timed(commands(opts, path, extra)["syntax"])
        if proc.returncode != 0:
            first = proc.stderr.decode(errors="replace").strip().splitlines()[:1]
            print(f"bench: skipped {path}: does not parse ({first[0] if first else '?'})", file=sys.stderr)
            continue
        for name, cmd in commands(opts, path, extra).items():
            _, _, proc = timed(cmd)
            if proc.returncode not in (0, 1):
                print(f"bench: warning: {name} exits {proc.returncode} on {path}", file=sys.stderr)
        usable.append((path, extra))
    if not usable:
        sys.exit("bench: error: no file parses")

    names = ["syntax", "tidy-base", "tidy-plugin", "streamlife"] + (
        ["streamlife-baseline"] if opts.baseline_streamlife else [])
    totals = {n: [] for n in names}
    cpu_totals = {n: [] for n in names}
    per_file = {path: {n: [] for n in names} for path, _ in usable}
    per_file_cpu = {path: {n: [] for n in names} for path, _ in usable}
    rng = random.Random(2026)
    load_start = os.getloadavg()
    for r in range(opts.runs):
        jobs = [(path, extra, n) for path, extra in usable for n in names]
        rng.shuffle(jobs)
        round_total = {n: 0.0 for n in names}
        round_cpu = {n: 0.0 for n in names}
        for path, extra, n in jobs:
            elapsed, cpu, _ = timed(commands(opts, path, extra)[n])
            round_total[n] += elapsed
            round_cpu[n] += cpu
            per_file[path][n].append(elapsed)
            per_file_cpu[path][n].append(cpu)
        for n in names:
            totals[n].append(round_total[n])
            cpu_totals[n].append(round_cpu[n])
        print(f"bench: round {r + 1}/{opts.runs}: " +
              ", ".join(f"{n} {round_total[n]:.2f}s ({round_cpu[n]:.2f}s cpu)" for n in names),
              file=sys.stderr)
    load_end = os.getloadavg()

    med = {n: statistics.median(totals[n]) for n in names}
    cmed = {n: statistics.median(cpu_totals[n]) for n in names}
    print(f"files: {len(usable)} (of {len(entries)}), runs: {opts.runs}, load average at start "
          f"{load_start[0]:.1f}, at end {load_end[0]:.1f}")
    for n in names:
        print(f"  {n:19} median {med[n]:8.3f} s   (min {min(totals[n]):.3f}, max {max(totals[n]):.3f})"
              f"   cpu median {cmed[n]:8.3f} s   (min {min(cpu_totals[n]):.3f}, max {max(cpu_totals[n]):.3f})")
    pairs = [("streamlife", "syntax"), ("streamlife", "tidy-base"), ("tidy-plugin", "tidy-base"),
             ("tidy-base", "syntax")] + (
                 [("streamlife", "streamlife-baseline"), ("streamlife-baseline", "syntax")]
                 if opts.baseline_streamlife else [])
    ratios = {f"{a}/{b}": med[a] / med[b] for a, b in pairs}
    cpu_ratios = {f"{a}/{b}": cmed[a] / cmed[b] for a, b in pairs}
    for k, v in ratios.items():
        c = cpu_ratios[k]
        print(f"  ratio {k:22} {v:6.3f}  ({(v - 1) * 100:+.1f}%)   cpu {c:6.3f}  ({(c - 1) * 100:+.1f}%)")
    # Per round, the commands of one round ran under the same conditions.
    print("  streamlife/syntax per round: wall "
          + ", ".join(f"{s / x:.3f}" for s, x in zip(totals["streamlife"], totals["syntax"]))
          + "; cpu "
          + ", ".join(f"{s / x:.3f}" for s, x in zip(cpu_totals["streamlife"], cpu_totals["syntax"])))
    groups = {}
    if opts.by_dir:
        for path, _ in usable:
            groups.setdefault(os.path.dirname(path) or ".", []).append(path)
        print("  streamlife/syntax by folder (medians over rounds of the folder's totals):")
        for folder, paths in sorted(groups.items()):
            g = {}
            shown = ("syntax", "streamlife") + (("streamlife-baseline",) if opts.baseline_streamlife else ())
            for n in shown:
                g[n] = (statistics.median([sum(per_file[f][n][r] for f in paths) for r in range(opts.runs)]),
                        statistics.median([sum(per_file_cpu[f][n][r] for f in paths) for r in range(opts.runs)]))
            print(f"    {folder} ({len(paths)} files): syntax {g['syntax'][0]:.2f} s ({g['syntax'][1]:.2f} s cpu), "
                  f"streamlife {g['streamlife'][0]:.2f} s ({g['streamlife'][1]:.2f} s cpu): "
                  f"wall {g['streamlife'][0] / g['syntax'][0]:.3f}, cpu {g['streamlife'][1] / g['syntax'][1]:.3f}"
                  + (f"; baseline {g['streamlife-baseline'][0]:.2f} s ({g['streamlife-baseline'][1]:.2f} s cpu): "
                     f"wall {g['streamlife-baseline'][0] / g['syntax'][0]:.3f}, "
                     f"cpu {g['streamlife-baseline'][1] / g['syntax'][1]:.3f}" if opts.baseline_streamlife else ""))
    # The files where the checks cost most, by median per-file ratio.
    worst = sorted(((statistics.median(t["tidy-plugin"]) / statistics.median(t["tidy-base"]), path)
                    for path, t in per_file.items()), reverse=True)[:5]
    print("  slowest relative to tidy-base (tidy-plugin/tidy-base per file):")
    for ratio, path in worst:
        print(f"    {ratio:6.3f}  {path}")
    target = ratios["streamlife/tidy-base"] <= 1.15 and ratios["tidy-plugin/tidy-base"] <= 1.15
    print("target (checks add at most 15% over parsing): " + ("met" if target else "NOT met"))
    print(f"target (issue 10: streamlife within 10% of -fsyntax-only): wall {ratios['streamlife/syntax']:.3f} "
          + ("met" if ratios["streamlife/syntax"] <= 1.10 else "NOT met")
          + f", cpu {cpu_ratios['streamlife/syntax']:.3f} "
          + ("met" if cpu_ratios["streamlife/syntax"] <= 1.10 else "NOT met"))
    if opts.out:
        with open(opts.out, "w", encoding="utf-8") as f:
            json.dump({"files": [p for p, _ in usable], "totals": totals, "medians": med,
                       "ratios": ratios, "per_file": per_file, "cpu_totals": cpu_totals,
                       "cpu_medians": cmed, "cpu_ratios": cpu_ratios, "per_file_cpu": per_file_cpu,
                       "load_start": load_start, "load_end": load_end,
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, indent=1)
    return 0 if target else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
