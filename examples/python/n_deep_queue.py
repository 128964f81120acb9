"""CORRECT (bounded): up to --depth layers' weights stay in flight in a FIFO
of (weights, event recorded after their matmul). When the queue is full, `ag`
waits on the oldest entry's event and only then is the oldest dropped. The
memory bound is a number chosen in the code: depth + 1 blocks.

Expected: `streamlife run` silent, `result: ok`, `blocks: min(layers, depth + 1)`.
Buggy twin: n_deep_queue_no_wait.py."""
import collections

import torch

from common import run


def pipeline(options, trial):
    ag = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")
    in_flight = collections.deque()

    for layer in range(1, options.layers + 1):
        if len(in_flight) == options.depth:
            oldest, oldest_done = in_flight.popleft()
            ag.wait_event(oldest_done)       # wait first ...
            del oldest                       # ... then release

        with torch.cuda.stream(ag):
            weights = torch.full((options.hidden, options.hidden), float(layer), device="cuda")
        trial.track(weights)
        compute.wait_stream(ag)
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        in_flight.append((weights, compute.record_event()))
        del weights                          # the queue owns it now

    while in_flight:
        oldest, oldest_done = in_flight.popleft()
        ag.wait_event(oldest_done)
        del oldest


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline, depth=True)
