# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# Release is reference counting: `del`, rebinding, `= None`, leaving the
# function, clearing an attribute; a block is released when its last name
# goes, on its allocation stream. `keepalive = prev` keeps it alive.
import typing

import torch


def gather(side):
    with torch.cuda.stream(side):
        return torch.empty(256, device="cuda")


# Rebinding drops the old buffer (after the new one is allocated).
def rebinding(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    buf = gather(side)
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-6]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:15: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# `= None` drops it.
def assign_none(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    buf = None
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-6]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-4]]:15: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# Leaving the function drops the locals.
def leaving_the_function(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
        # CHECK-NOTES: :[[@LINE-1]]:1: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
        # CHECK-NOTES: :[[@LINE-5]]:11: note: 'buf' allocated on stream 'side' here
        # CHECK-NOTES: :[[@LINE-3]]:15: note: used on stream 'compute' here
        # CHECK-NOTES: :[[@LINE-4]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# A returned buffer is not released.
def returned(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    return buf


# A second name keeps the block alive: dropping one name releases nothing.
def keepalive_holds(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    keep = buf
    del buf
    done = compute.record_event()
    side.wait_event(done)
    del keep


# The last name going is the release.
def keepalive_released_without_wait(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    keep = buf
    del buf
    del keep
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'keep' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-8]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-6]]:15: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-7]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# A view is another name of the base's block.
def view_keeps_block(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    rows = buf.view(16, 16)
    with torch.cuda.stream(compute):
        out = rows.sum()
    del buf
    del rows
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'rows' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-8]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-5]]:15: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-6]]:15: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# Clearing an attribute drops what it held.
class Holder:
    def __init__(self):
        self.side = torch.cuda.Stream()
        self.compute = torch.cuda.current_stream()
        self.buf = None

    def step(self):
        with torch.cuda.stream(self.side):
            self.buf = torch.empty(256, device="cuda")
        self.compute.wait_stream(self.side)
        out = self.buf * 2
        self.buf = None
        # CHECK-NOTES: :[[@LINE-1]]:9: warning: 'self.buf' is released on stream 'self.side' while stream 'self.compute' may still use it
        # CHECK-NOTES: :[[@LINE-5]]:24: note: 'self.buf' allocated on stream 'self.side' here
        # CHECK-NOTES: :[[@LINE-4]]:15: note: used on stream 'self.compute' here
        # CHECK-NOTES: :[[@LINE-5]]:15: note: record an event on 'self.compute' after this use and make 'self.side' wait on it before the release

    def step_waited(self):
        with torch.cuda.stream(self.side):
            self.buf = torch.empty(256, device="cuda")
        self.compute.wait_stream(self.side)
        out = self.buf * 2
        self.side.wait_stream(self.compute)
        self.buf = None

    # An attribute outlives the method: no release at its end.
    def step_kept(self):
        with torch.cuda.stream(self.side):
            self.buf = torch.empty(256, device="cuda")
        self.compute.wait_stream(self.side)
        out = self.buf * 2


# `if keep is not None:` refines: on the other branch keep holds nothing.
def keepalive_loop(side, compute, layers):
    keep, keep_done = None, None
    for layer in range(layers):
        buf = gather(side)
        compute.wait_stream(side)
        with torch.cuda.stream(compute):
            out = buf * 2
        done = compute.record_event()
        if keep is not None:
            side.wait_event(keep_done)
            del keep
        keep, keep_done = buf, done
        del buf
    if keep is not None:
        side.wait_event(keep_done)
        keep = None


# Stored into a container (or handed to unknown code): not tracked further.
def stored_in_list(side, compute, outputs):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    outputs.append(buf)
    del buf


# A tuple keeps its elements alive; unpacking gets them back.
def tuple_keepalive(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    pending = (buf, compute.record_event())
    del buf
    old, old_done = pending
    side.wait_event(old_done)
    del old, pending


# Returned inside a tuple or a NamedTuple: the caller gets the tensor;
# nothing is released by the return.
class Gathered(typing.NamedTuple):
    out: torch.Tensor
    done: torch.cuda.Event


def return_in_tuple(side, comm):
    out = gather(side)
    comm.wait_stream(side)
    with torch.cuda.stream(comm):
        out.mul_(2)
        done = comm.record_event()
    return (out, done)


def return_in_named_tuple(side, comm):
    out = gather(side)
    comm.wait_stream(side)
    with torch.cuda.stream(comm):
        out.mul_(2)
        done = comm.record_event()
    return Gathered(out, done)


# A tensor the tuple does not hold is still released at the return.
def return_tuple_without_scratch(side, comm):
    scratch = gather(side)
    out = gather(side)
    comm.wait_stream(side)
    with torch.cuda.stream(comm):
        scratch.mul_(2)
        done = comm.record_event()
    return (out, done)
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'scratch' is released on stream 'side' while stream 'comm' may still use it
