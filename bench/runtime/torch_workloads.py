#!/usr/bin/env python3
"""PyTorch workloads side by side: plain, `streamlife run` (default options),
PyTorch's CUDA sanitizer (TORCH_CUDA_SANITIZER=1) and compute-sanitizer
(memcheck, --track-stream-ordered-races all), under the cudaMallocAsync backend
and/or the native caching allocator. One table: ms/step, the ratio to plain
(same workload and allocator, same invocation), findings, and what streamlife
intercepted (so that a silent run is shown to be an observed one). For
--self-profile runs, also the validator's own ms/step by its self-profile and
the ratio to plain that implies (self_profile_table.py says how it is read).

  bench/runtime/torch_workloads.py --streamlife BUILD/bin/streamlife [--modes plain,streamlife,streamlife-timeline,csan,cs,control]
      [--alloc async,native] [--workloads fsdp2,...] [--steps N] [--repeat R] [--nproc N [--no-launcher]] [--log-dir DIR]
      [--jobs J | --cpus LIST | --together LIST/LIST/...] [--expect-clean]

--sampler LIB preloads the CPU sampler (build/bench/runtime/libstreamlife_cpu_sampler.so)
into every run's Python processes and adds, per workload, the CPU time of the timed
steps by library and symbol in each mode and its difference from the first mode
(cpu_samples.py): what the validated run spent beyond the plain one, including what
the self-profile cannot time.

--jobs J runs J workload runs at a time (for evidence, not timing: the ms/step
column is then not comparable).

--together SETS (CPU lists separated by '/', e.g. 2-5/6-9/10-13) starts a
round's modes at the same moment, each on its own set, the sets rotating
between rounds: the runs of one round share whatever the host does while they
run, which moves a plain FSDP2 step by a third between runs made one after
the other. The costs below the table are then read from each round's pair
(shift.py --paired). Mode 'control' is a second plain run: its "cost" says
what the method itself leaves (1.0x within its interval, if pairs made
together cancel the host's drift).

--expect-clean also demands 0 findings from
every streamlife run (seed-buggy excepted) and, where a workload prints
`loss: X`, the same loss (1%) with and without the validator.

Exit 0 when every run finished with `result: ok` (and, with --expect-clean,
was clean and unchanged), 1 otherwise, 2 on bad usage.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import socket
import subprocess
import sys
import time

import cpu_samples
from cpu_samples import BadFile, compare, median, program_threads_cpu, sample_files, windows_in
from self_profile_table import describe, estimate, implied_ratio, steps_said, steps_seen
import shift

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS_DIR = os.path.join(HERE, "..", "..", "test", "gpu", "Inputs", "workloads")

# name -> (script, extra args, distributed)
WORKLOADS = {
    "fsdp2": ("fsdp2_loop.py", ["--foreach", "on"], True),
    "fsdp2-noforeach": ("fsdp2_loop.py", ["--foreach", "off"], True),
    # FSDP2 with the gradient fix of pytorch/pytorch#193686 applied from the
    # outside (fsdp2_loop.py says why it matters under cudaMallocAsync).
    "fsdp2-recorded": ("fsdp2_loop.py", ["--foreach", "on", "--record-grad-streams"], True),
    "fsdp2-noforeach-recorded": ("fsdp2_loop.py", ["--foreach", "off", "--record-grad-streams"], True),
    "ddp": ("ddp_loop.py", [], True),
    "compile": ("compile_step.py", [], False),
    "prefetcher": ("data_prefetcher.py", [], False),
    "offload": ("activation_offload.py", [], False),
    "graph": ("cuda_graph_replay.py", [], False),
    "keepalive": ("keepalive_queue.py", [], False),
    "hf-transformer": ("hf_transformer.py", [], False),
    "lightning": ("lightning_fit.py", [], False),
    "accelerate-offload": ("accelerate_offload.py", [], False),
    "memory-pressure": ("memory_pressure.py", [], False),
    "jax": ("jax_program.py", [], False),
    # The seed's four pipelines (examples/python, hidden size 4096 by default);
    # a step is one trial (4 layers), --steps trials. seed-buggy has the bug on
    # purpose: its one finding is expected.
    "seed-buggy": ("../../../../examples/python/no_lifetime_management.py", [], False),
    "seed-stall": ("../../../../examples/python/stall_producer.py", [], False),
    "seed-keepalive": ("../../../../examples/python/keepalive.py", [], False),
    "seed-record-stream": ("../../../../examples/python/record_stream.py", [], False),
}
ALLOC = {"async": "backend:cudaMallocAsync", "native": ""}


def command(workload, mode, options):
    script, extra, distributed = WORKLOADS[workload]
    path = os.path.join(WORKLOADS_DIR, script)
    steps = options.cs_steps if mode == "cs" else options.steps
    seed = workload.startswith("seed-")
    args = extra + ["--trials" if seed else "--steps", str(steps)]
    if mode == "cs" and not seed:
        args += ["--warmup", "1"]
    if distributed and not (options.no_launcher and options.nproc == 1):
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               f"--nproc_per_node={options.nproc}", path] + args
    else:
        cmd = [sys.executable, path] + args
    if mode == "streamlife":
        cmd = [options.streamlife, "run"] + options.streamlife_args + ["--"] + cmd
    elif mode == "control":  # a second plain run, to read the method's own noise against plain
        pass
    elif mode == "baseline":  # another build (the one before a change), side by side with this one
        cmd = [options.baseline, "run"] + options.streamlife_args + ["--"] + cmd
    elif mode == "streamlife-nostack":  # the cost of stack capture, for comparison
        cmd = [options.streamlife, "run", "--stack-depth", "0"] + options.streamlife_args + ["--"] + cmd
    elif mode == "streamlife-selfprofile":  # where the validator's own time goes, per callback and phase
        cmd = [options.streamlife, "run", "--self-profile"] + options.streamlife_args + ["--"] + cmd
    elif mode in ("streamlife-timeline", "streamlife-timeline-order"):
        # The cost of --timeline (GPU times from CUPTI's activity records, or
        # by order alone): one trace per process in the log folder.
        trace = os.path.join(options.log_dir or ".", f"{workload}.timeline-%p.json")
        gpu = [] if mode == "streamlife-timeline" else ["--timeline-gpu-time=0"]
        cmd = [options.streamlife, "run", "--timeline", trace] + gpu + options.streamlife_args + ["--"] + cmd
    elif mode == "streamlife-pyprofile":  # Python call sites from the profile function, not the frame walker
        cmd = [options.streamlife, "run", "--python-frame-walker=0"] + options.streamlife_args + ["--"] + cmd
    elif mode == "cs":
        cmd = [options.compute_sanitizer, "--tool", "memcheck", "--track-stream-ordered-races", "all",
               "--target-processes", "all", "--print-limit", "100"] + cmd
    return cmd


def validated(mode):
    """Modes that run a streamlife build."""
    return mode.startswith("streamlife") or mode == "baseline"


def findings(mode, text):
    if validated(mode):
        found = [int(n) for n in re.findall(r"streamlife: summary: (\d+) finding", text)]
        return str(sum(found)) if found else "no summary"
    if mode == "csan":
        return str(len(re.findall(r"CSAN detected a possible data race", text)))
    if mode == "cs":
        errors = [int(n) for n in re.findall(r"ERROR SUMMARY: (\d+) error", text)]
        return str(sum(errors)) if errors else "no summary"
    return "-"


def observed(text):
    """What streamlife intercepted, from its intercept-stats lines (observing(): evidence runs and
    self-profile runs only)."""
    counts = {}
    for name, n in re.findall(r"streamlife: intercept-stats: driver (\w+) \(cbid \d+\): (\d+)", text):
        counts[name] = counts.get(name, 0) + int(n)
    launches = sum(v for k, v in counts.items() if k.startswith("cuLaunch"))
    allocs = sum(v for k, v in counts.items() if k.startswith("cuMemAlloc"))
    frees = sum(v for k, v in counts.items() if k.startswith("cuMemFree"))
    events = sum(v for k, v in counts.items() if k.startswith("cuEventRecord"))
    waits = sum(v for k, v in counts.items() if k.startswith("cuStreamWaitEvent"))
    parts = [f"launches {launches}", f"allocs {allocs}", f"frees {frees}", f"event records {events}",
             f"waits {waits}"]
    for line in re.findall(r"streamlife: intercept-stats: ((?:launches by parameter plan|NCCL calls): .*)", text):
        parts.append(line.strip())
    return "; ".join(parts)


def observing(mode, options):
    """Whether a validated run prints intercept-stats (the table's "observed" column): in evidence runs
    (--expect-clean), whose time is not the point, and in self-profile runs, which take the lock
    interposers' observed path anyway. Not in the other timed runs: intercept_stats counts every lock
    event by caller on that path (the CPU sampler put it at about 1% of FSDP2's step), which the
    default configuration does not pay."""
    return options.expect_clean or mode == "streamlife-selfprofile"


def free_port():
    """A TCP port free now on the loopback, for a directly started rank's rendezvous."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pinned(cmd, cpus):
    """The command on the CPU set, when one is given (--cpus: every mode on the same
    cores, so that a run landing on other cores (or migrating) does not move
    its time; the program's threads, the validator's and the driver's alike)."""
    return ["taskset", "-c", cpus] + cmd if cpus else cmd


def together_sets(text, modes):
    """--together's CPU sets, one per mode at least; raises ValueError with the reason."""
    sets = text.split("/")
    for cpus in sets:
        if not cpus or not all(part and all(x.isdigit() for x in part.split("-")) and part.count("-") <= 1
                               for part in cpus.split(",")):
            raise ValueError(f"'{cpus}' is not a CPU list (such as 2-5 or 2,3,8-9)")
    if len(sets) < len(modes):
        raise ValueError(f"{len(modes)} modes run together need as many CPU sets, got {len(sets)}")
    if "cs" in modes:
        raise ValueError("mode 'cs' (compute-sanitizer, whose time is not compared) cannot run together")
    return sets


def together_rounds(plan, modes, sets):
    """The plan as rounds of runs started together, [[(run, cpus), ...], ...]: a workload, allocator and
    repeat's modes in one round, mode i on set (i + repeat) mod len(sets), so that over the repeats each
    mode runs on each set alike."""
    rounds = {}
    for p in plan:
        rounds.setdefault((p[0], p[3], p[1]), []).append(p)
    return [[(p, sets[(modes.index(p[2]) + p[3]) % len(sets)]) for p in group] for group in rounds.values()]


def run(workload, mode, alloc, options, repeat=0, cpus=None):
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = WORKLOADS_DIR + os.pathsep + env.get("PYTHONPATH", "")
    if ALLOC[alloc]:
        env["PYTORCH_CUDA_ALLOC_CONF"] = ALLOC[alloc]
    else:
        env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    if mode == "csan":
        env["TORCH_CUDA_SANITIZER"] = "1"
    direct = options.no_launcher and options.nproc == 1 and WORKLOADS[workload][2]
    if direct:
        # What torchrun --standalone would give its one worker (command() leaves torchrun out).
        env.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", LOCAL_WORLD_SIZE="1",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    if validated(mode) and observing(mode, options):
        env["STREAMLIFE_OPTIONS"] = ":".join(x for x in [env.get("STREAMLIFE_OPTIONS", ""), "intercept_stats=1"] if x)
    samples = None
    if options.sampler:
        # The Python processes only (the launcher's and the workload's): the taskset and streamlife
        # processes exec or fork what they start and are not what is compared.
        samples = os.path.join(options.log_dir, f"{workload}.{alloc}.{mode}.{repeat}.samples")
        for stale in glob.glob(samples + ".*"):
            os.remove(stale)
        env["LD_PRELOAD"] = " ".join(x for x in [options.sampler, env.get("LD_PRELOAD", "")] if x)
        env["STREAMLIFE_SAMPLER_OUT"] = samples
        env["STREAMLIFE_SAMPLER_ONLY"] = os.path.basename(sys.executable)
    cpus = options.cpus if cpus is None else cpus
    cmd = pinned(command(workload, mode, options), cpus)
    start = time.time()
    for _ in range(3):  # a taken port, at most twice more
        try:
            proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=options.timeout)
            text, rc = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as e:
            text, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
        # free_port's port can be taken between its check and the rank's listen (it was, once in 31 runs
        # on an H200): the rank then fails before its first step, and a new port is tried.
        if not direct or rc == 0 or "EADDRINUSE" not in text:
            break
        print(f"torch_workloads: run {workload} {alloc} {mode} #{repeat}: port {env['MASTER_PORT']} taken, "
              "again with another", file=sys.stderr, flush=True)
        env["MASTER_PORT"] = str(free_port())
        start = time.time()
    wall = time.time() - start
    log = os.path.join(options.log_dir, f"{workload}.{alloc}.{mode}.{repeat}.log")
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + text)
    times = [float(t) for t in re.findall(r"ms/step: ([0-9.]+)", text)]
    typical = [float(t) for t in re.findall(r"median host step ms: ([0-9.]+)", text)]
    ok = "result: ok" in text and rc == 0
    loss = re.findall(r"^loss: ([-+0-9.eE]+|nan|inf)$", text, re.M)
    own, how = None, ""
    if mode == "streamlife-selfprofile":
        warmup, timed = steps_seen(cmd)
        if timed:
            own, how = estimate(text, warmup + timed), steps_said(warmup, timed)
    # Each run as it ends, on stderr: the table comes only once every run is done, and a caller's own
    # time limit that ends the script first (as one on a lent GPU machine did) would leave nothing.
    print(f"torch_workloads: run {workload} {alloc} {mode} #{repeat}: "
          f"{f'{max(times):.2f} ms/step' if times else 'no ms/step'}"
          f"{f' (median host step {max(typical):.2f})' if typical else ''}, findings {findings(mode, text)}, "
          f"rc {rc}, {wall:.0f} s{f', CPUs {cpus}' if options.together else ''}", file=sys.stderr, flush=True)
    # With several ranks, the slowest rank's figures: the step ends when the slowest rank's does.
    return {"ms": max(times) if times else None, "step": max(typical) if typical else None,
            "findings": findings(mode, text), "ok": ok, "rc": rc, "repeat": repeat,
            "wall": wall, "observed": observed(text) if validated(mode) and observing(mode, options) else "",
            "log": log,
            "loss": float(loss[-1]) if loss else None, "own": own, "own_how": how,
            "samples": sample_files(samples + ".[0-9]*") if samples else [],
            "windows": windows_in(text)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streamlife", required=True)
    parser.add_argument("--baseline", help="another streamlife binary (e.g. the build before a change): "
                        "mode 'baseline' runs it like 'streamlife', interleaved with the other modes")
    parser.add_argument("--streamlife-args", default="", help="extra `streamlife run` flags, space separated")
    parser.add_argument("--compute-sanitizer", default="/usr/local/cuda/bin/compute-sanitizer")
    parser.add_argument("--modes", default="plain,streamlife,csan,cs",
                        help="any of plain, streamlife, baseline (--baseline's build), "
                             "streamlife-nostack (--stack-depth 0), "
                             "streamlife-pyprofile (--python-frame-walker=0), csan, cs, "
                             "control (a second plain run: the method's own noise)")
    parser.add_argument("--alloc", default="async,native")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1, help="runs per mode, interleaved; rows give medians")
    parser.add_argument("--cs-steps", type=int, default=2)
    parser.add_argument("--nproc", type=int, default=1)
    parser.add_argument("--no-launcher", action="store_true",
                        help="with --nproc 1, start a distributed workload's one rank directly, with the "
                             "environment torchrun would give it: no launcher process, whose own start-up "
                             "(an import of torch) lengthens every run and so limits the runs a call fits")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--budget", type=float, default=0,
                        help="start no run after this many seconds (0: no limit), then print the table of "
                             "the runs made: a caller's own time limit would leave no table")
    parser.add_argument("--log-dir", default="torch_workloads_logs")
    parser.add_argument("--cpus", default="",
                        help="run every mode on these CPUs (taskset -c LIST), e.g. 2-9: steadier timings")
    parser.add_argument("--together", default="",
                        help="CPU sets separated by '/': a round's modes start at the same moment, one on each "
                             "set, and the costs are read from the rounds' pairs")
    parser.add_argument("--jobs", type=int, default=1,
                        help="runs at a time (evidence runs; ms/step is then not comparable)")
    parser.add_argument("--sampler", help="the CPU sampler library (libstreamlife_cpu_sampler.so): CPU time "
                        "of the timed steps by library and symbol, per mode")
    parser.add_argument("--sampler-top", type=int, default=30, help="symbols listed per sampled workload")
    parser.add_argument("--expect-clean", action="store_true",
                        help="also fail on findings and on a loss that changed under the validator")
    options = parser.parse_args()
    options.streamlife_args = options.streamlife_args.split()
    if options.sampler:
        options.sampler = os.path.abspath(options.sampler)
        if not os.path.isfile(options.sampler):
            parser.error(f"--sampler: no such file: {options.sampler}")
    if options.budget < 0:
        parser.error("--budget must be 0 or more seconds")
    if options.together:
        if options.cpus or options.jobs != 1:
            parser.error("--together gives each mode its CPUs and runs a round's modes at once: "
                         "no --cpus or --jobs with it")
        try:
            options.together = together_sets(options.together, options.modes.split(","))
        except ValueError as e:
            parser.error(f"--together: {e}")
    if "baseline" in options.modes.split(",") and not options.baseline:
        parser.error("mode 'baseline' needs --baseline PATH")
    for name in options.workloads.split(","):
        if name not in WORKLOADS:
            parser.error(f"unknown workload '{name}' (known: {', '.join(WORKLOADS)})")
    os.makedirs(options.log_dir, exist_ok=True)
    problems = 0
    profiles, costs, sampled, uncertain = [], [], [], []
    # "x plain" is the ratio of the medians; "paired" the median of each repeat's ratio to the plain run
    # of the same repeat (run just before it): on a host whose speed drifts within a call (plain runs
    # 13.7-20.4 ms/step in one call on an H200) the pairs cancel the drift the medians keep.
    # A self-profile run also gives the validator's own ms/step, timed inside the validator, and the
    # ratio it implies against this invocation's plain median (1 + own / plain): plain runs of one call
    # spread by 20-45% on the shared host, which hides a 10-20% change of the validator's cost from
    # the measured ratios but not from its own time.
    print("| workload | allocator | mode | ms/step | x plain | paired | own ms/step (self-profile) "
          "| x plain (self-profile's estimate) | findings | result | observed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    modes = options.modes.split(",")
    # Repeats interleave the modes and the allocators (plain, streamlife, ... of one allocator, then of
    # the next, then the next repeat), so that drift on the machine hits every mode alike and a
    # --budget that ends the runs early leaves every allocator as many; a row gives the median of its
    # repeats.
    plan = [(workload, alloc, mode, repeat)
            for workload in options.workloads.split(",") for repeat in range(options.repeat)
            for alloc in options.alloc.split(",") for mode in modes
            if not (mode == "cs" and repeat > 0)]  # compute-sanitizer is slow; its time is not compared
    deadline = time.time() + options.budget if options.budget else None

    def attempt(p):
        if deadline and time.time() > deadline:
            return None
        return run(p[0], p[2], p[1], options, p[3])

    if options.together:
        done = {}
        for group in together_rounds(plan, modes, options.together):
            if deadline and time.time() > deadline:
                break
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(group)) as pool:
                results = list(pool.map(lambda pc: run(pc[0][0], pc[0][2], pc[0][1], options, pc[0][3], pc[1]),
                                        group))
            done.update((p, r) for (p, _), r in zip(group, results))
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            done = {p: r for p, r in zip(plan, pool.map(attempt, plan)) if r is not None}
    if len(done) < len(plan):
        print(f"torch_workloads: --budget {options.budget:g} s: {len(plan) - len(done)} of {len(plan)} runs "
              "not started", file=sys.stderr, flush=True)
    for workload in options.workloads.split(","):
        for alloc in options.alloc.split(","):
            runs = {mode: [done[(workload, alloc, mode, r)] for r in range(options.repeat)
                           if (workload, alloc, mode, r) in done] for mode in modes}
            plain = median([r["ms"] for r in runs.get("plain", []) if r["ms"]])
            plain_loss = next((r["loss"] for r in runs.get("plain", []) if r["loss"] is not None), None)
            for mode in modes:
                rs = runs[mode]
                if not rs:  # --budget ran out before its first run
                    print(f"| {workload} | {alloc} | {mode} | - | - | - | - | - | - | not run (--budget) | |",
                          flush=True)
                    continue
                ms = median([r["ms"] for r in rs if r["ms"]])
                ratio = f"{ms / plain:.2f}" if ms and plain and mode != "cs" else "-"
                paired = paired_ratio(rs, runs.get("plain", [])) if mode not in ("cs", "plain") else None
                paired = f"{paired:.2f}" if paired else "-"
                own = median([r["own"]["own_ms_per_step"] for r in rs if r["own"]])
                implied = implied_ratio(own, plain)
                own_each = "/".join(f"{r['own']['own_ms_per_step']:.2f}" if r["own"] else "-" for r in rs)
                own_shown = f"{own:.2f}" + (f" ({own_each})" if len(rs) > 1 else "") if own is not None else "-"
                implied = f"{implied:.2f}" if implied is not None else "-"
                each = "/".join(f"{r['ms']:.2f}" if r["ms"] else "-" for r in rs)
                shown = f"{ms:.2f}" + (f" ({each})" if len(rs) > 1 else "") if ms else "-"
                failed = [r for r in rs if not r["ok"]]
                result = "ok" if not failed else f"FAILED (rc {failed[0]['rc']})"
                problems += len(failed)
                found = "/".join(sorted(set(r["findings"] for r in rs)))
                if options.expect_clean and validated(mode):
                    if workload != "seed-buggy" and any(r["findings"] != "0" for r in rs):
                        result += ", NOT CLEAN"
                        problems += 1
                    losses = [r["loss"] for r in rs if r["loss"] is not None]
                    if plain_loss is not None and losses:
                        changed = [l for l in losses if abs(l - plain_loss) > 0.01 * max(abs(plain_loss), 1e-6)]
                        result += f", loss {losses[-1]:.4g} vs plain {plain_loss:.4g}"
                        if changed:
                            result += " CHANGED"
                            problems += 1
                print(f"| {workload} | {alloc} | {mode} | {shown} | {ratio} | {paired} | {own_shown} | {implied} "
                      f"| {found} | {result} | "
                      f"{rs[-1]['observed']} |", flush=True)
                if mode not in ("cs", "plain"):
                    uncertain += cost_lines(f"{workload} ({alloc}) {mode}", runs.get("plain", []), rs,
                                            together=bool(options.together))
            for mode in modes:
                if mode == "streamlife-selfprofile" and runs[mode]:
                    profiles.append((workload, alloc, runs[mode][-1], plain))
            if options.sampler:
                # A run without its timed window (it failed before the steps ended) is left out.
                sampled.append((workload, alloc, [(mode, [(r["samples"], r["windows"]) for r in runs[mode]
                                                          if r["samples"] and r["windows"]]) for mode in modes]))
            # What --timeline adds to the validated run, side by side.
            untraced = median([r["ms"] for r in runs.get("streamlife", []) if r["ms"]])
            for mode in ("streamlife-timeline", "streamlife-timeline-order"):
                traced = median([r["ms"] for r in runs.get(mode, []) if r["ms"]])
                if untraced and traced:
                    costs.append(f"timeline cost: {workload} ({alloc}) {mode}: {traced:.2f} ms/step vs "
                                 f"{untraced:.2f} without --timeline: {traced / untraced:.2f}x "
                                 f"(target <= 1.2x: {'met' if traced / untraced <= 1.2 else 'MISSED'})")
    for line in uncertain + costs:
        print(line)
    # The CPU sampler's tables: CPU ms per timed step by library and symbol, each mode's median run.
    for workload, alloc, runs in sampled:
        runs = [(mode, repeats) for mode, repeats in runs if repeats]
        print(f"\nCPU samples of {workload} ({alloc}), timed steps only, medians of the repeats:")
        try:
            for line in compare(runs, options.steps, options.sampler_top):
                print("  " + line)
            # The validator's own library alone, deeper: where its time goes, interposers included.
            print("  the validator's library (libstreamlife_rt.so) alone:")
            for line in compare(runs, options.steps, options.sampler_top, only=cpu_samples.VALIDATOR_LIBRARY,
                                levels=(1,)):
                print("  " + line)
            # By thread: the validator's replay thread works beside the program's threads, so what a
            # step waits for is the validator's library on the program's own threads.
            print("  by thread (the replay thread is streamlife-rpl):")
            for line in compare(runs, options.steps, options.sampler_top, levels=(2,)):
                print("  " + line)
            for line in compare(runs, options.steps, options.sampler_top, only=cpu_samples.VALIDATOR_LIBRARY,
                                levels=(3,)):
                print("  " + line)
            for line in program_threads_lines(runs, options.steps):
                print("  " + line)
        except BadFile as e:
            print(f"  cpu_samples: error: {e}")
            problems += 1
    # The self-profile tables (each rank's, for distributed runs) after the main table.
    # Under each, the validator's own time by the rule of self_profile_table.py and its largest rows.
    for workload, alloc, last, plain in profiles:
        print(f"\nself-profile of {workload} ({alloc}), from {last['log']}:")
        with open(last["log"]) as f:
            for line in f:
                if line.startswith("streamlife: self-profile:"):
                    print("  " + line.rstrip())
        if last["own"]:
            for line in describe(last["own"], last["own_how"], plain):
                print("  " + line)
    return 1 if problems else 0


