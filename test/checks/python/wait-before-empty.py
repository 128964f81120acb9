# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A side stream that waited for the current stream before an allocation
# there: with PyTorch's caching allocator the new block's earlier tenants
# released it to the current stream's pool, after their work there. When no
# block can have gone back to that pool since the wait (no release, no
# operation that may free temporaries, no unseen call) and the factory
# writes nothing (torch.empty), the side stream is already ordered after
# every earlier tenant: using the block there is safe. (Found on held-out
# code: Triton-distributed's gemm_rs_op and flashinfer's worker-stream test
# wait for the current stream, then allocate the output they write on the
# side stream.)
import torch


# --- ordered: nothing can have returned a block to the pool since the wait


def wait_then_empty(side, n):
    side.wait_stream(torch.cuda.current_stream())
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(1)
    torch.cuda.current_stream().wait_stream(side)
    return out


def wait_then_empty_under_a_flag(side, n, fused):
    current = torch.cuda.current_stream()
    side.wait_stream(current)
    if fused:
        assert n > 0, "no rows"
    out = torch.empty((n, 4), dtype=torch.float16, device="cuda")
    with torch.cuda.stream(side):
        out.zero_()
    current.wait_stream(side)
    return out


def wait_then_empty_like(side, q: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    out = torch.empty_like(q)
    scratch = q.new_empty(q.shape)
    with torch.cuda.stream(side):
        out.copy_(scratch)
    torch.cuda.current_stream().wait_stream(side)
    return out


def event_after_the_last_release(side, n):
    ready = torch.cuda.Event()
    ready.record()
    side.wait_event(ready)
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(2)
    torch.cuda.current_stream().wait_stream(side)
    return out


def device_synchronized(side, n):
    torch.cuda.synchronize()
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(3)
    torch.cuda.current_stream().wait_stream(side)
    return out


# --- not ordered


def wait_then_zeros(side, n):
    side.wait_stream(torch.cuda.current_stream())
    # The fill is enqueued on the current stream after the wait.
    out = torch.zeros(n, device="cuda")
    with torch.cuda.stream(side):
        out.add_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return out


def release_between(side, n):
    tmp = torch.ones(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    tmp.mul_(2)
    del tmp  # back to the current stream's pool, after the wait
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return out


def operation_between(side, x: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    # May allocate and free temporaries on the current stream.
    idx = torch.nonzero(x)
    out = torch.empty(x.shape, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return out, idx


def unseen_call_between(side, x, n):
    side.wait_stream(torch.cuda.current_stream())
    prepare(x)
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return out


def waited_on_one_path(side, n, eager):
    if eager:
        side.wait_stream(torch.cuda.current_stream())
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return out


def event_before_a_release(side, n):
    tmp = torch.ones(n, device="cuda")
    ready = torch.cuda.Event()
    ready.record()
    tmp = None
    side.wait_event(ready)
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(side):
        out.fill_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return out


def wait_once_before_the_loop(side, n, steps):
    side.wait_stream(torch.cuda.current_stream())
    for _ in range(steps):
        # From the second step on, the previous step's out has gone back to
        # the pool since the wait.
        out = torch.empty(n, device="cuda")
        with torch.cuda.stream(side):
            out.fill_(1)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
        torch.cuda.current_stream().wait_stream(side)
