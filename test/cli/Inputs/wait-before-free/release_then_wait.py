import torch


def release_then_wait(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    del w
    ag.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(ag):
        nxt = torch.zeros(n, device="cuda")
    return y, nxt


def wait_then_release(n, ag):
    with torch.cuda.stream(ag):
        w = torch.ones(n, device="cuda")
    torch.cuda.current_stream().wait_stream(ag)
    y = w * 2
    ag.wait_stream(torch.cuda.current_stream())
    del w
    with torch.cuda.stream(ag):
        nxt = torch.zeros(n, device="cuda")
    return y, nxt
