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
