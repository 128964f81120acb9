import torch


def prefetch(requests, contexts, side):
    for name, request in requests.items():
        data = request.wait()
        context = contexts[name]
        torch.cuda.current_stream().wait_stream(side)
        data.record_stream(torch.cuda.current_stream())
        context.record_stream(torch.cuda.current_stream())
