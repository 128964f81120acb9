"""CORRECT: wait_after_del.py with the wait where it belongs: `ag` waits on the
event recorded after the matmul before the weights are dropped, so the hook's
scratch buffer (which gets the same block) is written only after the matmul.

Expected: `streamlife run` silent, `result: ok`, `blocks: 1`.
Buggy twin: wait_after_del.py."""
import torch

from common import run


def metrics_hook(options, ag):
    """Stands for any code that allocates on `ag` (a profiler, a comm hook)."""
    with torch.cuda.stream(ag):
        scratch = torch.zeros(options.hidden * options.hidden, device="cuda")
    return scratch


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

        ag.wait_event(forward_done)          # wait first ...
        del weights                          # ... then release
        scratch = metrics_hook(options, ag)  # ordered after the matmul
        del scratch


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
