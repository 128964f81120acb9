# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# A helper that calls record_stream only when a flag says so is lowered for
# the flag's value at each call that makes it known: a literal, a default
# left alone, or a local assigned once from a stream inequality (`on_side =
# current_stream() != self.dtoh`). Where that local is false the two
# streams are one, so the work "on the side stream" is on the release
# stream; where it is true the helper records the side stream. Merged into
# one summary, the helper's record would hold on one path only and the
# release after it would be reported (a device-to-host helper that may run
# on the current stream itself).
import torch


def to_host(t, record_stream=False):
    host = t.to("cpu", non_blocking=True)
    if record_stream:
        t.record_stream(torch.cuda.current_stream())
    return host


class Dispatcher:
    def __init__(self):
        self.dtoh = torch.cuda.Stream()

    def counts_to_host(self, counts):
        on_side = torch.cuda.current_stream() != self.dtoh
        if on_side:
            self.dtoh.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.dtoh):
            host = to_host(counts, record_stream=on_side)
        self.ready = self.dtoh.record_event()
        return host

    def step(self, n):
        counts = torch.zeros(n, device="cuda")
        host = self.counts_to_host(counts)
        del counts
        return host, torch.empty(n, device="cuda")

    # The twin: a flag that says nothing about the streams. Where it is
    # false the side stream still reads the block, unrecorded.
    def counts_to_host_when(self, counts, eager):
        self.dtoh.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.dtoh):
            host = to_host(counts, record_stream=eager)
        return host

    def step_when(self, n, eager):
        counts = torch.zeros(n, device="cuda")
        host = self.counts_to_host_when(counts, eager)
        del counts
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'counts' is released on the current stream while stream 'self.dtoh' may still use it
        return host, torch.empty(n, device="cuda")


# A literal flag picks the helper's path: True records the side stream.
def literal_true(side, n):
    counts = torch.zeros(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        host = to_host(counts, True)
    del counts
    return host, torch.empty(n, device="cuda")


# ... False does not.
def literal_false(side, n):
    counts = torch.zeros(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        host = to_host(counts, record_stream=False)
    del counts
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'counts' is released on the current stream while stream 'side' may still use it
    return host, torch.empty(n, device="cuda")


# ... nor does the default, left alone.
def default_flag(side, n):
    counts = torch.zeros(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        host = to_host(counts)
    del counts
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'counts' is released on the current stream while stream 'side' may still use it
    return host, torch.empty(n, device="cuda")
