# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# Streams taken from a list, used in one loop and synchronized in another:
# a loop that synchronizes every element of the list (`L[i].synchronize()`
# over `range(...)`, or `s.synchronize()` over the list) makes the host wait
# for every stream a local took from it. The list is not one stream: only
# its elements, each synchronized, are known complete.
import torch


def every_stream_synchronized_by_index(streams, n):
    buf = torch.zeros(n, device="cuda")
    cur = torch.cuda.current_stream()
    for rank in range(n):
        s = streams[rank]
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            buf.add_(1)
    for rank in range(n):
        streams[rank].synchronize()
    return buf.shape


def every_stream_synchronized_by_element(streams, n):
    buf = torch.zeros(n, device="cuda")
    cur = torch.cuda.current_stream()
    for s in streams:
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            buf.add_(1)
    for side in streams:
        side.synchronize()
    return buf.shape


# The twins: one element synchronized, a loop that may stop early, a loop
# over another list.
def one_stream_synchronized(streams, n):
    buf = torch.zeros(n, device="cuda")
    cur = torch.cuda.current_stream()
    for rank in range(n):
        s = streams[rank]
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            buf.add_(1)
    streams[0].synchronize()
    return buf.shape
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'buf' is released on stream 'cur' while stream '{{.*}}' may still use it


def synchronizing_loop_may_break(streams, n, ready):
    buf = torch.zeros(n, device="cuda")
    cur = torch.cuda.current_stream()
    for rank in range(n):
        s = streams[rank]
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            buf.add_(1)
    for rank in range(n):
        if ready(rank):
            break
        streams[rank].synchronize()
    return buf.shape
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'buf' is released on stream 'cur' while stream '{{.*}}' may still use it


def another_list_synchronized(streams, others, n):
    buf = torch.zeros(n, device="cuda")
    cur = torch.cuda.current_stream()
    for s in streams:
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            buf.add_(1)
    for side in others:
        side.synchronize()
    return buf.shape
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'buf' is released on stream 'cur' while stream 's' may still use it
