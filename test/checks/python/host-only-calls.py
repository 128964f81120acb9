# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A host synchronization covers a later allocation's block: nothing can
# still use it. A function streamlife cannot see, called in between, may run
# work on the current stream and release its temporaries there, so the
# block may be one of those and the synchronization no longer covers it.
# Functions of Python's standard library that run none of the program's
# code (a timer, a path, a log line) run no such work when handed no
# tensor, and nor do the objects they make (a module's logger). (Found on
# held-out code: a benchmark that reads `time.perf_counter()` between
# `torch.cuda.synchronize()` and the allocation it times.)
import gc
import logging
import os
import time
from time import perf_counter

import torch
from kernels import prepare

# Objects the module makes once: a logger from the standard library's
# logging, a tracer from another library, and a name made twice.
logger = logging.getLogger(__name__)
tracer = prepare()
sink = logging.getLogger("sink")
if os.environ.get("TRACE"):
    sink = prepare()
stats = logging.getLogger("stats")


def reset_stats():
    global stats
    stats = prepare()


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


# The module's logger: its calls run none of the program's code either.
def module_logger_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    logger.info("filling %d floats", 4096)
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
    stream.synchronize()


# Handed what may be a tensor, the module's logger may format it.
def module_logger_formats(n, prev):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    logger.info("previous %s", prev)
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()


# Another library's object may launch work of its own.
def traced_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    tracer.step()
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()


# A module-level name made twice may hold either object.
def sunk_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    sink.info("filling")
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()


# A local of the logger's name is another object.
def local_logger_fill(n, make_logger):
    logger = make_logger()
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    logger.info("filling")
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()


# A function may rebind the module's name through `global`.
def stats_fill(n):
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    stats.info("filling")
    mem = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        mem.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'mem' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    stream.synchronize()
