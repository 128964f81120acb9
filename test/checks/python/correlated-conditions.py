# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A wait and a use under conditions on one variable that the function never
# assigns (a parameter compared with constants): the paths on which the use
# runs are paths on which the wait ran, although a join lies between the two.
# The function is lowered once per value class of such a variable (here
# method == 1, == 2, == 3, anything else), each copy taking only the branches
# its class can take.
import torch


def halo_pad(x, side, method):
    pad = torch.empty(x.numel() + 2, device="cuda")
    if method != 2:
        side.wait_stream(torch.cuda.current_stream())
    if method == 1:
        with torch.cuda.stream(side):
            pad[1:-1].copy_(x)
        torch.cuda.current_stream().wait_stream(side)
    elif method == 2:
        pad[1:-1].copy_(x)
    elif method == 3:
        with torch.cuda.stream(side):
            pad[1:-1].copy_(x)
        torch.cuda.current_stream().wait_stream(side)
    return pad


# Two variables, one of them compared with a bound: `size > 1` and
# `size <= 1` split the integers in two classes, the other variable's tests
# in two more; a `not` and an `and` are decided from their parts.
def grouped(x, side, size, overlap):
    pad = torch.empty(x.numel() + 2, device="cuda")
    if size > 1 and overlap:
        side.wait_stream(torch.cuda.current_stream())
    if size <= 1 or not overlap:
        pad[1:-1].copy_(x)
    else:
        with torch.cuda.stream(side):
            pad[1:-1].copy_(x)
        torch.cuda.current_stream().wait_stream(side)
    return pad


# Keyword constants and strings compare too.
def by_mode(x, side, mode="fast"):
    pad = torch.empty(x.numel(), device="cuda")
    if mode == "overlap":
        side.wait_stream(torch.cuda.current_stream())
    if mode in ("overlap",):
        with torch.cuda.stream(side):
            pad.copy_(x)
        torch.cuda.current_stream().wait_stream(side)
    return pad


# A flag whose branches order no stream (a layout choice) makes no copies:
# they would differ only in uses, which the join merges anyway; the copies
# go to the tests that do (4 methods times 2 group sizes: 8, the bound).
def layout_and_method(x, side, size, method, nhwc):
    pad = torch.empty(x.numel() + 2, device="cuda")
    if nhwc:
        y = x.view(-1)
    else:
        y = x.reshape(-1)
    if size > 1 and method != 2:
        side.wait_stream(torch.cuda.current_stream())
    if size <= 1:
        pad[1:-1].copy_(y)
    elif method == 1 or method == 3:
        with torch.cuda.stream(side):
            if nhwc:
                pad[1:-1].copy_(y)
            else:
                pad[1:-1].copy_(x)
        torch.cuda.current_stream().wait_stream(side)
    if nhwc:
        pad.mul_(2)
    return pad


# The twins. The wait's class is not the use's (method 3 waits nowhere).
def halo_pad_wrong_class(x, side, method):
    pad = torch.empty(x.numel() + 2, device="cuda")
    if method == 1:
        side.wait_stream(torch.cuda.current_stream())
    if method == 3:
        with torch.cuda.stream(side):
            pad[1:-1].copy_(x)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'pad' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
        torch.cuda.current_stream().wait_stream(side)
    return pad


# The variable is assigned between the tests: what the first test saw says
# nothing about the second.
def reassigned(x, side, method):
    pad = torch.empty(x.numel() + 2, device="cuda")
    if method != 2:
        side.wait_stream(torch.cuda.current_stream())
    method = pick(method)
    if method == 2:
        with torch.cuda.stream(side):
            pad[1:-1].copy_(x)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'pad' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
        torch.cuda.current_stream().wait_stream(side)
    return pad


# A comparison with something that is not a constant decides nothing.
def not_a_constant(x, side, method, other):
    pad = torch.empty(x.numel() + 2, device="cuda")
    if method != other:
        side.wait_stream(torch.cuda.current_stream())
    if method == 1:
        with torch.cuda.stream(side):
            pad[1:-1].copy_(x)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'pad' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
        torch.cuda.current_stream().wait_stream(side)
    return pad


# Past the bound (0, 1 to 8, anything else: 10 classes) the function is
# lowered once, with the paths merged: the finding on the correlated paths
# is back.
def too_many_classes(x, side, level):
    pad = torch.empty(x.numel(), device="cuda")
    if level != 0:
        side.wait_stream(torch.cuda.current_stream())
    if level == 1:
        pad.add_(1)
    elif level == 2:
        pad.add_(2)
    elif level == 3:
        pad.add_(3)
    elif level == 4:
        pad.add_(4)
    elif level == 5:
        pad.add_(5)
    elif level == 6:
        pad.add_(6)
    elif level == 7:
        pad.add_(7)
    elif level == 8:
        with torch.cuda.stream(side):
            pad.copy_(x)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'pad' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
        torch.cuda.current_stream().wait_stream(side)
    return pad


# The ordering may be an event's own methods: recorded on the current stream
# under one test of the flag, waited for on the side stream under another
# (flashinfer's fused MoE zeroes its output on an aux stream this way).
def event_record_and_wait_under_one_flag(x, n, aux, ready, use_aux=True):
    out = torch.empty(n, device=x.device)
    if use_aux:
        ready.record()
    y = x * 2
    if use_aux:
        with torch.cuda.stream(aux):
            ready.wait()
            out.zero_()
    else:
        out.zero_()
    return out


# Its twin records the event before an allocation that writes (torch.zeros
# fills the block on the current stream after the record): the copy in which
# the flag is true waits for an event that does not cover the fill.
# (torch.empty there would be safe: see wait-before-empty.py.)
def event_recorded_before_the_allocation(x, n, aux, ready, use_aux=True):
    if use_aux:
        ready.record()
    out = torch.zeros(n, device=x.device)
    if use_aux:
        with torch.cuda.stream(aux):
            ready.wait()
            out.zero_()
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'out' is used on stream 'aux' before 'aux' is ordered after its allocation on the current stream
    return out