def program_threads_lines(runs, steps):
    """Each validated mode's CPU on the program's threads against plain's, run by run and as a ratio with
    its uncertainty, and the validator's library in them: a second reading of the cost, from CPU time
    rather than wall time (cpu_samples.program_threads_cpu says why they agree)."""
    per_step = 1.0 / steps if steps else 1.0
    readings = {mode: [program_threads_cpu(files, windows) for files, windows in repeats] for mode, repeats in runs}
    plain = [total * per_step for total, _ in readings.get("plain", [])]
    lines = [f"the program's threads (all but {cpu_samples.VALIDATOR_THREADS}-*), CPU ms/step of the timed steps, "
             "run by run:"]
    for mode, values in readings.items():
        totals = [total * per_step for total, _ in values]
        inside = [own * per_step for _, own in values]
        line = f"{mode}: " + "/".join(f"{t:.2f}" for t in totals)
        if mode != "plain" and any(inside):
            line += f" (in {cpu_samples.VALIDATOR_LIBRARY}: " + "/".join(f"{o:.2f}" for o in inside) + ")"
            if plain and totals:
                line += f"; {median(inside) / median(plain) * 100:.1f}% of plain's, " \
                        + shift.describe(plain, totals, 1.1, ratio=True)
        lines.append(line)
    return lines


