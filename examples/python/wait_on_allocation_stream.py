"""CORRECT: wait_on_wrong_stream.py with the wait issued on the allocation
stream `ag`, the only stream whose later allocations can get the block.

Expected: `streamlife run` silent, `result: ok`, `blocks: 1`.
Buggy twin: wait_on_wrong_stream.py."""
import torch

from common import run


def pipeline(options, trial):
    ag = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")

    for layer in range(1, options.layers + 1):
        with torch.cuda.stream(ag):          # gather this layer's weights on `ag`
            weights = torch.full((options.hidden, options.hidden), float(layer), device="cuda")
        trial.track(weights)
        compute.wait_stream(ag)              # the forward starts after its gather
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        forward_done = compute.record_event()

        ag.wait_event(forward_done)          # the allocation stream waits
        del weights


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
