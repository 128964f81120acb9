"""BUGGY: the stall pattern with the wait placed after the `del`. Between the
release and the wait, a hook allocates a scratch buffer on the allocation
stream `ag` and zeroes it: the caching allocator hands it the block just
dropped, and nothing orders that write after the matmul still reading it.
"Wait, then release" is the invariant; "release, then wait" breaks as soon as
anything allocates in between (a hook, another module, another library).

Expected: `streamlife run` reports an unsafe free at the `del` in every run;
the default size corrupts. Fixed twin: wait_before_del.py."""
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

        del weights                          # BUG: released before the wait
        scratch = metrics_hook(options, ag)  # gets the block, overwrites it
        ag.wait_event(forward_done)          # too late
        del scratch


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
