# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=,STRICT -wait-before-free %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=UBA %s streamlife-use-before-alloc
#
# Host tensors are not blocks of the device's caching allocator: CPU tensors
# (factories without a device or on "cpu", `.cpu()`, `.to("cpu")`), pinned
# ones (`pin_memory=True`, `.pin_memory()`) and what views and ops make of
# them. Their uses and their release are not stream-ordered lifetimes. Only
# host tensors can be pinned, so the base of a `.pin_memory()` chain is one.
import torch


# A pinned staging buffer copied to the device on a side stream, then
# rebound: the pinned tensor was once taken for a device block allocated on
# the current stream, and the rebinding for its release.
def pinned_rows_to_device(w_cpu, idx, dev, side):
    x = w_cpu.view(-1, 4).index_select(0, idx).pin_memory()
    with torch.cuda.stream(side):
        x = x.to(dev, non_blocking=True)
    return x


def pinned_factory_on_side_stream(n, side):
    staging = torch.empty(n, pin_memory=True)
    with torch.cuda.stream(side):
        gpu = staging.to("cuda", non_blocking=True)
    del staging
    return gpu


def cpu_copy_used_on_side_stream(t, side):
    host = t.cpu()
    with torch.cuda.stream(side):
        y = host * 2
    del host


# The device copy made on the side stream is a device block like any other:
# used on the current stream before it waits for the side stream.
def device_copy_used_unordered(n, side):
    staging = torch.empty(n, pin_memory=True)
    with torch.cuda.stream(side):
        gpu = staging.to("cuda", non_blocking=True)
    out = gpu * 2
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:11: warning: 'gpu' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    return out
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'gpu' is released on stream 'side' while the current stream may still use it


# A host tensor's in-place copy from a device tensor reads the device tensor
# on the current stream (a device-to-host copy): the offload pattern.
# The wait comes before anything allocates on the release stream again, so
# only "wait before free" (--wait-before-free) reports it.
def offload_released_before_the_copy_completes(activation_shape, offload):
    compute = torch.cuda.current_stream()
    activation = torch.empty(activation_shape, device="cuda")
    host = torch.empty(activation_shape, pin_memory=True)
    with torch.cuda.stream(offload):
        offload.wait_stream(compute)
        host.copy_(activation, non_blocking=True)
    del activation
    # CHECK-MESSAGES-STRICT: :[[@LINE-1]]:5: warning: 'activation' is released on stream 'compute' while stream 'offload' may still use it
    compute.wait_stream(offload)
    return host


# A comparison that returns a Python bool waits for the current stream: the
# side stream was synchronized, the current stream's read is complete when
# `a` is released at the return.
def compared_on_the_host(n):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a = torch.ones(n, device="cuda")
    s.synchronize()
    return torch.equal(a, a)
