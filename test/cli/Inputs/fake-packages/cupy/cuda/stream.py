"""The current stream per thread, as cupy/cuda/stream.pyx keeps it."""
import contextlib
import threading

_state = threading.local()


class Stream(object):
    def __init__(self, ptr):
        self.ptr = ptr


def get_current_stream():
    return Stream(getattr(_state, "ptr", 0))


@contextlib.contextmanager
def using(ptr):
    previous = getattr(_state, "ptr", 0)
    _state.ptr = ptr
    try:
        yield
    finally:
        _state.ptr = previous
