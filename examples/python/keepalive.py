"""CORRECT (overlapped): keep the previous layer's weights and the event
recorded after their matmul for one more layer; before the next release, make
`ag` wait on that event and only then drop the reference. Two blocks
alternate, and the gather of layer L+1 overlaps the matmul of layer L.

Expected: `streamlife run` silent, `result: ok`, `blocks: 2`."""
import torch

from common import run


def pipeline(options, trial):
    ag = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")
    keepalive, keepalive_done = None, None

    for layer in range(1, options.layers + 1):
        with torch.cuda.stream(ag):          # gather this layer's weights on `ag`
            weights = torch.full((options.hidden, options.hidden), float(layer), device="cuda")
        trial.track(weights)
        compute.wait_stream(ag)              # the forward starts after its gather
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        forward_done = compute.record_event()

        if keepalive is not None:
            ag.wait_event(keepalive_done)    # wait first ...
            del keepalive                    # ... then release the previous layer's
        keepalive, keepalive_done = weights, forward_done
        del weights                          # keepalive holds it: the next gather
                                             # gets the other block and overlaps

    ag.wait_event(keepalive_done)
    del keepalive


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
