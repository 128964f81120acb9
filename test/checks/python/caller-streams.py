# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc,streamlife-free-before-wait
#
# A helper handed a stream parameter, which it allocates for on the current
# stream and writes on the stream it is given. Where every call of it passes
# the caller's current stream, the parameter is the current stream and the
# helper is right; where some call passes another stream (or none is seen),
# the helper may be given any stream and the finding stands. (Found on
# held-out code: Triton-distributed's ring reductions, handed
# `torch.cuda.current_stream()` by their one caller.)
import torch


def reduce_on(scatter_out: torch.Tensor, stream: torch.cuda.Stream):
    output = torch.empty(scatter_out.shape, device=scatter_out.device)
    with torch.cuda.stream(stream):
        output.copy_(scatter_out)
    return output


def gemm_reduce(a, b):
    current_stream = torch.cuda.current_stream()
    out = torch.matmul(a, b)
    return reduce_on(out, current_stream)


def gemm_reduce_keyword(a, b):
    return reduce_on(torch.matmul(a, b), stream=torch.cuda.current_stream())


# Called once with another stream: the helper's own finding stands.
def copy_on(src: torch.Tensor, stream: torch.cuda.Stream):
    dst = torch.empty(src.shape, device=src.device)
    with torch.cuda.stream(stream):
        dst.copy_(src)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'dst' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    return dst


def copy_here(x):
    return copy_on(x, torch.cuda.current_stream())


def copy_aside(x, side: torch.cuda.Stream):
    side.wait_stream(torch.cuda.current_stream())
    return copy_on(x, side)


# Never called here: any stream.
def fill_on(n, stream: torch.cuda.Stream):
    buf = torch.empty(n, device="cuda")
    with torch.cuda.stream(stream):
        buf.fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'buf' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    return buf


# The current stream of the caller is the one at the call: a call made
# under `with torch.cuda.stream(s)` passing current_stream() passes s, which
# is the helper's entry current stream too.
def scale_on(x: torch.Tensor, stream: torch.cuda.Stream):
    y = torch.empty(x.shape, device=x.device)
    with torch.cuda.stream(stream):
        torch.mul(x, 2, out=y)
    return y


def scale_aside(x, side: torch.cuda.Stream):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = scale_on(x, torch.cuda.current_stream())
    torch.cuda.current_stream().wait_stream(side)
    return y


# A helper that hands its own stream parameter on: `accumulate_on` is given
# what `accumulate_via` is given, the current stream at its one call.
def accumulate_on(x: torch.Tensor, stream: torch.cuda.Stream):
    acc = torch.zeros(x.shape, device=x.device)
    with torch.cuda.stream(stream):
        acc.add_(x)
    return acc


def accumulate_via(x: torch.Tensor, stream: torch.cuda.Stream):
    return accumulate_on(x, stream)


def accumulate_here(x):
    return accumulate_via(x, torch.cuda.current_stream())


# The same chain with a call of the outer helper on another stream: the
# inner helper may be given that stream.
def gather_on(x: torch.Tensor, stream: torch.cuda.Stream):
    out = torch.empty(x.shape, device=x.device)
    with torch.cuda.stream(stream):
        out.copy_(x)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    return out


def gather_via(x: torch.Tensor, stream: torch.cuda.Stream):
    return gather_on(x, stream)


def gather_here(x):
    return gather_via(x, torch.cuda.current_stream())


def gather_aside(x, side: torch.cuda.Stream):
    side.wait_stream(torch.cuda.current_stream())
    return gather_via(x, side)


# Passed on under another stream: the inner helper starts on `side`, and
# its parameter is still the outer helper's entry current stream.
def shift_on(x: torch.Tensor, stream: torch.cuda.Stream):
    out = torch.empty(x.shape, device=x.device)
    with torch.cuda.stream(stream):
        out.copy_(x)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream
    return out


def shift_via(x: torch.Tensor, stream: torch.cuda.Stream, side: torch.cuda.Stream):
    with torch.cuda.stream(side):
        return shift_on(x, stream)


def shift_here(x, side: torch.cuda.Stream):
    return shift_via(x, torch.cuda.current_stream(), side)
