# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A host synchronization covers a later allocation's block: nothing can
# still use it. A function streamlife cannot see, called in between, may run
# work on the current stream and release its temporaries there, so the
# block may be one of those and the synchronization no longer covers it.
# Functions of Python's standard library that run none of the program's
# code (a timer, a path, a log line) run no such work when handed no
# tensor. (Found on held-out code: a benchmark that reads
# `time.perf_counter()` between `torch.cuda.synchronize()` and the
# allocation it times.)
import gc
import logging
import os
import time
from time import perf_counter

import torch
from kernels import prepare


def timed_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    start = time.perf_counter()
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
    stream.synchronize()
    return time.perf_counter() - start


def timed_fill_imported(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    start = perf_counter()
    path = os.path.join(os.environ.get("OUT", "."), "fill.log")
    logging.info("filling %d floats into %s", 4096, path)
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
    stream.synchronize()
    return perf_counter() - start


# Handed a tensor, a log call may format it: device work on the current
# stream, with temporaries released there.
def logged_fill(n, prev):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    logging.info("previous %s", prev)
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()


# A collection drops unreachable tensors, which go back to the pool.
def collected_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    gc.collect()
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()


# Another library's function may launch work of its own.
def prepared_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    prepare()
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()
