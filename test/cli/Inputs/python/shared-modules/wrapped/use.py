import torch
from ..common.broken import half
from ..common.pipes import Pipe


def f(p: Pipe, n):
    buf = torch.empty(n, device="cuda")
    with torch.cuda.stream(p.side):
        y = buf * 2
    del buf
