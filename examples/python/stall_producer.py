"""CORRECT (serialized): record an event on the consumer after the matmul,
make the allocation stream `ag` wait on it, and only then drop the weights.
One block is reused, but each gather waits for the previous matmul.

Expected: `streamlife run` silent, `result: ok`, `blocks: 1`."""
from pipeline import run


def pipeline_body(p):
    weights = p.gather(1)
    for layer in range(1, p.options.layers + 1):
        p.forward(weights, layer)
        forward_done = p.compute.record_event()
        p.ag.wait_event(forward_done)  # wait first ...
        del weights                    # ... then release
        if layer < p.options.layers:
            weights = p.gather(layer + 1)


run(__doc__.splitlines()[0], pipeline_body)
