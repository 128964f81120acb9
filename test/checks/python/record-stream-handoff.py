# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# record_stream is correct: the block is not reused before the recorded
# stream's work completes, so the release after it does not race.
import torch


def record_stream_then_del(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    buf.record_stream(compute)
    del buf


# Recording another stream than the consumer does not help.
def record_stream_wrong_stream(side, compute, other):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    buf.record_stream(other)
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-7]]:15: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-5]]:15: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-6]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# The allocator records the stream's work when the block is released, so a
# use on that stream after record_stream is covered too (a hand-off made
# before the consumer runs).
def record_stream_before_the_use(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    buf.record_stream(compute)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf


# ... on that stream only: a later use on another stream still races.
def record_stream_before_a_use_elsewhere(side, compute, other):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    other.wait_stream(side)
    buf.record_stream(compute)
    with torch.cuda.stream(other):
        out = buf * 2
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'other' may still use it


# ... and on every path: recorded on one branch only, the use still races.
def record_stream_on_one_path(side, compute, handoff):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    if handoff:
        buf.record_stream(compute)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it


# A helper's record_stream on the caller's tensor covers the caller's later
# uses on that stream.
def hand_to(t, stream):
    t.record_stream(stream)


def record_stream_in_a_helper(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    hand_to(buf, compute)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf
