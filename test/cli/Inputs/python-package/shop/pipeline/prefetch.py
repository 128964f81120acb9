import torch

from shop.streamable import Multistreamable


def prefetch(requests, contexts, side):
    for name, request in requests.items():
        data = request.wait()
        context = contexts[name]
        torch.cuda.current_stream().wait_stream(side)
        assert isinstance(data, (torch.Tensor, Multistreamable))
        data.record_stream(torch.cuda.current_stream())
        context.record_stream(torch.cuda.current_stream())


# Only an assertion makes a name a possible tensor for the whole function:
# an `if isinstance(value, torch.Tensor)` test makes value a tensor in its
# own branch and says nothing of its other branches, where the
# Multistreamable branch's record_stream is the class's.
def record_fields(values, side):
    for value in values:
        if isinstance(value, torch.Tensor):
            value.record_stream(side)
        elif isinstance(value, Multistreamable):
            value.record_stream(side)
