"""BUGGY: the reduce-scatter direction of a hand-off (FSDP's backward). Each
layer's gradients are made on the current stream (their allocation stream) and
reduced on a side stream `rs`; the host drops them with no wait. The next
layer's gradients are handed the block on the current stream and overwrite it
while the reduction may still read it.

Expected: `streamlife run` reports an unsafe free at the `del` in every run;
the default size corrupts the reduced shards.
Fixed twin: reduce_scatter_keepalive.py."""
import torch

from common import run

WORLD = 4  # shards the simulated reduce-scatter sums


def pipeline(options, trial):
    rs = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")

    for layer in reversed(range(1, options.layers + 1)):
        grads = x.t() @ (x * float(layer))               # made on the current stream
        trial.track(grads)
        with torch.cuda.stream(rs):
            rs.wait_stream(compute)                      # reduce after they are made
            torch.cuda._sleep(options.hidden * options.hidden // 8)  # the collective's latency
            shard = grads.view(WORLD, -1).sum(dim=0)     # reads every element
        trial.expect(shard, WORLD * options.batch * layer)

        del grads                                        # BUG: the reduction still reads them


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
