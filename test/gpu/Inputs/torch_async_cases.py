#!/usr/bin/env python3
"""Free-before-wait PyTorch programs and their correct twins, for the parity
test with compute-sanitizer under PyTorch's stream-ordered allocator
(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, where dropping the last
reference of a tensor is a cudaFreeAsync on the stream it was allocated on).

Usage: torch_async_cases.py CASE-bug | CASE-ok | --list

In every case a tensor is read on a stream other than its allocation stream
after a spin (torch.cuda._sleep), so the read runs well after the free
executed when nothing orders them; the -bug case drops the tensor without
ordering that, the -ok twin orders it. Right after the drop, the stream it was
released on allocates tensors of the same size until the pool hands it the
freed block (its address; at most a few tries) and fills that one
(`clobber`), so a read that was not ordered before the free reads the clobber.
Prints "case NAME: done" and "result: ok", or "result: corrupted" when the
reader saw the clobber: the ground truth of the race, without any tool (or
"result: not reused" when the pool never handed the block out again: no
ground truth in that run).
"""
import sys
import threading

import torch

N = 1 << 20
SPIN = 20_000_000  # cycles, ~10 ms


def streams(count):
    return [torch.cuda.Stream() for _ in range(count)]


KEEP = []  # clobbers, alive until the check
REUSED = []


def clobber(stream, shape, freed):
    """Allocations on the release stream, of the freed tensor's size, until one
    gets the freed address; that one is overwritten."""
    with torch.cuda.stream(stream):
        for _ in range(8):
            t = torch.empty(shape, device="cuda")
            KEEP.append(t)
            if t.data_ptr() == freed:
                t.fill_(-7.0)
                REUSED.append(True)
                return


def produced_on(stream):
    with torch.cuda.stream(stream):
        return torch.full((N,), 1.0, device="cuda")


def read_late(stream, tensor):
    """The consumer's use on `stream`, after a spin."""
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SPIN)
        return tensor * 2


def keepalive_dropped(ok):
    ag, compute = streams(2)
    w = produced_on(ag)
    compute.wait_stream(ag)
    out = read_late(compute, w)
    if ok:
        ag.wait_stream(compute)
    shape, freed = w.shape, w.data_ptr()
    del w
    clobber(ag, shape, freed)
    return [(out, 2.0)]


def wait_after_del(ok):
    ag, compute = streams(2)
    w = produced_on(ag)
    compute.wait_stream(ag)
    out = read_late(compute, w)
    done = compute.record_event()
    if ok:
        ag.wait_event(done)
    shape, freed = w.shape, w.data_ptr()
    del w
    clobber(ag, shape, freed)
    if not ok:
        ag.wait_event(done)  # one line too late
    return [(out, 2.0)]


def stale_event(ok):
    ag, compute = streams(2)
    w = produced_on(ag)
    compute.wait_stream(ag)
    early = compute.record_event()
    out = read_late(compute, w)
    ag.wait_event(compute.record_event() if ok else early)
    shape, freed = w.shape, w.data_ptr()
    del w
    clobber(ag, shape, freed)
    return [(out, 2.0)]


def wrong_stream_wait(ok):
    ag, compute = streams(2)
    w = produced_on(ag)
    compute.wait_stream(ag)
    out = read_late(compute, w)
    (ag if ok else torch.cuda.current_stream()).wait_stream(compute)
    shape, freed = w.shape, w.data_ptr()
    del w
    clobber(ag, shape, freed)
    return [(out, 2.0)]


def two_consumers(ok):
    ag, first, second = streams(3)
    w = produced_on(ag)
    first.wait_stream(ag)
    second.wait_stream(ag)
    a = read_late(first, w)
    b = read_late(second, w)
    ag.wait_stream(first)
    if ok:
        ag.wait_stream(second)
    shape, freed = w.shape, w.data_ptr()
    del w
    clobber(ag, shape, freed)
    return [(a, 2.0), (b, 2.0)]


