# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# A helper that calls record_stream on the tensors of a dict, list or tuple
# it is given (`for t in tensors.values()`, `tensors.get(key)`,
# `tensors[key]`) records the caller's tensors that the display passed to
# it holds: the release after it does not race with the recorded stream's
# work.
import torch

KEYS = ("delta", "mask")


def keep_values_on(tensors, stream):
    for t in tensors.values():
        t.record_stream(stream)


def keep_keys_on(inputs, stream):
    for key in KEYS:
        value = inputs.get(key)
        if value is None:
            continue
        if isinstance(value, torch.Tensor):
            if value.is_cuda:
                value.record_stream(stream)
            continue
        value.record_stream(stream)


def keep_each_on(tensors, stream):
    for t in tensors:
        t.record_stream(stream)


def keep_first_on(tensors, stream):
    tensors[0].record_stream(stream)


def hand_over_values(n, h2d, fwd):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_values_on({"t": t}, fwd)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z


def hand_over_keys(n, h2d, fwd):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_keys_on({"delta": t}, fwd)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z


def hand_over_list(n, h2d, fwd):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_each_on([t], fwd)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z


def hand_over_first(n, h2d, fwd):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_first_on((t,), fwd)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z


# The twin: the helper records another stream than the consumer's.
def hand_over_wrong_stream(n, h2d, fwd, other):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_values_on({"t": t}, other)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 't' is released on stream 'h2d' while stream 'fwd' may still use it
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z


# ... and a dict that does not hold the tensor records nothing of it.
def hand_over_other_tensor(n, h2d, fwd, u):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_values_on({"u": u}, fwd)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 't' is released on stream 'h2d' while stream 'fwd' may still use it
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z


# ... also when the helper skips the keys that hold None (`if value is
# None: continue`): that entry's None says nothing of the caller's tensor.
def hand_over_keys_wrong_stream(n, h2d, fwd, other):
    with torch.cuda.stream(h2d):
        t = torch.full((n,), 7, device="cuda")
        ev = torch.cuda.Event()
        ev.record()
    fwd.wait_event(ev)
    keep_keys_on({"delta": t}, other)
    with torch.cuda.stream(fwd):
        y = t.clone()
    del t
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 't' is released on stream 'h2d' while stream 'fwd' may still use it
    with torch.cuda.stream(h2d):
        z = torch.zeros(n, device="cuda")
    return y, z
