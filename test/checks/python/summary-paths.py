# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=,STRICT -wait-before-free %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=UBA %s streamlife-use-before-alloc
#
# A helper's summary keeps, with each use of a caller's buffer, the orderings
# that held on the path where the use happens. A helper that returns early
# (or loops zero times) does not use the buffer on that path and does not
# wait either; the join of its exit state met the wait away while keeping
# the use, so the caller saw a use on the side stream with no wait before
# it: called directly the code is clean, through the helper it warned.
import torch


def side_copy(inp, side, n):
    if n == 1:
        return inp
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = inp * 2
    torch.cuda.current_stream().wait_stream(side)
    return out


def early_return_helper(side, n):
    t = torch.empty(10, device="cuda")
    t = side_copy(t, side, n)
    return t


def each_on_side(tensors, side):
    for x in tensors:
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            y = x + 1
        torch.cuda.current_stream().wait_stream(side)


def zero_trip_helper(side):
    t = torch.empty(10, device="cuda")
    each_on_side([t], side)
    each_on_side(t, side)
    del t


# The helper's use without its wait is still reported at the caller, where
# the caller's buffer comes from.
def side_copy_no_wait(inp, side, n):
    if n == 1:
        return inp
    with torch.cuda.stream(side):
        out = inp * 2
    torch.cuda.current_stream().wait_stream(side)
    return out


def early_return_helper_no_wait(side, n):
    t = torch.empty(10, device="cuda")
    t = side_copy_no_wait(t, side, n)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:9: warning: 't' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    return t


# A helper that returns its argument on one path and a new tensor on the
# other: on the second path the caller's rebinding drops the argument's last
# reference while the side stream may still read it (a bug on that path).
# The wait comes before anything allocates on the release stream again, so
# only "wait before free" (--wait-before-free) reports it.
def maybe_fresh(inp, side, n):
    if n == 1:
        return inp
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = inp * 2
    return out


def rebinding_to_maybe_the_argument(side, n):
    t = torch.empty(10, device="cuda")
    t = maybe_fresh(t, side, n)
    # CHECK-MESSAGES-STRICT: :[[@LINE-1]]:5: warning: 't' is released on the current stream while stream 'side' may still use it
    torch.cuda.current_stream().wait_stream(side)
    return t
