"""BUGGY: each layer's weights are materialized on the producer stream `ag`
(as an all-gather would) and multiplied on the current stream; the host drops
them right after the matmul is enqueued. The block was allocated on `ag`, so
the caching allocator hands it to the next gather on `ag` at once, while the
matmul may still be reading it.

Expected: `streamlife run` reports an unsafe free at the `del` in every run (at
any size); at the default size the GPU corrupts the outputs.
Fixes: stall_producer.py, keepalive.py, record_stream.py."""
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

        del weights                          # BUG: the matmul still reads it;
                                             # the next gather on `ag` gets the block


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
