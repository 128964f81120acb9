"""CORRECT (serialized): record an event on the current stream after the
matmul, make the allocation stream `ag` wait on it, and only then drop the
weights. One block is reused, but each gather waits for the previous matmul.

Expected: `streamlife run` silent, `result: ok`, `blocks: 1`."""
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

        ag.wait_event(forward_done)          # wait first ...
        del weights                          # ... then release: the next gather gets
                                             # the same block, queued behind the wait


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
