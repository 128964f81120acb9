# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-record-stream-in-loop
#
# A loop that calls a function which calls record_stream (itself, or through
# its own calls, up to three calls below it) repeats record_stream once an
# iteration as surely as a loop that calls it itself: the call in the loop
# is reported, with the story down to the record_stream call. A loop nearer
# the record_stream call is that loop's finding, not the outer one's.
import torch
from offload_helpers import onload


class Group:
    def _transfer(self, tensor, source, consumer):
        tensor.data = source.to("cuda", non_blocking=True)
        tensor.data.record_stream(consumer)

    def onload_all(self, modules, consumer):
        for m in modules:
            for param in m.parameters():
                self._transfer(param, param.data, consumer)
                # CHECK-NOTES: :[[@LINE-1]]:17: warning: record_stream on 'tensor.data' in 'Group._transfer', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
                # CHECK-NOTES: :[[@LINE-3]]:13: note: inside this loop
                # CHECK-NOTES: :[[@LINE-8]]:9: note: 'Group._transfer' calls record_stream on 'tensor.data' here
                # CHECK-NOTES: :[[@LINE-9]]:9: note: no automatic fix: instead, keep 'tensor.data' with an event recorded on the consumer stream after its use in a keepalive queue, and drop it only after the allocation stream waited on that event


def keep(t, consumer):
    t.record_stream(consumer)


def keep_through(t, consumer):
    keep(t, consumer)


def two_calls_deep(tensors, consumer):
    for t in tensors:
        keep_through(t, consumer)
        # CHECK-NOTES: :[[@LINE-1]]:9: warning: record_stream on 't' in 'keep', reached from a call of 'keep_through' inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
        # CHECK-NOTES: :[[@LINE-3]]:5: note: inside this loop
        # CHECK-NOTES: :[[@LINE-8]]:5: note: 'keep_through' calls 'keep' here
        # CHECK-NOTES: :[[@LINE-13]]:5: note: 'keep' calls record_stream on 't' here
        # CHECK-NOTES: :[[@LINE-14]]:5: note: no automatic fix: instead, keep 't' with an event recorded on the consumer stream after its use in a keepalive queue, and drop it only after the allocation stream waited on that event


def while_loop(queue, consumer):
    while queue:
        keep(queue.pop(), consumer)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' in 'keep', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


# A helper of an imported module: its record_stream call is named where it is.
def imported_helper(params, consumer):
    for p in params:
        onload(p, consumer)
        # CHECK-NOTES: :[[@LINE-1]]:9: warning: record_stream on 'param.data' in 'onload', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
        # CHECK-NOTES: :[[@LINE-3]]:5: note: inside this loop
        # CHECK-NOTES: {{.*}}offload_helpers.py:9:5: note: 'onload' calls record_stream on 'param.data' here
        # CHECK-NOTES: {{.*}}offload_helpers.py:9:5: note: no automatic fix


# A comprehension's element is called once an item.
def comprehension(tensors, consumer):
    return [keep(t, consumer) for t in tensors]
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: record_stream on 't' in 'keep', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


# The record is decided by the caller's flag (flag-arguments.py): a call
# that passes False records nothing.
def keep_if(t, consumer, record):
    if record:
        t.record_stream(consumer)


def flag_on(tensors, consumer):
    for t in tensors:
        keep_if(t, consumer, True)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' in 'keep_if', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


def flag_off(tensors, consumer):
    for t in tensors:
        keep_if(t, consumer, False)


# --- not reported ---------------------------------------------------------

# Called once, outside any loop: the API's intended use.
def one_off(t, consumer):
    keep(t, consumer)


# A callee that records nothing.
def scale(t):
    return t * 2


def no_record(tensors):
    for t in tensors:
        scale(t)


# The callee's own loop records: that loop is the finding (reported there),
# and an outer loop that calls it is not reported again, even when the
# callee also records once before its loop.
def keep_all(tensors, consumer):
    keep(tensors[0], consumer)
    for t in tensors:
        t.record_stream(consumer)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


def epochs(batches, consumer, n):
    for epoch in range(n):
        keep_all(batches, consumer)


# The callee calls the recording helper from a loop of its own: that call
# is the finding, not the outer loop's call.
def train(loader, consumer):
    for batch in loader:
        keep(batch, consumer)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' in 'keep', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


def run_epochs(loader, consumer, n):
    for epoch in range(n):
        train(loader, consumer)


# The function the loop calls and three calls below it are followed; a
# record_stream call further down is not.
def depth3(t, consumer):
    keep_through(t, consumer)


def depth4(t, consumer):
    depth3(t, consumer)


def three_below(tensors, consumer):
    for t in tensors:
        depth4(t, consumer)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' in 'keep', reached from a call of 'depth4' inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


def depth5(t, consumer):
    depth4(t, consumer)


def four_below(tensors, consumer):
    for t in tensors:
        depth5(t, consumer)


# A recursive function that never records.
def walk(t, n):
    if n:
        walk(t, n - 1)


def recursion(tensors):
    for t in tensors:
        walk(t, 3)
