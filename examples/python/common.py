"""Scaffolding shared by the PyTorch example pipelines: options, the trial loop
and the verdict. The stream logic (allocation streams, waits, releases) is in
each example file, in plain sight, so that `streamlife check` and a reader
see the whole pattern.

Every example prints a config line, up to three `trial N: corrupt ...` lines,
`blocks: K` (the most distinct addresses of the tracked buffers in one trial)
and last `result: ok` or `result: corrupt (N/M trials, max_diff=X)`.
Exit status: 0 when the run completed (whatever the verdict), 2 when PyTorch
or a CUDA device is missing, 3 on a bad command line.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:  # the CPU machines have no PyTorch
    print("error: PyTorch is not installed", file=sys.stderr)
    sys.exit(2)


class Options(argparse.ArgumentParser):
    """argparse with exit status 3 on a bad command line (like the CUDA examples)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        sys.exit(3)


def parse_options(description, depth=False):
    parser = Options(description=description)
    parser.add_argument("--hidden", type=int, default=4096,
                        help="buffers are hidden x hidden floats (default 4096: 64 MiB)")
    parser.add_argument("--batch", type=int, default=4096,
                        help="rows multiplied by each weight matrix: how long a "
                             "consumer reads (default 4096)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--trials", type=int, default=20)
    if depth:
        parser.add_argument("--depth", type=int, default=3,
                            help="buffers kept in flight (default 3)")
    options = parser.parse_args()
    for name in ("hidden", "batch", "layers", "trials") + (("depth",) if depth else ()):
        if getattr(options, name) <= 0:
            parser.error(f"--{name} must be positive")
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        sys.exit(2)
    return options


class Trial:
    """What one run of a pipeline produced, checked after a device sync."""

    def __init__(self, options):
        self.options = options
        self.expected = []
        self.addresses = set()

    def track(self, tensor):
        """Count the block behind `tensor` (for the `blocks:` line)."""
        self.addresses.add(tensor.data_ptr())

    def expect(self, tensor, value):
        """`tensor` must hold `value` in every element once the device is idle."""
        self.expected.append((tensor, float(value)))

    def max_diff(self):
        torch.cuda.synchronize()
        worst = 0.0
        for tensor, value in self.expected:
            worst = max(worst, (tensor.float() - value).abs().max().item())
        return worst


def run(description, pipeline, depth=False):
    """Runs `pipeline(options, trial)` --trials times and prints the verdict."""
    options = parse_options(description, depth)
    extra = f" depth={options.depth}" if depth else ""
    print(f"config: hidden={options.hidden} batch={options.batch} "
          f"layers={options.layers} trials={options.trials}{extra}")
    corrupted, worst, blocks = 0, 0.0, 0
    times = []
    for number in range(options.trials):
        trial = Trial(options)
        start = time.perf_counter()
        pipeline(options, trial)
        diff = trial.max_diff()  # synchronizes: the trial's GPU work is done
        times.append((time.perf_counter() - start) * 1000.0)
        blocks = max(blocks, len(trial.addresses))
        if diff > 1e-6:
            corrupted += 1
            worst = max(worst, diff)
            if corrupted <= 3:
                print(f"trial {number}: corrupt max_diff={diff:.1f} (expected 0)")
    print(f"blocks: {blocks}")
    # The first trial pays for cuBLAS's and the allocator's warm-up.
    steady = sorted(times[1:] or times)
    print(f"ms/step: {steady[len(steady) // 2]:.2f} (median trial)")
    if corrupted:
        print(f"result: corrupt ({corrupted}/{options.trials} trials, max_diff={worst:.1f})")
    else:
        print("result: ok")
