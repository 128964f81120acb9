#!/usr/bin/env python3
"""What `--timeline` costs the validator on the host, without a GPU.

Usage: bench/runtime/timeline_cpu.py BUILD_DIR [--launches N,...] [--repeat R] [--limit MiB]

Plays the launch-bound loop of the fake CUDA harness (fake_cuda_program
launch-loop: per iteration an allocation, an event record and wait, a launch
that reads the block, another record and wait, a stream-ordered free) through
the fake CUPTI, whose fake GPU also delivers activity records, so the GPU-time
path of the timeline is exercised. Modes, interleaved within each repeat:
`streamlife run` alone, with `--timeline` (GPU times), and with `--timeline
--timeline-gpu-time=0` (order only). Per mode and loop length: the median wall
time, the peak resident memory of the program (the validator's memory grows
with the loop length only if the timeline keeps what it wrote), and the
trace's size (capped by --limit MiB, 64 by default: the recorder does all its
work past the cap, the writer drops the events). The ratio to `streamlife run` alone is the timeline's host cost
per launch (the GPU run's target is <= 1.2x on the launch-bound bench, whose
plain launches cost the driver's time too, which this loop does not have).
Exit 1 when a run fails or a trace is not valid.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile


def measure(args, mode, launches, scratch):
    fake = os.path.join(args.build, "test", "fakecuda")
    env = dict(os.environ, LD_LIBRARY_PATH=fake, STREAMLIFE_CUPTI_LIBRARY=os.path.join(fake, "libcupti.so"),
               FAKE_LOOP_ITERATIONS=str(launches))
    trace = os.path.join(scratch, "%s-%d.json" % (mode, launches))
    flags = {"streamlife": [], "timeline": ["--timeline", trace],
             "timeline-order": ["--timeline", trace, "--timeline-gpu-time=0"]}[mode]
    command = [os.path.join(args.build, "bin", "streamlife"), "run", "--timeline-limit", str(args.limit)] + flags + \
              ["--", os.path.join(fake, "fake_cuda_program"), "launch-loop"]
    # A child per measurement, so that its peak memory is its own.
    probe = [sys.executable, "-c",
             "import resource, subprocess, sys, time\n"
             "t = time.perf_counter()\n"
             "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode\n"
             "print(rc, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"] + command
    out = subprocess.run(probe, env=env, capture_output=True, text=True).stdout.split()
    rc, wall, rss = int(out[0]), float(out[1]), int(out[2])
    size = os.path.getsize(trace) if os.path.exists(trace) else 0
    valid = True
    if mode != "streamlife":
        check = subprocess.run([sys.executable, os.path.join(args.root, "test", "check_trace_events.py"), trace],
                               capture_output=True, text=True)
        valid = check.returncode == 0
        os.unlink(trace)
    return rc, wall, rss, size, valid


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--launches", default="100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    # Each step writes some 2.7 KB of trace: 10^6 steps would be 2.7 GB, more
    # than the format check can load. Past the cap the recorder still does all
    # its work (it only drops the events), so the cost and memory are measured.
    parser.add_argument("--limit", type=int, default=64, help="--timeline-limit in MiB (default 64)")
    args = parser.parse_args()
    args.root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    modes = ["streamlife", "timeline", "timeline-order"]
    lengths = [int(n) for n in args.launches.split(",")]
    results = {(m, n): [] for m in modes for n in lengths}
    problems = 0
    with tempfile.TemporaryDirectory(prefix="timeline-cpu.") as scratch:
        for repeat in range(args.repeat):
            for n in lengths:
                for mode in modes:
                    rc, wall, rss, size, valid = measure(args, mode, n, scratch)
                    print("timeline-cpu: %-14s %8d launches #%d: %.2f s, peak RSS %d KiB, trace %d bytes%s"
                          % (mode, n, repeat + 1, wall, rss, size,
                             "" if rc == 0 and valid else "  PROBLEM (exit %d, trace %s)"
                             % (rc, "valid" if valid else "NOT VALID")), flush=True)
                    problems += rc != 0 or not valid
                    results[(mode, n)].append((wall, rss, size))
    print()
    print("%-14s %9s %10s %8s %14s %14s" % ("mode", "launches", "wall s", "ratio", "peak RSS KiB", "trace MiB"))
    for n in lengths:
        base = statistics.median(r[0] for r in results[("streamlife", n)])
        for mode in modes:
            rs = results[(mode, n)]
            wall = statistics.median(r[0] for r in rs)
            print("%-14s %9d %10.2f %7.2fx %14d %14.1f" % (mode, n, wall, wall / base,
                                                          max(r[1] for r in rs),
                                                          max(r[2] for r in rs) / 2**20))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
