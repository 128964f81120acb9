# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=UBA %s streamlife-use-before-alloc
#
# Work handles of async collectives kept in lists and waited in loops: each
# wait makes the current stream wait for the collective. (A list of handles
# was not connected to its work, and the buffers read that way warned.)
import torch
import torch.distributed as dist


def waited_in_a_loop(n):
    recv = torch.empty(n, device="cuda")
    send = torch.empty(n, device="cuda")
    reqs = [dist.all_to_all_single(recv, send, async_op=True)]
    for r in reqs:
        r.wait()
    out = recv * 2
    return out


def appended_then_waited(parts):
    handles = []
    for p in parts:
        handles.append(dist.all_reduce(p, async_op=True))
    for h in handles:
        h.wait()


def waited_in_a_comprehension(xs):
    works = [dist.all_reduce(x, async_op=True) for x in xs]
    [w.wait() for w in works]


# The collective's stream waits for the current stream before it starts,
# not for a side stream the buffer was allocated on.
def side_stream_buffer_in_a_list(n):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        recv = torch.empty(n, device="cuda")
    reqs = [dist.all_reduce(recv, async_op=True)]
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:13: warning: 'recv' is used on stream 'all_reduce' before 'all_reduce' is ordered after its allocation on stream 'side'
    for r in reqs:
        r.wait()
