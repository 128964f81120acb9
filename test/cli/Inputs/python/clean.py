import torch


def step(side, compute):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    side.wait_event(compute.record_event())
    del buf
