# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# `if current_stream() != side: side.wait_stream(current_stream())`: where
# the streams differ the side stream waits, where they are equal there is
# one stream and nothing to wait for. Either way the side stream's work is
# ordered after the current stream's (a device-to-host helper that may run
# on the current stream itself).
import torch


class Dispatcher:
    def __init__(self):
        self.dtoh = torch.cuda.Stream()

    def to_host(self, t: torch.Tensor):
        on_side = torch.cuda.current_stream() != self.dtoh
        if on_side:
            self.dtoh.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.dtoh):
            host = t.to("cpu", non_blocking=True)
        return host


class ClassLevelStream:
    dtoh = None

    def to_host(self, t: torch.Tensor):
        on_side = torch.cuda.current_stream() != self.dtoh
        if on_side:
            self.dtoh.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.dtoh):
            host = t.to("cpu", non_blocking=True)
        return host


def counts_to_host_class_level(d: ClassLevelStream, n):
    counts = torch.zeros(n, device="cuda")
    return d.to_host(counts)


def counts_to_host(d: Dispatcher, n):
    counts = torch.zeros(n, device="cuda")
    return d.to_host(counts)


def wait_unless_same(side, n):
    x = torch.ones(n, device="cuda")
    if side is not torch.cuda.current_stream():
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    torch.cuda.current_stream().wait_stream(side)
    return y


# The twin: a wait under a condition that says nothing about the streams.
def wait_under_another_condition(side, n, eager):
    x = torch.ones(n, device="cuda")
    if eager:
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
        # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'x' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(side)
    return y
