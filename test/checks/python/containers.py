# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=,STRICT -wait-before-free %s streamlife-free-before-wait
#
# Lists and deques of in-flight tensors: an entry lives until it is popped;
# popping the oldest entry and dropping it is its release, on the tensor's
# allocation stream, so that stream must wait on the entry's event first.
import collections

import torch


def gather(side, layer):
    with torch.cuda.stream(side):
        return torch.full((256,), float(layer), device="cuda")


# The N-deep queue done right: wait on the oldest entry's event, then drop it.
def wait_then_pop(side, depth, layers):
    compute = torch.cuda.current_stream()
    in_flight = collections.deque()
    for layer in range(layers):
        if len(in_flight) == depth:
            oldest, oldest_done = in_flight.popleft()
            side.wait_event(oldest_done)
            del oldest
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        in_flight.append((w, compute.record_event()))
        del w
    while in_flight:
        oldest, oldest_done = in_flight.popleft()
        side.wait_event(oldest_done)
        del oldest


# The bare pop releases the oldest tensor with no wait on its event.
def pop_without_wait(side, depth, layers):
    compute = torch.cuda.current_stream()
    in_flight = collections.deque()
    for layer in range(layers):
        if len(in_flight) == depth:
            in_flight.popleft()
            # CHECK-NOTES: :[[@LINE-1]]:13: warning: 'in_flight.popleft()' is released on stream 'side' while stream 'compute' may still use it
            # CHECK-NOTES: :[[@LINE+2]]:13: note: 'w' allocated on stream 'side' here
            # CHECK-NOTES: :[[@LINE+3]]:15: note: used on stream 'compute' here
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        # CHECK-NOTES: :[[@LINE-1]]:15: note: the use happens in an earlier loop iteration than the release
        # CHECK-NOTES: :[[@LINE-2]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release
        in_flight.append((w, compute.record_event()))
        del w


# Pop first, wait after: the release already happened at `del oldest`. The
# wait still comes before the next gather allocates on 'side', so only "wait
# before free" (--wait-before-free) reports it.
def pop_then_wait(side, depth, layers):
    compute = torch.cuda.current_stream()
    in_flight = []
    for layer in range(layers):
        if len(in_flight) == depth:
            oldest, oldest_done = in_flight.pop(0)
            del oldest
            # CHECK-MESSAGES-STRICT: :[[@LINE-1]]:13: warning: 'oldest' is released on stream 'side' while stream 'compute' may still use it
            side.wait_event(oldest_done)
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        in_flight.append((w, compute.record_event()))
        del w


# A list of tensors alone (no events), synchronised as a whole: clean.
def list_then_synchronize(side, layers):
    compute = torch.cuda.current_stream()
    kept = []
    for layer in range(layers):
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        kept.append(w)
    torch.cuda.synchronize()
    kept.clear()


# The same list cleared before the synchronize: every entry is released
# while 'compute' may still read it. Nothing allocates on 'side' before the
# host waits, so only "wait before free" (--wait-before-free) reports it.
def list_cleared_early(side, layers):
    compute = torch.cuda.current_stream()
    kept = []
    for layer in range(layers):
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        kept.append(w)
    kept.clear()
    # CHECK-MESSAGES-STRICT: :[[@LINE-1]]:5: warning: 'kept[*]' is released on stream 'side' while stream 'compute' may still use it
    torch.cuda.synchronize()


# pop() takes the newest entry (a stack): waited for, then dropped: clean.
def pop_newest(side, layers):
    compute = torch.cuda.current_stream()
    stack = []
    for layer in range(layers):
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        stack.append((w, compute.record_event()))
    newest, newest_done = stack.pop()
    side.wait_event(newest_done)
    del newest, w


# A container handed to unknown code: its entries may be popped there.
def handed_to_unknown(side, layers, drain):
    compute = torch.cuda.current_stream()
    in_flight = collections.deque()
    for layer in range(layers):
        w = gather(side, layer)
        compute.wait_stream(side)
        out = w * 2
        in_flight.append(w)
        del w
    drain(in_flight)
    in_flight.clear()


# `append` of something that is not a local list or deque: not a container
# (the stored tensor escapes, as before).
def append_to_parameter(side, outputs):
    compute = torch.cuda.current_stream()
    w = gather(side, 0)
    compute.wait_stream(side)
    out = w * 2
    outputs.append(w)
    del w
