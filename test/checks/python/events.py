# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=,STRICT -wait-before-free %s streamlife-free-before-wait
#
# Events and ordering: s.record_event(), torch.cuda.Event() with e.record(s)
# and e.record(), s.wait_event(e), e.wait(s), s.wait_stream(o),
# e.synchronize(), s.synchronize(), torch.cuda.synchronize(), and async
# collectives with their work.wait().
import torch
import torch.distributed as dist


def alloc_on(side):
    with torch.cuda.stream(side):
        return torch.empty(64, device="cuda")


# torch.cuda.Event() recorded on the consumer with e.record(s), waited on by
# the allocation stream with e.wait(s): clean.
def event_record_and_wait():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = torch.cuda.Event()
    done.record(compute)
    done.wait(side)
    del buf


# e.record() without a stream records on the current stream.
def event_record_current():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    done = torch.cuda.Event()
    done.record()
    side.wait_event(done)
    del buf


# The event is recorded on the allocation stream, not the consumer: the wait
# orders nothing about the use.
def event_on_wrong_stream():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = side.record_event()
    compute.wait_event(done)
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-7]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-6]]:11: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-7]]:11: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# The consumer waits instead of the allocation stream.
def wait_on_wrong_stream():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = compute.record_event()
    compute.wait_event(done)
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-7]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-6]]:11: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-5]]:5: note: the wait is on stream 'compute', not on the release stream 'side'
    # CHECK-NOTES: :[[@LINE-8]]:11: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# s.wait_stream(o) on the allocation stream orders everything o enqueued.
def wait_stream_back():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    side.wait_stream(compute)
    del buf


# Host syncs: the event, the consumer stream, the device.
def host_sync_event():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = compute.record_event()
    done.synchronize()
    del buf


def host_sync_stream():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    compute.synchronize()
    del buf


def host_sync_device():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    torch.cuda.synchronize()
    del buf


# A sync of the allocation stream does not wait for the consumer.
def host_sync_wrong_stream():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    side.synchronize()
    del buf
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it
    # CHECK-NOTES: :[[@LINE-6]]:11: note: 'buf' allocated on stream 'side' here
    # CHECK-NOTES: :[[@LINE-5]]:11: note: used on stream 'compute' here
    # CHECK-NOTES: :[[@LINE-6]]:11: note: record an event on 'compute' after this use and make 'side' wait on it before the release


# An async collective runs on the process group's stream, and its work
# handle stashes the tensors it reads and writes until the collective
# completes (ProcessGroupNCCL): dropping the last reference before
# work.wait() releases nothing early.
def collective_released_before_wait():
    grad = torch.empty(64, device="cuda")
    work = dist.all_reduce(grad, async_op=True)
    del grad
    work.wait()


# The same for temporaries made in the call (they once made findings without
# a source site, which aborted the sort of the diagnostics).
def collectives_on_temporaries(x, y, z):
    a = dist.all_gather_into_tensor(x, y.contiguous(), async_op=True)
    b = dist.all_gather_into_tensor(x, z.contiguous(), async_op=True)
    return a, b


def collective_waited():
    grad = torch.empty(64, device="cuda")
    work = dist.all_reduce(grad, async_op=True)
    work.wait()
    del grad


# A synchronous collective runs on the current stream.
def collective_sync():
    grad = torch.empty(64, device="cuda")
    dist.all_reduce(grad)
    del grad


def collective_sync_on_side_stream_released_on_current():
    side = torch.cuda.Stream()
    grad = torch.empty(64, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(grad)
    del grad
    # CHECK-NOTES: :[[@LINE-1]]:5: warning: 'grad' is released on the current stream while stream 'side' may still use it
    # CHECK-NOTES: :[[@LINE-6]]:12: note: 'grad' allocated on the current stream here
    # CHECK-NOTES: :[[@LINE-4]]:9: note: used on stream 'side' here
    # CHECK-NOTES: :[[@LINE-5]]:9: note: record an event on 'side' after this use and make the current stream wait on it before the release


# Two consumers, each waited for only after the release: each late-wait note
# names the consumer of its own wait (both once named the first consumer).
# The wait comes before anything allocates on the release stream again, so
# only "wait before free" (--wait-before-free) reports it.
def two_late_waits():
    left = torch.cuda.Stream()
    right = torch.cuda.Stream()
    main = torch.cuda.current_stream()
    buf = torch.empty(64, device="cuda")
    left.wait_stream(main)
    right.wait_stream(main)
    with torch.cuda.stream(left):
        a = buf * 2
    with torch.cuda.stream(right):
        b = buf * 3
    left_done = left.record_event()
    right_done = right.record_event()
    del buf
    # CHECK-NOTES-STRICT: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'main' while stream 'left' may still use it
    # CHECK-NOTES-STRICT: :[[@LINE-11]]:11: note: 'buf' allocated on stream 'main' here
    # CHECK-NOTES-STRICT: :[[@LINE-8]]:13: note: used on stream 'left' here
    # CHECK-NOTES-STRICT: :[[@LINE-7]]:13: note: used on stream 'right' here
    # CHECK-NOTES-STRICT: :[[@LINE+3]]:5: note: stream 'main' waits for 'left' only after the release
    # CHECK-NOTES-STRICT: :[[@LINE+3]]:5: note: stream 'main' waits for 'right' only after the release
    # CHECK-NOTES-STRICT: :[[@LINE-10]]:13: note: record an event on 'right' after this use and make 'main' wait on it before the release
    main.wait_event(left_done)
    main.wait_event(right_done)
