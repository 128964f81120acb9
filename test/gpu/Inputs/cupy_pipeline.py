#!/usr/bin/env python3
"""The seed's pipeline written with CuPy, whose default memory pool is a
caching allocator like PyTorch's: a freed block goes back to the free list of
the stream it was allocated on and the next allocation on that stream gets it.

Usage: cupy_pipeline.py buggy|correct|dlpack [--layers N] [--size N]

  buggy    each layer's weights are allocated and filled on stream `ag`, read
           on `compute` (which waits for ag), and freed with no wait: the next
           layer's weights (on ag) may get the block and be written while the
           read runs;
  correct  ag waits on an event recorded on compute after the read, then frees
           (wait before free);
  dlpack   CuPy and PyTorch share buffers through DLPack both ways, on their
           own streams, with the waits the protocol asks for: clean.
Prints "result: ok" when every layer read what was written (the buggy one may
print "result: corrupted" at the default size).
"""
import argparse

import cupy as cp


def pipeline(variant, layers, size):
    ag = cp.cuda.Stream(non_blocking=True)
    compute = cp.cuda.Stream(non_blocking=True)
    x = cp.ones((size,), dtype=cp.float32)  # on the null stream
    compute.wait_event(cp.cuda.Stream.null.record())
    outs = []
    for layer in range(layers):
        with ag:
            w = cp.full((size,), float(layer + 1), dtype=cp.float32)
            filled = ag.record()
        compute.wait_event(filled)
        with compute:
            partial = (x * w).sum()
            used = compute.record()
        if variant == "correct":
            ag.wait_event(used)
        del w  # back to ag's free list
        outs.append((float(layer + 1) * size, partial))
    cp.cuda.Device().synchronize()
    return all(float(p) == expected for expected, p in outs)


def dlpack(layers, size):
    import torch

    ok = True
    side = cp.cuda.Stream(non_blocking=True)
    for layer in range(layers):
        # CuPy -> PyTorch: PyTorch's consumer stream waits through the protocol.
        with side:
            a = cp.full((size,), float(layer + 1), dtype=cp.float32)
            t = torch.from_dlpack(a)
            total = (t * 2).sum()
            side.synchronize()
        del a
        ok &= float(total) == 2.0 * (layer + 1) * size
        del t
        # PyTorch -> CuPy.
        u = torch.full((size,), float(layer + 2), device="cuda")
        b = cp.from_dlpack(u)
        s = float(b.sum())
        ok &= s == float(layer + 2) * size
        del b, u
    torch.cuda.synchronize()
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("variant", choices=["buggy", "correct", "dlpack"])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--size", type=int, default=1 << 22)
    a = p.parse_args()
    if a.variant == "dlpack":
        ok = dlpack(a.layers, a.size)
    else:
        ok = pipeline(a.variant, a.layers, a.size)
    print("result: ok" if ok else "result: corrupted")


if __name__ == "__main__":
    main()
