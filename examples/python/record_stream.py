"""CORRECT but unbounded: tell the caching allocator that the current stream
used the weights (record_stream), then drop them. The allocator parks the
block until an event it recorded on that stream completes, so how many blocks
a run holds depends on how far the CPU runs ahead, not on the code.

Expected: `streamlife run` silent, `result: ok`, `blocks:` up to the number of
layers; the validator's summary shows the bytes held back by record_stream."""
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

        weights.record_stream(compute)       # the allocator waits for this use
        del weights


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
