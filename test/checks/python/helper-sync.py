# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# The host waits for a stream through a helper: a function handed the stream
# (whose parameter nothing else types), or a method of an object whose
# constructor kept the stream in an attribute (a benchmark's timer). After
# the wait, the stream's earlier uses are complete and the release is safe.
import torch


def wait_for(stream):
    stream.synchronize()


class Timer:
    def __init__(self, stream):
        self.start_ = torch.cuda.Event(enable_timing=True)
        self.stop_ = torch.cuda.Event(enable_timing=True)
        self.stream_ = stream

    def start(self):
        self.stream_.record_event(self.start_)

    def stop(self):
        self.stream_.record_event(self.stop_)

    def sync(self):
        self.stream_.synchronize()


def synchronized_by_a_helper_function(n):
    x = torch.ones(n, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = x * 2
    wait_for(s)
    return y.shape


def synchronized_by_a_timer_method(n):
    x = torch.ones(n, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        timer = Timer(s)
        timer.start()
        y = x * 2
        timer.stop()
        timer.sync()
    return y.shape


# The twins: the timer only records its events (the host does not wait), or
# the helper waits for another stream than the one that used the buffer.
def timer_stopped_but_not_synchronized(n):
    x = torch.ones(n, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        timer = Timer(s)
        timer.start()
        y = x * 2
        timer.stop()
    return y.shape
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'x' is released on the current stream while stream 's' may still use it


def helper_waits_for_another_stream(n):
    x = torch.ones(n, device="cuda")
    s = torch.cuda.Stream()
    other = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = x * 2
    wait_for(other)
    return y.shape
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'x' is released on the current stream while stream 's' may still use it


def timer_of_another_stream(n):
    x = torch.ones(n, device="cuda")
    s = torch.cuda.Stream()
    other = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        timer = Timer(other)
        y = x * 2
        timer.sync()
    return y.shape
    # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'x' is released on the current stream while stream 's' may still use it
