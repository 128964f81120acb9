"""BUGGY: each layer's weights are dropped right after the consumer's matmul is
enqueued. They were allocated on the producer stream `ag`, so the caching
allocator hands the block to the next gather on `ag` at once, while the
matmul on the compute stream may still be reading it.

Expected: `streamlife run` reports an unsafe free; large sizes corrupt."""
from pipeline import run


def pipeline_body(p):
    weights = p.gather(1)
    for layer in range(1, p.options.layers + 1):
        p.forward(weights, layer)
        del weights  # BUG: the matmul on the compute stream still reads it
        if layer < p.options.layers:
            weights = p.gather(layer + 1)


run(__doc__.splitlines()[0], pipeline_body)
