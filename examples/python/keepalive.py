"""CORRECT (overlapped): keep the previous layer's weights and the event after
their matmul for one more layer; before the next gather, make `ag` wait on the
event and only then drop them. Two blocks alternate.

Expected: `streamlife run` silent, `result: ok`, `blocks: 2`."""
from pipeline import run


def pipeline_body(p):
    keepalive, keepalive_done = None, None
    weights = p.gather(1)
    for layer in range(1, p.options.layers + 1):
        if keepalive is not None:
            p.ag.wait_event(keepalive_done)  # wait first ...
            keepalive = None                 # ... then release
        p.forward(weights, layer)
        keepalive, keepalive_done = weights, p.compute.record_event()
        weights = None
        if layer < p.options.layers:
            weights = p.gather(layer + 1)   # a different block: overlaps
    if keepalive is not None:
        p.ag.wait_event(keepalive_done)
        keepalive = None


run(__doc__.splitlines()[0], pipeline_body)
