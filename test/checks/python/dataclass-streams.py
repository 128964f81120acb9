# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A dataclass field whose default_factory takes the current stream holds the
# current stream at construction, as `self.compute =
# torch.cuda.current_stream()` in __init__ does: waiting for it is waiting
# for the current stream. (Found on held-out code: Triton-distributed's MoE
# contexts keep `compute_stream` and `reduce_stream` this way.)
import dataclasses
from dataclasses import dataclass, field

import torch


@dataclass
class ReduceContext:
    n: int
    compute_stream: torch.cuda.Stream = field(default_factory=lambda: torch.cuda.current_stream())
    reduce_stream: torch.cuda.Stream = field(default_factory=lambda: torch.cuda.Stream(priority=-1))


@dataclasses.dataclass
class CopyContext:
    compute: torch.cuda.Stream = dataclasses.field(default_factory=torch.cuda.current_stream)
    side: torch.cuda.Stream = dataclasses.field(default_factory=torch.cuda.Stream)


# The twin: the field is a stream of its own, not the current stream.
@dataclass
class TwoStreams:
    compute: torch.cuda.Stream = field(default_factory=lambda: torch.cuda.Stream())
    side: torch.cuda.Stream = field(default_factory=lambda: torch.cuda.Stream())


def reduce(x: torch.Tensor, ctx: ReduceContext):
    out = torch.empty(x.shape, device=x.device)
    ctx.reduce_stream.wait_stream(ctx.compute_stream)
    with torch.cuda.stream(ctx.reduce_stream):
        out.copy_(x)
    ctx.compute_stream.wait_stream(ctx.reduce_stream)
    return out


def copy(x: torch.Tensor, ctx: CopyContext):
    out = torch.zeros(x.shape, device=x.device)
    ctx.side.wait_stream(ctx.compute)
    with torch.cuda.stream(ctx.side):
        out.add_(x)
    ctx.compute.wait_stream(ctx.side)
    return out


def copy_two(x: torch.Tensor, ctx: TwoStreams):
    out = torch.zeros(x.shape, device=x.device)
    ctx.side.wait_stream(ctx.compute)
    with torch.cuda.stream(ctx.side):
        out.add_(x)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'ctx.side' before 'ctx.side' is ordered after its allocation on the current stream
    ctx.compute.wait_stream(ctx.side)
    return out
