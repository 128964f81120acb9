"""The validator's call-site capture cost for a Python program, without a GPU.

Launches one kernel N times through the fake CUPTI of test/unit/runtime/fakecuda
(ctypes, which releases the GIL around each call, as PyTorch does), DEPTH Python
frames deep, and prints the host ns per launch. Under
`streamlife run --self-profile` the table's `call-site capture` row is the
capture's own ns per call (the frame walker's read of the Python stack and the
op's interning):

  F=build/test/fakecuda
  LD_LIBRARY_PATH=$F STREAMLIFE_CUPTI_LIBRARY=$F/libcupti.so \
    build/bin/streamlife run --self-profile -- \
    python3 bench/runtime/cpu/python_capture_cost.py 50000 20

With BLOCKS, each launch also reports BLOCKS block lifetimes through the
annotation entry points of <streamlife/annotations.h> (allocated, release
requested, released), from two Python lines, as PyTorch's trace tracker does
from inside an op's call: the `allocator block events` row is then what one
block event costs the program's thread, its Python call-site capture included.
For instruction counts run it under callgrind at two N and take the difference
of `__streamlife_block_allocated`'s inclusive count (and the others').

With --sites S, the launches come from S distinct Python functions in turn
(one call site each, DEPTH frames below): a training step's few hundred
distinct call sites a thread, which the thread's memory of call sites must
hold (PythonCallSites.h's RawStackMemory; BLOCKS and CALLERS are then ignored).

Usage: python_capture_cost.py [--sites S] N DEPTH [BLOCKS [CALLERS]]
"""
import ctypes
import os
import sys
import time

P, U = ctypes.c_void_p, ctypes.c_uint
CU_STREAM_CREATE, CU_LAUNCH_KERNEL = 124, 307
STREAM = 0x5000


class StreamCreateParams(ctypes.Structure):
    _fields_ = [("phStream", ctypes.POINTER(P)), ("Flags", U)]


class LaunchParams(ctypes.Structure):
    _fields_ = [("f", P), ("gx", U), ("gy", U), ("gz", U), ("bx", U), ("by", U), ("bz", U),
                ("shared", U), ("hStream", P), ("kernelParams", P), ("extra", P)]


def main(argv):
    sites = 0
    if argv[1:2] == ["--sites"] and argv[2:3] and argv[2].isdigit() and int(argv[2]) > 0:
        sites, argv = int(argv[2]), argv[:1] + argv[3:]
    if len(argv) not in (3, 4, 5) or not all(a.isdigit() for a in argv[1:]) or argv[4:] not in ([], ["1"], ["2"]):
        print("usage: python_capture_cost.py [--sites S] N DEPTH [BLOCKS [CALLERS]]", file=sys.stderr)
        return 2
    launches, depth = int(argv[1]), int(argv[2])
    blocks, callers = int(argv[3]) if len(argv) >= 4 else 0, int(argv[4]) if len(argv) == 5 else 1
    fake = ctypes.CDLL(os.environ["STREAMLIFE_CUPTI_LIBRARY"])
    fake.fakeCuptiCall.argtypes = [U, ctypes.c_char_p, P, ctypes.c_int, ctypes.c_char_p]
    call = fake.fakeCuptiCall
    handle = P(STREAM)
    call(CU_STREAM_CREATE, b"cuStreamCreate",
         ctypes.byref(StreamCreateParams(ctypes.pointer(handle), 1)), 0, None)
    # Built once: the loop pays the ctypes call and the validator, not Python's
    # construction of the parameters.
    args = [ctypes.c_uint64(0x7f0000000000), ctypes.c_uint64(0x7f1000000000), ctypes.c_int(1024)]
    words = (P * 3)(*[ctypes.cast(ctypes.pointer(a), P) for a in args])
    launch = ctypes.byref(LaunchParams(0x1000, 1, 1, 1, 32, 1, 1, 0, STREAM,
                                       ctypes.cast(words, P), None))

    def loop(n):
        for _ in range(n):
            call(CU_LAUNCH_KERNEL, b"cuLaunchKernel", launch, 0, b"_Z7consumePKfPfi")

    if blocks:
        # The validator's exports, preloaded into this process.
        rt = ctypes.CDLL(None)
        rt.__streamlife_register_allocator.restype = ctypes.c_int
        rt.__streamlife_register_allocator.argtypes = [ctypes.c_char_p, ctypes.c_int]
        for f in (rt.__streamlife_block_allocated,):
            f.argtypes = [ctypes.c_int, P, ctypes.c_size_t, P]
        for f in (rt.__streamlife_block_release_requested, rt.__streamlife_block_released):
            f.argtypes = [ctypes.c_int, P, P]
        allocator = rt.__streamlife_register_allocator(b"bench caching allocator", 1)  # same stream
        allocated, requested = rt.__streamlife_block_allocated, rt.__streamlife_block_release_requested
        released = rt.__streamlife_block_released
        addresses = [0x7e0000000000 + i * 0x1000 for i in range(64)]

        def loop(n):  # noqa: F811: the block-event variant of the loop above
            next_block = 0
            for _ in range(n):
                call(CU_LAUNCH_KERNEL, b"cuLaunchKernel", launch, 0, b"_Z7consumePKfPfi")
                for _ in range(blocks):
                    block = addresses[next_block % 64]
                    next_block += 1
                    allocated(allocator, block, 0x1000, STREAM)
                    requested(allocator, block, STREAM)
                    released(allocator, block, STREAM)

    if blocks and callers == 2:
        # CALLERS 2: each lifetime's three events come from one helper that two
        # lines call in turn, so that consecutive events of a kind come from
        # stacks that part at the helper's caller: a capture's expectation of
        # the stack it captured last fails every time (PythonCallSites.h).
        def lifetime(block):
            allocated(allocator, block, 0x1000, STREAM)
            requested(allocator, block, STREAM)
            released(allocator, block, STREAM)

        def loop(n):  # noqa: F811: two callers of one helper, in turn
            next_block = 0
            for _ in range(n):
                call(CU_LAUNCH_KERNEL, b"cuLaunchKernel", launch, 0, b"_Z7consumePKfPfi")
                for _ in range(blocks // 2):
                    lifetime(addresses[next_block % 64])
                    lifetime(addresses[(next_block + 1) % 64])
                    next_block += 2

    if sites:
        # S functions of their own (their own code objects), each launching from its one line.
        source = "".join(f"def site{j}():\n    call(K, b'cuLaunchKernel', launch, 0, b'_Z7consumePKfPfi')\n"
                         for j in range(sites))
        namespace = {"call": call, "launch": launch, "K": CU_LAUNCH_KERNEL}
        exec(compile(source, "python_capture_cost_sites.py", "exec"), namespace)
        functions = [namespace[f"site{j}"] for j in range(sites)]

        def loop(n):  # noqa: F811: the many-sites variant
            for i in range(n):
                functions[i % sites]()

    def nest(d, n):
        return loop(n) if d == 0 else nest(d - 1, n)

    nest(depth, 1000)  # warm-up: the first captures intern the site
    start = time.perf_counter()
    nest(depth, launches)
    elapsed = time.perf_counter() - start
    print("ns_per_launch=%.0f" % (elapsed / max(launches, 1) * 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
