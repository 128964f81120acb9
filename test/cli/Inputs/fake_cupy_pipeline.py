"""The seed's pipeline written against CuPy's memory pool (the stand-in in
fake-packages/cupy), its device calls played through the fake CUPTI as in
fake_cuda_python.py: the validator must learn the pool's blocks through
CuPy's memory hooks (sitecustomize's CuPy feed).

Usage: fake_cupy_pipeline.py SCENARIO
  buggy     x read on stream B, freed with no wait; the next allocation on A
  correct   A waits on B's read before the free
  thread    the read and the free on a worker thread, the main thread allocates
  no-cupy   the same device calls without importing cupy (nothing to feed)
"""
import ctypes
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake-packages"))
import fake_cuda_python as fcp  # noqa: E402

SEGMENT = 0x7f0000000000


def device_malloc(ptr, size):
    out = ctypes.c_uint64(ptr)
    fields = [("dptr", ctypes.POINTER(ctypes.c_uint64)), ("bytesize", ctypes.c_size_t)]
    fcp.fake.fakeCuptiCall(243, b"cuMemAlloc_v2",
                           ctypes.byref(type("p", (ctypes.Structure,), {"_fields_": fields})(
                               ctypes.pointer(out), size)), 0, None)


def pipeline(pool, stream, wait):
    with stream.using(fcp.STREAM_A):
        x = pool.malloc(1024)                # allocation on A
    fcp.order(fcp.STREAM_B, fcp.STREAM_A)
    fcp.consume(x.ptr, fcp.STREAM_B)         # the consumer's read on B
    if wait:
        fcp.order(fcp.STREAM_A, fcp.STREAM_B)
    del x                                    # back to A's free list
    with stream.using(fcp.STREAM_A):
        y = pool.malloc(1024)                # A's next allocation: the same block
    return y


def main(scenario):
    fcp.create_stream(fcp.STREAM_A)
    fcp.create_stream(fcp.STREAM_B)
    if scenario == "no-cupy":
        device_malloc(SEGMENT, 4096)
        fcp.consume(SEGMENT, fcp.STREAM_B)
        print("ran")
        return
    import cupy
    cupy.cuda.memory.device_malloc = device_malloc
    pool = cupy.cuda.memory.MemoryPool(SEGMENT)
    stream = cupy.cuda.stream
    if scenario in ("buggy", "correct"):
        keep = pipeline(pool, stream, wait=scenario == "correct")
        del keep
    elif scenario == "thread":
        with stream.using(fcp.STREAM_A):
            x = [pool.malloc(1024)]
        fcp.order(fcp.STREAM_B, fcp.STREAM_A)

        def worker():
            fcp.consume(x[0].ptr, fcp.STREAM_B)
            x.pop()                          # the worker drops the block

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        with stream.using(fcp.STREAM_A):
            y = pool.malloc(1024)            # the main thread's next allocation on A
        del y
    else:
        sys.exit("unknown scenario " + scenario)
    print("ran")


main(sys.argv[1])
