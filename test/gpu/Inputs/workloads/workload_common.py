"""Shared plumbing of the PyTorch workloads the runtime validator must stay
silent on (issue 9): argument parsing, a small transformer, timing.

Every workload prints `ms/step: X` (mean over the timed steps, after warm-up,
measured around a device synchronize) and ends with `result: ok`. Exit 2 when
PyTorch or a CUDA device is missing.
"""
import argparse
import os
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("error: PyTorch is not installed", file=sys.stderr)
    sys.exit(2)


def parse(description, **defaults):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=defaults.get("steps", 20))
    parser.add_argument("--warmup", type=int, default=defaults.get("warmup", 3))
    parser.add_argument("--d-model", type=int, default=defaults.get("d_model", 512))
    parser.add_argument("--layers", type=int, default=defaults.get("layers", 4))
    parser.add_argument("--batch", type=int, default=defaults.get("batch", 8))
    parser.add_argument("--seq", type=int, default=defaults.get("seq", 128))
    parser.add_argument("--foreach", choices=["on", "off"], default="on",
                        help="AdamW(foreach=...) (default on)")
    if defaults.get("record_grad_streams"):
        parser.add_argument("--record-grad-streams", action="store_true",
                            help="record the optimizer's stream on every gradient before zero_grad "
                                 "(FSDP2's fix for allocators that free eagerly, pytorch/pytorch#193686)")
    options = parser.parse_args()
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        sys.exit(2)
    return options


def transformer(options):
    layers = [torch.nn.TransformerEncoderLayer(options.d_model, nhead=8, dim_feedforward=4 * options.d_model,
                                               batch_first=True, dropout=0.0)
              for _ in range(options.layers)]
    return torch.nn.Sequential(*layers).cuda()


def batch(options, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(options.batch, options.seq, options.d_model, device="cuda", generator=g)


def timed_loop(options, step):
    """Runs step(i) warmup + steps times; prints the mean time of the timed steps and the median of the
    host's step times.

    The mean is what a run costs; the median says what a typical step costs. They part where a few
    steps stall (a garbage collection, a page fault storm, the host preempted): the mean takes the
    stall, the median does not. A host step is the time between two step(i) returns, no device
    synchronize between: the host runs ahead of the GPU until a queue fills, so in a loop as long as
    ours the host's steps settle at the pace of the slower of host and GPU."""
    for i in range(options.warmup):
        step(i)
    torch.cuda.synchronize()
    start, window_start = time.perf_counter(), time.monotonic_ns()
    ends = []
    for i in range(options.steps):
        step(options.warmup + i)
        ends.append(time.perf_counter())
    torch.cuda.synchronize()
    elapsed, window_end = (time.perf_counter() - start) / max(options.steps, 1), time.monotonic_ns()
    rank = int(os.environ.get("RANK", "0"))
    print(f"rank {rank} ms/step: {elapsed * 1000:.2f}", flush=True)
    if ends:
        typical = statistics.median(b - a for a, b in zip([start] + ends, ends))
        print(f"rank {rank} median host step ms: {typical * 1000:.2f}", flush=True)
    if os.environ.get("STREAMLIFE_SAMPLER_OUT"):
        # For bench/runtime/cpu_samples.py: which of the CPU sampler's samples fall in the timed steps.
        print(f"rank {rank} timed window (monotonic ns): {window_start} {window_end}", flush=True)


def report_loss(values):
    """`loss: X`, the last step's loss: the same with and without the validator
    (up to the GPU's nondeterminism), compared by bench/runtime/torch_workloads.py."""
    print(f"loss: {float(values[-1]):.4g}", flush=True)


def finish(ok=True, why=""):
    print("result: ok" if ok else f"result: wrong ({why})", flush=True)
