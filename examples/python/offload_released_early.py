"""BUGGY: activation offloading. Each layer's activation is produced on the
current stream; a D2H stream `offload` waits for it and copies it to pinned
host memory; the host drops the activation right away. It was allocated on the
current stream, which never waited for the copy, so the next layer's
activation gets the block and overwrites it while the copy still reads it: the
host receives the wrong layer. The wait after the loop comes too late.

Expected: `streamlife run` reports an unsafe free at the `del` in every run;
the default size corrupts the host copies. Fixed twin: offload_waited.py."""
import torch

from common import run


def pipeline(options, trial):
    offload = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")
    weights = torch.ones(options.hidden, options.hidden, device="cuda")

    for layer in range(1, options.layers + 1):
        activation = (x * float(layer)) @ weights       # made on the current stream
        trial.track(activation)
        host = torch.empty(activation.shape, pin_memory=True)
        with torch.cuda.stream(offload):
            offload.wait_stream(compute)                 # the copy starts after it is made
            host.copy_(activation, non_blocking=True)
        trial.expect(host, options.hidden * layer)

        del activation                                   # BUG: the copy still reads it

    compute.wait_stream(offload)                         # too late


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
