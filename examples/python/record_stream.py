"""CORRECT but unbounded: tell the caching allocator that the compute stream
used the weights (record_stream), then drop them. The allocator parks the
block until an event it recorded completes, so how many blocks a run uses
depends on how far the CPU runs ahead, not on the code.

Expected: `streamlife run` silent, `result: ok`, `blocks:` up to the number of
layers; `streamlife check` on C++ doing this in a loop warns
(streamlife-record-stream-in-loop)."""
from pipeline import run


def pipeline_body(p):
    weights = p.gather(1)
    for layer in range(1, p.options.layers + 1):
        p.forward(weights, layer)
        weights.record_stream(p.compute)
        del weights
        if layer < p.options.layers:
            weights = p.gather(layer + 1)


run(__doc__.splitlines()[0], pipeline_body)
