# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# Functions of local modules the file imports (`from pipeline_helpers import
# gather`, `import pipeline_helpers as ph`) are followed through summaries.
import torch
import pipeline_helpers as ph
from pipeline_helpers import consume, gather, hand_off


def imported_helpers_no_wait():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = gather(side, 64)
    compute.wait_stream(side)
    total = consume(buf)
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-5]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:13: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:13: note: record an event on 'compute' after this use and make 'side' wait on it before the release


def imported_helpers_hand_off():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = gather(side, 64)
    compute.wait_stream(side)
    total = consume(buf)
    hand_off(compute, side)
    del buf


def module_attribute_call():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = ph.gather(side, 64)
    compute.wait_stream(side)
    total = ph.consume(buf)
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-5]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:13: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:13: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# A function of an unknown module is neither a use nor an ordering.
def unknown_module(other):
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = gather(side, 64)
    compute.wait_stream(side)
    other.synchronize_everything()
    total = consume(buf)
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-6]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:13: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:13: note: record an event on 'compute' after this use and make 'side' wait on it before the release
