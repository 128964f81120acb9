# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# Streams: torch.cuda.Stream() (and torch.Stream()), the current and default
# stream, `with torch.cuda.stream(s):`, torch.cuda.set_stream, and the
# torch.accelerator spellings. Each function is one scenario.
import torch


# The buffer is allocated on the side stream inside the `with` block, read by
# the current stream after it, and released without a wait before the side
# stream allocates again. (Were that allocation not there, no one could be
# handed the block: the stream is this function's own,
# deferred-release-private-stream.py.)
def with_block_no_wait():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    with torch.cuda.stream(side):
        buf = torch.empty(1024, device="cuda")
    compute.wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-5]]:15: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:11: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE+3]]:15: note: the released block is in the pool of 'side', and this allocation there may be handed it while the use runs
    # CHECK-NOTES: :[[@LINE-6]]:11: note: record an event on 'compute' after this use and make 'side' wait on it before the release
    with torch.cuda.stream(side):
        nxt = torch.empty(1024, device="cuda")


# The same, with the consumer event recorded and waited on by the allocation
# stream before the release: clean.
def with_block_wait_first():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    with torch.cuda.stream(side):
        buf = torch.empty(1024, device="cuda")
    compute.wait_stream(side)
    out = buf * 2
    done = compute.record_event()
    side.wait_event(done)
    del buf


# default_stream() is the stream code runs on when it selects none.
def default_stream_consumer():
    side = torch.cuda.Stream()
    default = torch.cuda.default_stream()
    with torch.cuda.stream(side):
        buf = torch.zeros(16, device="cuda")
    default.wait_stream(side)
    out = buf + 1
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'default' may still use it
    # CHECK-NOTES: :[[@LINE-5]]:15: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:11: note: used on stream 'default' here
    # CHECK-NOTES: :[[@LINE+3]]:15: note: the released block is in the pool of 'side', and this allocation there may be handed it while the use runs
    # CHECK-NOTES: :[[@LINE-6]]:11: note: record an event on 'default' after this use and make 'side' wait on it before the release
    with torch.cuda.stream(side):
        nxt = torch.zeros(16, device="cuda")


# Outside the `with` block the current stream is the caller's again: a buffer
# allocated there and used in the block on the same stream is fine.
def allocated_outside_used_inside():
    side = torch.cuda.Stream()
    buf = torch.empty(8, device="cuda")
    with torch.cuda.stream(side):
        side.wait_stream(torch.cuda.current_stream())
    out = buf * 2
    del buf


# torch.cuda.set_stream makes the stream current from there on.
def set_stream():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    torch.cuda.set_stream(side)
    buf = torch.empty(8, device="cuda")
    torch.cuda.set_stream(compute)
    compute.wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-6]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:11: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:11: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# Device-generic spellings: torch.Stream, torch.accelerator.
def accelerator_spellings():
    side = torch.Stream()
    compute = torch.accelerator.current_stream()
    with torch.cuda.stream(side):
        buf = torch.empty(8, device="cuda")
    compute.wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-5]]:15: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:11: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE+3]]:15: note: the released block is in the pool of 'side', and this allocation there may be handed it while the use runs
    # CHECK-NOTES: :[[@LINE-6]]:11: note: record an event on 'compute' after this use and make 'side' wait on it before the release
    with torch.cuda.stream(side):
        nxt = torch.empty(8, device="cuda")


# A stream held in an attribute.
class Prefetcher:
    def __init__(self):
        self.side = torch.cuda.Stream()

    def fetch(self):
        with torch.cuda.stream(self.side):
            buf = torch.empty(8, device="cuda")
        torch.cuda.current_stream().wait_stream(self.side)
        out = buf * 2
        del buf
        # CHECK-NOTES: :[[@LINE-1]]:9: warning: 'buf' is released on stream 'self.side' while the current stream may still use it
        # CHECK-NOTES: :[[@LINE-5]]:19: note: 'buf' allocated on stream 'self.side' here
        # CHECK-NOTES: :[[@LINE-4]]:15: note: used on the current stream here
        # CHECK-NOTES: :[[@LINE-5]]:15: note: record an event on the current stream after this use and make 'self.side' wait on it before the release
