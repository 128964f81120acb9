# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# PyTorch's caching allocator hands a released block only to a later
# allocation on the block's stream (the release stream), with no ordering at
# all. A release that leaves another stream's use unordered is therefore
# judged at the next reuse opportunity: an allocation on the release stream,
# a call to a function that allocates there, a loop back edge to one, or
# the return. It is a finding only if the use may still run there: neither
# complete (a host wait) nor ordered before the release stream (it waited).
# The runtime validator judges caching releases the same way; `streamlife
# check --wait-before-free` judges them at the release (test/cli).
import deepspeed.comm as ds_dist
import torch
import torch.distributed as dist


def scratch_on(stream, n):
    with torch.cuda.stream(stream):
        return torch.zeros(n, device="cuda")


# A read issued after the last host wait, then released by the rebinding:
# the host waits for the current stream before the offload stream allocates
# again (an accumulator cast for a collective, then a barrier).
def synchronized_before_the_next_allocation(n, offload):
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    acc.add_(1)
    torch.cuda.current_stream().synchronize()
    acc = acc.to(torch.float16)
    torch.cuda.synchronize()
    with torch.cuda.stream(offload):
        nxt = torch.zeros(n, device="cuda")
    return acc, nxt


# A barrier (ProcessGroupNCCL's, also through DeepSpeed's deepspeed.comm,
# which mirrors torch.distributed) makes the host wait for the current stream.
def barrier_before_the_next_allocation(n, offload):
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    acc = acc.to(torch.float16)
    dist.barrier()
    with torch.cuda.stream(offload):
        nxt = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    acc2 = nxt.to(torch.float16)
    ds_dist.barrier()
    with torch.cuda.stream(offload):
        last = torch.zeros(n, device="cuda")
    return acc, acc2, last


# The release stream waits for the consumer after the release, but before
# it allocates again (FSDP2's reduce-scatter stream): its later work on the
# block comes after the read.
def release_stream_waits_before_it_allocates(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    del w
    ag.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(ag):
        nxt = torch.zeros(n, device="cuda")
    return y, nxt


# In a loop: each iteration's release is followed by a host wait before the
# next iteration allocates on the stream.
def loop_synchronized_before_the_next_iteration(n, ag, steps):
    out = []
    for _ in range(steps):
        with torch.cuda.stream(ag):
            w = torch.ones(n, device="cuda")
        torch.cuda.current_stream().wait_stream(ag)
        out.append(w * 2)
        del w
        torch.cuda.current_stream().synchronize()
    return out


# The host waits on an event recorded after the use before returning.
def event_synchronized_before_the_return(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    done = torch.cuda.current_stream().record_event()
    del w
    done.synchronize()
    return y


# The twins. The allocation on the offload stream comes before the host
# wait: it may be handed the block while the cast still reads it.
def allocated_before_the_wait(n, offload):
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    acc.add_(1)
    torch.cuda.current_stream().synchronize()
    acc = acc.to(torch.float16)
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    # CHECK-NOTES: :[[@LINE-6]]:15: note: 'acc' allocated on stream 'offload' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: used on the current stream here
    # CHECK-NOTES: :[[@LINE+3]]:15: note: the released block is in the pool of 'offload', and this allocation there may be handed it while the use runs
    # CHECK-NOTES: :[[@LINE-5]]:11: note: record an event on the current stream after this use and make 'offload' wait on it before the release
    with torch.cuda.stream(offload):
        nxt = torch.zeros(n, device="cuda")
    torch.cuda.synchronize()
    return acc, nxt


# The release stream waits for the consumer only after it allocated.
def release_stream_waits_after_it_allocates(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    del w
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'w' is released on stream 'ag' while the current stream may still use it
    with torch.cuda.stream(ag):
        nxt = torch.zeros(n, device="cuda")
    ag.wait_stream(torch.cuda.current_stream())
    return y, nxt


# The next allocation on the stream is in a helper the function calls.
def a_helper_allocates_before_the_wait(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    del w
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'w' is released on stream 'ag' while the current stream may still use it
    nxt = scratch_on(ag, n)
    torch.cuda.synchronize()
    return y, nxt


# In a loop, the next iteration allocates on the stream before any wait.
def loop_allocates_in_the_next_iteration(n, ag, steps):
    out = []
    for _ in range(steps):
        with torch.cuda.stream(ag):
            w = torch.ones(n, device="cuda")
        torch.cuda.current_stream().wait_stream(ag)
        out.append(w * 2)
        del w
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'w' is released on stream 'ag' while the current stream may still use it
    torch.cuda.current_stream().synchronize()
    return out


# Nothing waits before the return: the caller may allocate on the stream.
def returns_before_the_wait(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    del w
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'w' is released on stream 'ag' while the current stream may still use it
    return y


# An asynchronous barrier does not wait: its work handle would.
def asynchronous_barrier_before_the_next_allocation(n, offload):
    with torch.cuda.stream(offload):
        acc = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_stream(offload)
    acc = acc.to(torch.float16)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'acc' is released on stream 'offload' while the current stream may still use it
    work = dist.barrier(async_op=True)
    with torch.cuda.stream(offload):
        nxt = torch.zeros(n, device="cuda")
    work.wait()
    torch.cuda.synchronize()
    return acc, nxt


# The host waits for another stream than the consumer's before allocating.
def synchronizes_the_wrong_stream(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    del w
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'w' is released on stream 'ag' while the current stream may still use it
    ag.synchronize()
    with torch.cuda.stream(ag):
        nxt = torch.zeros(n, device="cuda")
    return y, nxt
