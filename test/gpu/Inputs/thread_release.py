#!/usr/bin/env python3
"""A worker thread drops the last reference of a tensor that its own stream
still reads, while the main thread keeps allocating on the tensor's stream.

Usage: thread_release.py buggy|correct [--seed N] [--layers N]

Main thread: allocates x on the default stream, hands it to a worker thread
(thread start), then allocates on the default stream at random moments
(random sleeps, sometimes a torch.cuda.synchronize()) until the worker is
done, and once more after joining it. Worker: reads x on its own stream after
a spin, then drops x.
  buggy    the default stream never waits for the worker's read: the caching
           allocator may hand x's block to one of the main thread's
           allocations while the read runs (cudaMallocAsync: the free itself
           is not ordered after the read);
  correct  the worker makes the default stream wait on an event recorded
           after its read, then drops x.
The verdict must not depend on where the main thread's allocations fall
(before, during or after the worker's release): --seed varies them.
Prints "result: ok" when the worker read what was written.
"""
import argparse
import random
import threading
import time

import torch

N = 1 << 20
SPIN = 20_000_000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("variant", choices=["buggy", "correct"])
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--layers", type=int, default=3)
    a = p.parse_args()
    rng = random.Random(a.seed)
    side = torch.cuda.Stream()
    sums = []
    ok = True
    for layer in range(a.layers):
        box = [torch.full((N,), float(layer + 1), device="cuda")]
        done = threading.Event()

        def worker():
            x = box.pop()
            with torch.cuda.stream(side):
                side.wait_stream(torch.cuda.default_stream())
                torch.cuda._sleep(SPIN)
                sums.append(x.sum())
                read = side.record_event()
            if a.variant == "correct":
                torch.cuda.default_stream().wait_event(read)
            del x  # the last reference: back to the default stream's pool
            done.set()

        t = threading.Thread(target=worker)
        t.start()
        scratch = []
        while not done.is_set():
            time.sleep(rng.uniform(0, 0.004))
            scratch.append(torch.full((N,), -1.0, device="cuda"))  # may get x's block
            if rng.random() < 0.2:
                torch.cuda.synchronize()
        t.join()
        scratch.append(torch.full((N,), -1.0, device="cuda"))
        del scratch
    torch.cuda.synchronize()
    for layer, s in enumerate(sums):
        ok &= float(s) == float(N * (layer + 1))
    print("result: ok" if ok else "result: corrupted")


if __name__ == "__main__":
    main()
