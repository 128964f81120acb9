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

    with torch.cuda.stream(ag):
        weights = torch.full((options.hidden, options.hidden), 1.0, device="cuda")
    trial.track(weights)
    for layer in range(1, options.layers + 1):
        if keepalive is not None:
            ag.wait_event(keepalive_done)    # wait first ...
            keepalive = None                 # ... then release

        compute.wait_stream(ag)
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        keepalive, keepalive_done = weights, compute.record_event()

        if layer < options.layers:
            with torch.cuda.stream(ag):      # a different block: keepalive holds ours
                weights = torch.full((options.hidden, options.hidden), float(layer + 1),
                                     device="cuda")
            trial.track(weights)

    ag.wait_event(keepalive_done)
    del keepalive, weights


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
