"""CORRECT: reduce_scatter_no_wait.py the way FSDP2 does it: keep the last
(gradients, event recorded on `rs` after the reduction) in flight; before it
is dropped, the allocation stream (the current stream) waits on its event.
One buffer stays in flight, so the reduction of layer L overlaps the
gradients of layer L-1.

Expected: `streamlife run` silent, `result: ok`, `blocks: 2`.
Buggy twin: reduce_scatter_no_wait.py."""
import torch

from common import run

WORLD = 4


def pipeline(options, trial):
    rs = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")
    pending = None  # (gradients, event after their reduction)

    for layer in reversed(range(1, options.layers + 1)):
        grads = x.t() @ (x * float(layer))
        trial.track(grads)
        if pending is not None:
            old_grads, reduce_done = pending
            compute.wait_event(reduce_done)              # wait first ...
            del old_grads, pending                       # ... then release
            pending = None
        with torch.cuda.stream(rs):
            rs.wait_stream(compute)
            torch.cuda._sleep(options.hidden * options.hidden // 8)  # the collective's latency
            shard = grads.view(WORLD, -1).sum(dim=0)
            reduce_done = rs.record_event()
        trial.expect(shard, WORLD * options.batch * layer)

        pending = (grads, reduce_done)
        del grads

    old_grads, reduce_done = pending
    compute.wait_event(reduce_done)
    del old_grads, pending


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