def side_stream_result(ok):
    (side,) = streams(1)
    side.wait_stream(torch.cuda.current_stream())
    y = produced_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = read_late(torch.cuda.current_stream(), y)
    if ok:
        y.record_stream(torch.cuda.current_stream())
    shape, freed = y.shape, y.data_ptr()
    del y
    clobber(side, shape, freed)
    return [(out, 2.0)]


def offload_d2h(ok):
    (copy,) = streams(1)
    g = torch.full((N,), 3.0, device="cuda")
    host = torch.empty((N,), pin_memory=True)
    copy.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(copy):
        torch.cuda._sleep(SPIN)
        host.copy_(g, non_blocking=True)
    if ok:
        torch.cuda.current_stream().wait_stream(copy)
    shape, freed = g.shape, g.data_ptr()
    del g
    clobber(torch.cuda.current_stream(), shape, freed)
    return [(host, 3.0)]


def worker_thread_release(ok):
    (side,) = streams(1)
    box = [torch.full((N,), 1.0, device="cuda")]
    out = []

    def worker():
        with torch.cuda.stream(side):
            side.wait_stream(torch.cuda.default_stream())
            torch.cuda._sleep(SPIN)
            out.append(box[0] * 2)
        if ok:
            torch.cuda.default_stream().wait_stream(side)
        shape, freed = box[0].shape, box[0].data_ptr()
        box.pop()  # the last reference, dropped on the worker
        clobber(torch.cuda.default_stream(), shape, freed)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    return [(out[0], 2.0)]


def prefetched_batch(ok):
    (loader,) = streams(1)
    pinned = torch.full((N,), 2.0).pin_memory()
    with torch.cuda.stream(loader):
        batch = pinned.to("cuda", non_blocking=True)
    torch.cuda.current_stream().wait_stream(loader)
    out = read_late(torch.cuda.current_stream(), batch)
    if ok:
        batch.record_stream(torch.cuda.current_stream())
    shape, freed = batch.shape, batch.data_ptr()
    del batch
    clobber(loader, shape, freed)
    return [(out, 4.0)]


def cublas_consumer(ok):
    ag, compute = streams(2)
    with torch.cuda.stream(ag):
        w = torch.full((1024, 1024), 0.5, device="cuda")
    x = torch.full((1024, 1024), 1.0, device="cuda")
    compute.wait_stream(ag)
    compute.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(compute):
        torch.cuda._sleep(SPIN)
        out = torch.mm(x, w)  # cuBLAS reads w
    if ok:
        ag.wait_stream(compute)
    shape, freed = w.shape, w.data_ptr()
    del w
    clobber(ag, shape, freed)
    # x, allocated on the current stream, is released when this returns.
    torch.cuda.current_stream().wait_stream(compute)
    return [(out, 512.0)]


CASES = {
    "keepalive-dropped": keepalive_dropped,
    "wait-after-del": wait_after_del,
    "stale-event": stale_event,
    "wrong-stream-wait": wrong_stream_wait,
    "two-consumers": two_consumers,
    "side-stream-result": side_stream_result,
    "offload-d2h": offload_d2h,
    "worker-thread-release": worker_thread_release,
    "prefetched-batch": prefetched_batch,
    "cublas-consumer": cublas_consumer,
}


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: torch_async_cases.py CASE-bug|CASE-ok|--list")
    name = argv[1]
    if name == "--list":
        for case in CASES:
            print("%s-bug\n%s-ok" % (case, case))
        return
    base, _, kind = name.rpartition("-")
    if kind not in ("bug", "ok") or base not in CASES:
        sys.exit("torch_async_cases.py: unknown case %r (--list lists them)" % name)
    checks = CASES[base](kind == "ok")
    torch.cuda.synchronize()
    ok = all(bool((t == expected).all()) for t, expected in checks)
    del checks
    KEEP.clear()
    print("case %s: done" % name)
    print("result: ok" if ok else "result: corrupted" if REUSED else "result: not reused")


if __name__ == "__main__":
    main(sys.argv)
