"""A stand-in for CuPy's memory pool and memory hooks, for testing the
validator's CuPy feed (runtime-validator/python/sitecustomize.py) without a
GPU. Only what the feed relies on is modelled, with CuPy's names and
semantics: memory hooks kept per thread (cupy.cuda.memory_hook), a pool with
one free list per stream that hands a freed block to the next allocation on
the same stream (cupy.cuda.memory), and the current stream per thread
(cupy.cuda.stream). Device calls go through the fake CUPTI (fake_cuda_python.py's
`call`), set by the test program."""
from . import cuda  # noqa: F401
