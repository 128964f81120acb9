# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# Indexing with a boolean tensor (`t[t >= 0]`, `t[~mask]`) copies the
# selected elements into a new tensor whose size the host needs first:
# PyTorch runs nonzero and waits for the current stream. The current
# stream's earlier work, allocations included, is then complete.
import torch


def write_back_rows_not_in_cache(lookup, indices: torch.Tensor, weights: torch.Tensor, side):
    linear = indices * 2
    locations: torch.Tensor = lookup(linear)
    cached = locations >= 0
    hits = locations[cached]
    with torch.cuda.stream(side):
        missing = ~cached
        rows = linear[missing]
        values = weights[missing]
        host_rows = rows.cpu()
        host_values = values.cpu()
    return hits, host_rows, host_values


# The twin: a slice is a view (no copy, no host wait), so the side stream
# uses the block before it is ordered after its allocation.
def write_back_a_slice(indices: torch.Tensor, side):
    linear = indices * 2
    head = linear[:16]
    with torch.cuda.stream(side):
        rows = head.cpu()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'head' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    return rows


# Masks defined from each other end the look-up instead of looping.
def masks_defined_from_each_other(x: torch.Tensor, flag):
    if flag:
        a = ~b
    else:
        b = ~a
    return x[a], x[b]


# A parameter indexed by a mask gives a copy: the parameter keeps its own
# block, which the side stream may read after the host waited for the
# current stream.
def parameter_indexed_by_masks(weights: torch.Tensor, locations: torch.Tensor, side):
    cached = locations >= 0
    cache_weights = weights[cached]
    with torch.cuda.stream(side):
        missing = ~cached
        values = weights[missing]
        host_values = values.cpu()
    return cache_weights, host_values


# The mask's operand is known to be a tensor only from a use further down:
# the copy is still the local's own object, not the parameter rebound.
def mask_of_a_name_typed_later(weights: torch.Tensor, found, side):
    hit = found == 3
    picked = weights[hit]
    found.zero_()
    with torch.cuda.stream(side):
        values = weights[~hit]
        host_values = values.cpu()
    return picked, host_values
