# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# `torch.tensor(data, device="cuda")` copies host data with a blocking copy:
# the current stream is synchronized before the call returns, so a side
# stream that uses the tensor afterwards needs no wait for its allocation.
# `torch.frombuffer` makes a host tensor over a Python buffer.
import io

import torch


def index_tensors_from_a_mapping(cache, src_to_dst, side):
    src_idx, dst_idx = list(zip(*src_to_dst.items()))
    src_idx = torch.tensor(src_idx, device="cuda")
    dst_idx = torch.tensor(dst_idx, device="cuda")
    with torch.cuda.stream(side):
        cache.index_copy_(0, dst_idx, cache[src_idx])
        done = side.record_event()
    torch.cuda.current_stream().wait_event(done)
    return src_idx, dst_idx


def block_ids_from_a_tuple(pool, side):
    blocks = torch.tensor((0, 2, 0), device="cuda")
    with torch.cuda.stream(side):
        pool.index_fill_(0, blocks, 0)
    side.synchronize()
    return blocks


def serialized_state_copied_on_a_side_stream(state, chunk, side):
    raw = io.BytesIO()
    torch.save(state, raw)
    view = raw.getbuffer()
    with torch.cuda.stream(side):
        chunk.copy_(torch.frombuffer(view, dtype=torch.uint8), non_blocking=True)
    torch.cuda.current_stream().wait_stream(side)


# The twins: a factory that only allocates (no copy, no synchronization), and
# torch.tensor of a device tensor made by a call (a device-to-device copy).
def zeros_used_on_a_side_stream(pool, side):
    blocks = torch.zeros(3, dtype=torch.long, device="cuda")
    with torch.cuda.stream(side):
        pool.index_fill_(0, blocks, 0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'blocks' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    side.synchronize()
    return blocks


def copy_of_a_device_tensor_used_on_a_side_stream(pool, n, side):
    blocks = torch.tensor(torch.arange(n, device="cuda"), device="cuda")
    with torch.cuda.stream(side):
        pool.index_fill_(0, blocks, 0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'blocks' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    side.synchronize()
    return blocks


# A blocking construction in one arm of a conditional expression synchronizes
# on that path only: the side stream's use is reported for the other.
def scale_made_on_one_path_only(pool, n, fp8, side):
    blocks = torch.zeros(n, dtype=torch.long, device="cuda")
    scale = torch.tensor([2.0], device="cuda") if fp8 else None
    with torch.cuda.stream(side):
        pool.index_fill_(0, blocks, 0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'blocks' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
    side.synchronize()
    return blocks, scale
