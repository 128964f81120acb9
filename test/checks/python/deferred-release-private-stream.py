# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# A caching release that races is judged at the next reuse opportunity
# (deferred-release.py), and the return is one: the caller may allocate on
# the release stream next. Not when the release stream is one the function
# made itself and handed to no one (not returned, stored, passed to a call,
# left current or captured): after the return no one can name it, so no
# allocation can be handed the block, and the runtime validator, which
# reports a caching release only at such an allocation, reports nothing. A
# backward pass that makes its own offload stream and returns the casts of
# the accumulators it allocated there is the shape.
import torch

_registry = []


def cast_on_the_way_out(n):
    offload = torch.cuda.Stream()
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    acc.add_(1)
    torch.cuda.current_stream().synchronize()
    offload.synchronize()
    return acc.to(torch.float16)


# The stream is compared, waited for and recorded on: none of that hands it
# to anyone.
def compared_and_recorded(n, x):
    side = torch.cuda.Stream()
    if torch.cuda.current_stream() != side:
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        buf = torch.empty(n, device="cuda")
        buf.copy_(x)
    done = torch.cuda.Event()
    done.record(side)
    torch.cuda.current_stream().wait_event(done)
    x.record_stream(side)
    y = buf * 2
    del buf
    return y


# The twins. The release stream is the caller's: it may allocate there next.
def a_parameter_stream(n, offload):
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    return acc.to(torch.float16)


# Made here, but kept where others find it.
class Offloader:
    def stored(self, n):
        offload = torch.cuda.Stream()
        self.offload = offload
        with torch.cuda.stream(offload):
            acc = torch.zeros(n, device="cuda")
        torch.cuda.current_stream().wait_stream(offload)
        # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'acc' is released on stream 'offload' while the current stream may still use it
        return acc.to(torch.float16)


def returned_with_the_result(n):
    offload = torch.cuda.Stream()
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    half = acc.to(torch.float16)
    del acc
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    return half, offload


def passed_to_a_call(n):
    offload = torch.cuda.Stream()
    _registry.append(offload)
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    return acc.to(torch.float16)


def captured_by_a_closure(n):
    offload = torch.cuda.Stream()
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    _registry.append(lambda: offload)
    # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    return acc.to(torch.float16)


# Left current: the caller's next allocation is on it.
def left_current(n):
    offload = torch.cuda.Stream()
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    y = acc.to(torch.float16)
    torch.cuda.set_stream(offload)
    # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    return y


# Rebound to a stream someone else holds.
def rebound(n, other):
    offload = torch.cuda.Stream()
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    y = acc.to(torch.float16)
    offload = other
    # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    return y


# Private, but the function itself allocates there again before the wait.
def allocates_again_before_the_wait(n):
    offload = torch.cuda.Stream()
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    half = acc.to(torch.float16)
    del acc
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    with torch.cuda.stream(offload):
        nxt = torch.zeros(n, device="cuda")
    torch.cuda.synchronize()
    return half, nxt
