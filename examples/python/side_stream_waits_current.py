"""CORRECT: side_stream_fresh_block.py with `side` made to wait on the current
stream (the allocation stream of the fresh block) before writing it, so the
fill is ordered after the previous layer's matmul on the reused block.

Expected: `streamlife run` silent, `result: ok`, `blocks: 1`.
Buggy twin: side_stream_fresh_block.py."""
import torch

from common import run


def pipeline(options, trial):
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")

    for layer in range(1, options.layers + 1):
        weights = torch.empty(options.hidden, options.hidden, device="cuda")
        trial.track(weights)
        with torch.cuda.stream(side):
            side.wait_stream(compute)        # the fresh block's earlier users are done
            weights.fill_(float(layer))
        compute.wait_stream(side)
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        del weights


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
