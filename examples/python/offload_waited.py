"""CORRECT: offload_released_early.py with the wait before the release: the
current stream (the activation's allocation stream) waits on an event recorded
on `offload` after the copy, then the activation is dropped.

Expected: `streamlife run` silent, `result: ok`.
Buggy twin: offload_released_early.py."""
import torch

from common import run


def pipeline(options, trial):
    offload = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")
    weights = torch.ones(options.hidden, options.hidden, device="cuda")

    for layer in range(1, options.layers + 1):
        activation = (x * float(layer)) @ weights
        trial.track(activation)
        host = torch.empty(activation.shape, pin_memory=True)
        with torch.cuda.stream(offload):
            offload.wait_stream(compute)
            host.copy_(activation, non_blocking=True)
            copy_done = offload.record_event()
        trial.expect(host, options.hidden * layer)

        compute.wait_event(copy_done)                    # wait first ...
        del activation                                   # ... then release


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
