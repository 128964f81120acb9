# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-missing-consumer-event
#
# The allocation stream waits on a consumer event recorded before the
# consumer's last use of the buffer, then the buffer is released.
import torch


def stale_event(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        a = buf * 2
        done = compute.record_event()
        b = buf + 1
    side.wait_event(done)
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: stream 'side' waits on event 'done' recorded on 'compute' before its last use of 'buf'
    # CHECK-NOTES: :[[@LINE-4]]:16: note: event 'done' recorded here
    # CHECK-NOTES: :[[@LINE-4]]:13: note: last use on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:13: note: record the event on 'compute' after this use, then make 'side' wait on it
    # CHECK-NOTES: :[[@LINE+1]]:5: note: 'buf' released on stream 'side' here while stream 'compute' may still use it
    del buf


def fresh_event(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        a = buf * 2
        b = buf + 1
        done = compute.record_event()
    side.wait_event(done)
    del buf


# The wait is for another buffer (the previous layer's); this one is kept and
# waited on later: not a finding.
def wait_meant_for_another_buffer(side, compute, layers):
    keep, keep_done = None, None
    for layer in range(layers):
        with torch.cuda.stream(side):
            buf = torch.empty(64, device="cuda")
        compute.wait_stream(side)
        out = buf * 2
        done = compute.record_event()
        if keep is not None:
            side.wait_event(keep_done)
            del keep
        keep, keep_done = buf, done
        del buf
    if keep is not None:
        side.wait_event(keep_done)
        del keep
