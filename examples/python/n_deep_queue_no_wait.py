"""BUGGY: the N-deep queue of n_deep_queue.py, but the oldest entry is dropped
when the queue is full without making `ag` wait on its event. Deeper queues
make the race rarer on the GPU (the oldest matmul has usually finished), not
correct: nothing orders the next gather on `ag` after it.

Expected: `streamlife run` reports an unsafe free at the `popleft()` release
in every run, whatever --depth; small depths corrupt at the default size.
Fixed twin: n_deep_queue.py."""
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
            in_flight.popleft()              # BUG: released with no wait on its event

        with torch.cuda.stream(ag):
            weights = torch.full((options.hidden, options.hidden), float(layer), device="cuda")
        trial.track(weights)
        compute.wait_stream(ag)
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        in_flight.append((weights, compute.record_event()))
        del weights

    while in_flight:
        oldest, oldest_done = in_flight.popleft()
        ag.wait_event(oldest_done)
        del oldest


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline, depth=True)