def cost_lines(label, plain_runs, runs, together=False):
    """A mode's ratio to plain with the uncertainty its runs leave (shift.py), for below the table: from
    each run's mean step, and from its median host step, which a few stalled steps do not move (with the
    runs' values, which the table's row does not show). Runs made together (--together) are read as
    pairs, a round's run against the plain run of its round."""
    lines = []
    for key, reading in (("ms", ""), ("step", ", median host step")):
        if together:
            plain_of = {r["repeat"]: r[key] for r in plain_runs if r[key]}
            pairs = [(plain_of[r["repeat"]], r[key]) for r in runs if r[key] and r["repeat"] in plain_of]
            if pairs:
                lines.append(f"cost with its uncertainty{reading}, pairs run together: {label}: "
                             + "/".join(f"{v / p:.3f}" for p, v in pairs) + " x plain: "
                             + shift.judge_paired(pairs, 1.1, ratio=True)[0])
            continue
        plain = [r[key] for r in plain_runs if r[key]]
        validated = [r[key] for r in runs if r[key]]
        if not plain or not validated:
            continue
        values = ("/".join(f"{v:.2f}" for v in validated) + " against plain's "
                  + "/".join(f"{v:.2f}" for v in plain) + " ms: ") if key == "step" else ""
        lines.append(f"cost with its uncertainty{reading}: {label}: " + values
                     + shift.describe(plain, validated, 1.1, ratio=True))
    return lines


def paired_ratio(runs, plain_runs):
    """The median over repeats of a run's ms/step over the plain run of the same repeat; None
    without a complete pair."""
    pairs = [r["ms"] / p["ms"] for r, p in zip(runs, plain_runs) if r["ms"] and p["ms"]]
    return median(pairs)


if __name__ == "__main__":
    sys.exit(main())
