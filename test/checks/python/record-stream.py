# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-record-stream-in-loop
#
# t.record_stream(s) inside a loop (for, while, a list, set or dict
# comprehension's element; not a nested function, a lambda or a generator
# expression) hands buffer reuse to the allocator's event polling.
import torch


def in_for_loop(side, compute, layers):
    for layer in range(layers):
        with torch.cuda.stream(side):
            buf = torch.empty(64, device="cuda")
        compute.wait_stream(side)
        out = buf * 2
        buf.record_stream(compute)
        # CHECK-NOTES: :[[@LINE-1]]:9: warning: record_stream on 'buf' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
        # CHECK-NOTES: :[[@LINE-7]]:5: note: inside this loop
        # CHECK-NOTES: :[[@LINE-3]]:9: note: no automatic fix: instead, keep 'buf' with an event recorded on the consumer stream after its use in a keepalive queue, and drop it only after the allocation stream waited on that event
        del buf


def in_while_loop(side, compute, queue):
    while queue:
        t = queue.pop()
        t.record_stream(compute)
        # CHECK-NOTES: :[[@LINE-1]]:9: warning: record_stream on 't' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
        # CHECK-NOTES: :[[@LINE-4]]:5: note: inside this loop


# A comprehension runs its element once an item.
def in_comprehension(tensors, compute):
    [t.record_stream(compute) for t in tensors]
    # CHECK-NOTES: :[[@LINE-1]]:6: warning: record_stream on 't' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
    # CHECK-NOTES: :[[@LINE-2]]:5: note: inside this loop
    # CHECK-NOTES: :[[@LINE-3]]:6: note: no automatic fix: instead, keep 't' with an event recorded on the consumer stream after its use in a keepalive queue, and drop it only after the allocation stream waited on that event


def in_dict_comprehension(named, compute):
    return {k: v.record_stream(compute) for k, v in named.items()}
    # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: record_stream on 'v' inside a loop


# A generator expression runs later, or never: not analysed.
def in_generator(tensors, compute):
    gen = (t.record_stream(compute) for t in tensors)
    return gen


# A one-off hand-off outside any loop is the API's intended use.
def outside_loop(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    out = buf * 2
    buf.record_stream(compute)
    del buf


# A function defined inside the loop body runs elsewhere.
def nested_function_in_loop(compute, tensors):
    hooks = []
    for t in tensors:
        def hook(x):
            x.record_stream(compute)
        hooks.append(hook)


# A function lowered once per value class of `mode` (its tests order
# streams in two `if` statements): the call in the loop is reported once.
def per_mode(tensors, side, mode):
    if mode == 1:
        side.wait_stream(torch.cuda.current_stream())
    for t in tensors:
        t.record_stream(side)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
    if mode == 2:
        torch.cuda.current_stream().wait_stream(side)


# A function lowered again for a flag its caller passes (flag-arguments.py):
# the call in the loop is still reported once.
def release_grads(params, set_to_none=True):
    for p in params:
        if set_to_none:
            p.grad.record_stream(torch.cuda.current_stream())
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: record_stream on 'p.grad' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
            p.grad = None


def step(params):
    release_grads(params)
