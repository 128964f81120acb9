"""BUGGY: the event after the matmul is recorded, but the wait is issued on the
current stream (the consumer itself) instead of the allocation stream `ag`.
Waiting on its own event orders nothing; the next gather on `ag` is handed the
dropped block while the matmul may still read it.

Expected: `streamlife run` reports an unsafe free at the `del` in every run;
the default size corrupts. Fixed twin: wait_on_allocation_stream.py."""
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

        torch.cuda.current_stream().wait_event(forward_done)  # BUG: should be ag
        del weights


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
