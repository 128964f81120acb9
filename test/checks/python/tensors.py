# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# Tensors are allocated on the current stream by tensor-producing calls
# (factories with a CUDA device, *_like, ops and methods returning new
# tensors, .to("cuda"), .cuda(), .clone()), also inside helpers; uses by ops
# and methods run on the current stream; views share their base's block.
import torch
import torch.distributed as dist


def make(side):
    with torch.cuda.stream(side):
        return torch.ones(64, device="cuda")


# A factory on the side stream, read on the current stream without a wait.
def factory_unordered():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        buf = torch.zeros(64, device="cuda")
    out = buf.sum()
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'buf' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:15: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


def factory_ordered():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        buf = torch.zeros(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf.sum()


# *_like, clone, .to("cuda"), .cuda() and an op allocate on the side stream.
def like_unordered(x):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.empty_like(x)
    out = a + 1
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'a' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:13: note: 'a' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


def clone_unordered(x: torch.Tensor):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        c = x.clone()
    out = c * 2
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'c' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:13: note: 'c' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


def to_device_unordered(host: torch.Tensor):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        d = host.to("cuda", non_blocking=True)
    out = d * 2
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'd' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:13: note: 'd' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


def cuda_method_unordered(host: torch.Tensor):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        d = host.cuda()
    out = torch.relu(d)
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'd' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:13: note: 'd' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


def op_unordered(x: torch.Tensor, w: torch.Tensor):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        y = x @ w
    out = y.mean()
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'y' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:13: note: 'y' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


# A helper that opens the stream context and returns a new tensor.
def helper_unordered():
    side = torch.cuda.Stream()
    buf = make(side)
    out = buf * 2
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'buf' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


# A view shares the base's block: using the view is using the buffer.
def view_unordered():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    rows = buf.view(8, 8)
    out = rows.sum()
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'rows' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-4]]:15: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


# CPU tensors are not stream-ordered.
def cpu_factory():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        host = torch.zeros(64)
    out = host.sum()


# Metadata reads enqueue nothing.
def metadata_only():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    n = buf.numel()
    p = buf.data_ptr()


# The process group's stream waits for the current stream before the
# collective, not for a side stream the buffer was allocated on. It is named
# after the collective, however long its name (a dangling reference once
# garbled names past 15 characters).
def long_collective_before_alloc_ordered(inp):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    work = dist.all_gather_into_tensor(buf, inp, async_op=True)
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'all_gather_into_tensor' before 'all_gather_into_tensor' is ordered after its allocation on stream 'side'
    work.wait()


# The tensors of a list or tuple display are the op's operands, each read on
# the current stream. (The display was taken for one value that is no tensor,
# so torch.cat([a, b]) read nothing.)
def cat_of_a_display_unordered():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.zeros(64, device="cuda")
    out = torch.cat([a, a])
    # CHECK-NOTES: :[[@LINE-1]]:11: warning: 'a' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    # CHECK-NOTES: :[[@LINE-3]]:13: note: 'a' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-3]]:11: note: record an event on 'side' after the allocation and make the current stream wait on it before this use


def stack_of_a_tuple_ordered():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.zeros(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = torch.stack((a, a))
