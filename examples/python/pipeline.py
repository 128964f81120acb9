"""Shared pieces of the PyTorch example pipelines.

Each example script (buggy.py, stall_producer.py, keepalive.py,
record_stream.py) runs the same two-stream pipeline: a producer stream "ag"
materializes each layer's weights (as an all-gather would), the consumer
(the current stream) multiplies activations by them. The scripts differ only
in how a layer's weights are released; this module holds everything else.

Output: `blocks: K` (most distinct weight addresses in one trial) and a last
line `result: ok` or `result: corrupt (N/M trials, max_diff=X)`. Exit 0 either
way, 2 when no CUDA device is usable.
"""
import argparse
import sys

try:
    import torch
except ImportError:  # the CPU machines have no PyTorch
    print("error: PyTorch is not installed", file=sys.stderr)
    sys.exit(2)


def parse_options(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--hidden", type=int, default=4096,
                        help="weights are hidden x hidden floats (default 4096)")
    parser.add_argument("--batch", type=int, default=4096,
                        help="rows of the activations (default 4096)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--trials", type=int, default=20)
    options = parser.parse_args()
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        sys.exit(2)
    return options


class Pipeline:
    """Producer/consumer plumbing; the release policy is the caller's."""

    def __init__(self, options):
        self.options = options
        self.ag = torch.cuda.Stream()
        self.compute = torch.cuda.current_stream()
        self.x = torch.ones(options.batch, options.hidden, device="cuda")
        self.addresses = set()
        self.outputs = []

    def gather(self, layer):
        """Allocate and fill a layer's weights on the producer stream."""
        with torch.cuda.stream(self.ag):
            weights = torch.full((self.options.hidden, self.options.hidden),
                                 float(layer), device="cuda")
        self.addresses.add(weights.data_ptr())
        return weights

    def forward(self, weights, layer):
        """Enqueue the consumer's use of `weights` (after they are complete)."""
        self.compute.wait_stream(self.ag)
        self.outputs.append((self.x @ weights, layer))

    def max_diff(self):
        torch.cuda.synchronize()
        worst = 0.0
        for output, layer in self.outputs:
            expected = float(self.options.hidden) * layer
            worst = max(worst, (output - expected).abs().max().item())
        return worst


def run(description, pipeline_body):
    """Run `pipeline_body(pipeline)` for each trial and print the verdict."""
    options = parse_options(description)
    corrupted, worst, blocks = 0, 0.0, 0
    for trial in range(options.trials):
        pipeline = Pipeline(options)
        pipeline_body(pipeline)
        diff = pipeline.max_diff()
        blocks = max(blocks, len(pipeline.addresses))
        if diff > 1e-6:
            corrupted += 1
            worst = max(worst, diff)
            if corrupted <= 3:
                print(f"trial {trial}: corrupt max_diff={diff:.1f} (expected 0)")
    print(f"blocks: {blocks}")
    if corrupted:
        print(f"result: corrupt ({corrupted}/{options.trials} trials, max_diff={worst:.1f})")
    else:
        print("result: ok")
