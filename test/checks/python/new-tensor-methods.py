# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# t.new_empty(shape) (new_zeros, new_ones, new_full) makes a tensor with t's
# options and reads nothing of t; t.storage() is metadata. Neither is a use
# of t (fairscale's record_stream helper: `t.new_empty([0]).set_(t.storage())`).
import torch


def options_only(side, n):
    with torch.cuda.stream(side):
        x = torch.rand(n, device="cuda")
    empty = x.new_empty([0])
    zeros = x.new_zeros(n)
    storage = x.storage()
    return empty, zeros, storage


# Reading t is a use: on the current stream before it waited for 'side'.
def reads_it(side, n):
    with torch.cuda.stream(side):
        x = torch.rand(n, device="cuda")
    copy = x.clone()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'x' is used on the current stream before the current stream is ordered after its allocation on stream 'side'
    return copy
