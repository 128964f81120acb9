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

Usage: python_capture_cost.py N DEPTH
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
    if len(argv) != 3 or not argv[1].isdigit() or not argv[2].isdigit():
        print("usage: python_capture_cost.py N DEPTH", file=sys.stderr)
        return 2
    launches, depth = int(argv[1]), int(argv[2])
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
