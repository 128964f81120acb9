# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=UBA %s streamlife-use-before-alloc
#
# CUDA graph capture: `torch.cuda.graph(g)` synchronizes the device on entry
# and captures its body into the graph; nothing in the body runs now, on the
# capture stream or any other, and what it allocates comes from the graph's
# private pool. So the body is neither a use nor an allocation. (A capture
# on a side stream once read as a use of the input on that stream, released
# on the current stream at the end.)
import torch


def capture_on_side_stream(n):
    x = torch.zeros(n, device="cuda")
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
        y = x * 2
    return g


def capture_with_pool(n, pool):
    static_in = torch.zeros(n, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, pool=pool):
        static_out = static_in + 1
    return g, static_in


# The same body run on the side stream (not captured) is a use there.
def run_on_side_stream(n):
    x = torch.zeros(n, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = x * 2
    # CHECK-MESSAGES: :[[@LINE+1]]:1: warning: 'x' is released on the current stream while stream 's' may still use it
    return s
