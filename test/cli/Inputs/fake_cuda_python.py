"""A Python program that plays a CUDA program's driver calls through the fake
CUPTI (test/unit/runtime/fakecuda), so that the validator's Python call sites
(callsites/PythonStacks.h, installed by `streamlife run`'s sitecustomize) are
tested without a GPU or PyTorch. ctypes releases the GIL around each call, as
PyTorch does around its kernel launches.

Usage: fake_cuda_python.py SCENARIO
  (unsafe-free, two-lines, one-line, thread, generator, deep, own-profiler)
"""
import ctypes
import os
import sys
import threading

CBID = {"cuEventRecord": 119, "cuStreamCreate": 124, "cuStreamWaitEvent": 295,
        "cuLaunchKernel": 307, "cuMemAllocAsync": 598, "cuMemFreeAsync": 600}
STREAM_A, STREAM_B = 0x5000, 0x6000
KERNEL = 0x1000  # three parameters in the fake driver
OUTPUT = 0x7f1000000000

fake = ctypes.CDLL(os.environ["STREAMLIFE_CUPTI_LIBRARY"])
fake.fakeCuptiCall.argtypes = [ctypes.c_uint, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int,
                               ctypes.c_char_p]
P = ctypes.c_void_p
U = ctypes.c_uint


def call(name, fields, values, symbol=None):
    """The arguments of fakeCuptiCall for one driver call. Each helper below
    calls fakeCuptiCall itself, so that its line is the innermost frame."""
    Params = type(name + "_params", (ctypes.Structure,), {"_fields_": fields})
    params = Params(*values)
    return (CBID[name], name.encode(), ctypes.byref(params), 0,
            symbol.encode() if symbol else None)


def create_stream(handle):
    out = P(handle)
    fake.fakeCuptiCall(*call("cuStreamCreate", [("phStream", ctypes.POINTER(P)), ("Flags", U)],
         [ctypes.pointer(out), 1]))


def alloc(ptr, stream):
    out = ctypes.c_uint64(ptr)
    fields = [("dptr", ctypes.POINTER(ctypes.c_uint64)), ("bytesize", ctypes.c_size_t),
              ("hStream", P)]
    fake.fakeCuptiCall(*call("cuMemAllocAsync", fields, [ctypes.pointer(out), 4096, stream]))


def free(ptr, stream):
    fake.fakeCuptiCall(*call("cuMemFreeAsync", [("dptr", ctypes.c_uint64), ("hStream", P)],
                             [ptr, stream]))


def order(waiter, producer):
    fake.fakeCuptiCall(*call("cuEventRecord", [("hEvent", P), ("hStream", P)], [0x7100, producer]))
    fake.fakeCuptiCall(*call("cuStreamWaitEvent", [("hStream", P), ("hEvent", P), ("Flags", U)],
                             [waiter, 0x7100, 0]))


def consume(ptr, stream, variant=0):
    args = [ctypes.c_uint64(ptr), ctypes.c_uint64(OUTPUT), ctypes.c_int(1024)]
    arr = (P * 3)(*[ctypes.cast(ctypes.pointer(a), P) for a in args])
    fields = [("f", P), ("gx", U), ("gy", U), ("gz", U), ("bx", U), ("by", U), ("bz", U),
              ("shared", U), ("hStream", P), ("kernelParams", P), ("extra", P)]
    launch = call("cuLaunchKernel", fields, [KERNEL, 1, 1, 1, 32, 1, 1, 0, stream,
                                             ctypes.cast(arr, P), None], "_Z7consumePKfPfi")
    # Two Python lines reaching the same native launch are two call sites.
    if variant == 0:
        fake.fakeCuptiCall(*launch)
    else:
        fake.fakeCuptiCall(*launch)


def pipeline(ptr):
    alloc(ptr, STREAM_A)
    order(STREAM_B, STREAM_A)
    consume(ptr, STREAM_B)   # the consumer's use
    free(ptr, STREAM_A)      # BUG: no wait on the consumer
    alloc(0x7f4000000000, STREAM_A)  # the pool could hand it the freed block


def batches(ptr):
    alloc(ptr, STREAM_A)
    order(STREAM_B, STREAM_A)
    consume(ptr, STREAM_B)   # the consumer's use, in a generator's frame
    yield ptr


def generator_pipeline(ptr):
    for p in batches(ptr):
        free(p, STREAM_A)    # BUG: no wait on the consumer
        alloc(0x7f4000000000, STREAM_A)


def nest(depth, ptr):
    if depth == 0:
        pipeline(ptr)
    else:
        nest(depth - 1, ptr)


def main(scenario):
    create_stream(STREAM_A)
    create_stream(STREAM_B)
    if scenario == "unsafe-free":
        pipeline(0x7f0000000000)
    elif scenario == "two-lines":
        for i in range(3):
            alloc(0x7f0000000000 + i * 0x10000, STREAM_A)
            order(STREAM_B, STREAM_A)
            consume(0x7f0000000000 + i * 0x10000, STREAM_B, variant=i % 2)
            free(0x7f0000000000 + i * 0x10000, STREAM_A)
    elif scenario == "one-line":
        for i in range(3):
            pipeline(0x7f0000000000 + i * 0x10000)
    elif scenario == "generator":
        generator_pipeline(0x7f0000000000)
    elif scenario == "deep":  # more frames than a call site keeps (32)
        nest(40, 0x7f0000000000)
    elif scenario == "own-profiler":  # the program installs its own profile function
        sys.setprofile(lambda frame, event, arg: None)
        pipeline(0x7f0000000000)
        sys.setprofile(None)
    elif scenario == "thread":
        worker = threading.Thread(target=pipeline, args=(0x7f0000000000,))
        worker.start()
        worker.join()
    else:
        print("fake_cuda_python: unknown scenario", scenario, file=sys.stderr)
        return 2
    print("ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
