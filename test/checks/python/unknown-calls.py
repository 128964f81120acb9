# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=,STRICT -wait-before-free %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=UBA %s streamlife-use-before-alloc
#
# Functions streamlife cannot see (kernel launchers, layers, wrappers): their
# tensor arguments inside a stream context are used on that stream (what
# such a function does with a tensor, it does on the current stream), and the
# tensors stay tracked. A tensor one returns is a tensor of unknown origin:
# released on the stream it was most likely made on, never taken for a fresh
# allocation (no use-before-alloc).
import torch
from kernels import stage1


def launcher_on_side_stream(q, n):
    s = torch.cuda.Stream()
    mid = torch.empty(n, device="cuda")
    with torch.cuda.stream(s):
        stage1(q=q, mid_out=mid)
        # CHECK-MESSAGES-UBA: :[[@LINE-1]]:9: warning: 'mid' is used on stream 's' before 's' is ordered after its allocation on the current stream
    del mid
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mid' is released on the current stream while stream 's' may still use it


def launcher_ordered(q, n):
    s = torch.cuda.Stream()
    mid = torch.empty(n, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        stage1(q=q, mid_out=mid)
    torch.cuda.current_stream().wait_stream(s)
    del mid


# Outside a stream context an unknown call is neither a use nor an ordering.
def launcher_on_current_stream(q, n):
    mid = torch.empty(n, device="cuda")
    stage1(q=q, mid_out=mid)
    del mid


# A call that keeps its argument (a container's append, autograd's saved
# tensors, an object made with it): what it keeps lives on untracked.
def kept_by_the_callee(ctx, registry, n):
    s = torch.cuda.Stream()
    buf = torch.empty(n, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = buf * 2
        ctx.save_for_backward(buf)
    del buf


# The layer's output is a tensor (it is viewed); made on the current stream,
# used on the side stream, and dropped before the side stream is waited for.
# The wait comes before anything allocates on the release stream again, so
# only "wait before free" (--wait-before-free) reports it.
def layer_output(layer, x):
    s = torch.cuda.Stream()
    out = layer(x)
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = out.view(-1) * 2
    del out
    # CHECK-MESSAGES-STRICT: :[[@LINE-1]]:5: warning: 'out' is released on the current stream while stream 's' may still use it
    torch.cuda.current_stream().wait_stream(s)


# Not known to be a tensor: the value stays untracked.
def config_object(make_config):
    s = torch.cuda.Stream()
    cfg = make_config()
    with torch.cuda.stream(s):
        stage1(cfg)
    del cfg


# A helper the checker sees passes its parameter on to a function it cannot
# see: outside a stream context of its own, the tensor is used on whatever
# stream the helper's caller made current. Called under `with
# torch.cuda.stream(s)`, the helper uses it on s, as the unknown call would
# have there (Megatron-LM's tests call their fused-MoE helper on a capture
# stream after waiting for the current one).
def launch_through_helper(x):
    stage1(q=x)


def helper_on_side_stream(n):
    s = torch.cuda.Stream()
    hidden = torch.empty(n, device="cuda")
    with torch.cuda.stream(s):
        launch_through_helper(hidden)
        # CHECK-MESSAGES-UBA: :[[@LINE-1]]:9: warning: 'hidden' is used on stream 's' before 's' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(s)


def helper_on_side_stream_ordered(n):
    s = torch.cuda.Stream()
    hidden = torch.empty(n, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        launch_through_helper(hidden)
    torch.cuda.current_stream().wait_stream(s)


def helper_on_current_stream(n):
    hidden = torch.empty(n, device="cuda")
    launch_through_helper(hidden)
    del hidden


# A launcher handed a tensor's device address (ctypes, TVM FFI, CuPy) uses the
# tensor as if it had been handed the tensor.
def raw_address_on_side_stream(n):
    s = torch.cuda.Stream()
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(s):
        stage1(out.data_ptr(), n, s.cuda_stream)
        # CHECK-MESSAGES-UBA: :[[@LINE-1]]:9: warning: 'out' is used on stream 's' before 's' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(s)
    return out


def raw_address_ordered(n):
    s = torch.cuda.Stream()
    out = torch.empty(n, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        stage1(out.data_ptr(), n, s.cuda_stream)
    torch.cuda.current_stream().wait_stream(s)
    return out


class BlockCounter:
    def __init__(self):
        self.addresses = set()

    def track(self, tensor):
        self.addresses.add(tensor.data_ptr())


# Keeping a tensor's address (the examples count their blocks this way) keeps
# a number: neither the tensor nor a use of it.
def address_kept_by_a_helper(counter, n):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        w = torch.empty(n, device="cuda")
    counter.track(w)
    torch.cuda.current_stream().wait_stream(s)
    return w


# Nor does the kept address hide the tensor's release.
def address_kept_then_released_early(counter, n):
    s = torch.cuda.Stream()
    w = torch.empty(n, device="cuda")
    counter.track(w)
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = w * 2
    del w
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'w' is released on the current stream while stream 's' may still use it
