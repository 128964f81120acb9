"""BUGGY: a buffer allocated on the current stream is filled from a side
stream that never waited on the current stream. The caching allocator hands
the allocation the block the previous layer dropped (correctly: on the
current stream, after its matmul in stream order), but the fill runs on
`side`, which is not ordered after that matmul: it overwrites weights the
matmul may still be reading.

Expected: `streamlife run` reports a reuse race at the fill in every run;
the default size corrupts. Fixed twin: side_stream_waits_current.py."""
import torch

from common import run


def pipeline(options, trial):
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    x = torch.ones(options.batch, options.hidden, device="cuda")

    for layer in range(1, options.layers + 1):
        weights = torch.empty(options.hidden, options.hidden, device="cuda")
        trial.track(weights)
        with torch.cuda.stream(side):
            weights.fill_(float(layer))      # BUG: `side` never waited on the current stream
        compute.wait_stream(side)
        out = x @ weights
        trial.expect(out, options.hidden * layer)
        del weights


if __name__ == "__main__":
    run(__doc__.splitlines()[0], pipeline)
