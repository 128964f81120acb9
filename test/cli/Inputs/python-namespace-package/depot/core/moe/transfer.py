import torch


def to_host(tensor, as_numpy=False, record_stream=False):
    if torch.is_tensor(tensor) and tensor.is_cuda:
        host = tensor.to(torch.device("cpu"), non_blocking=True)
        if as_numpy:
            host = host.numpy()
        if record_stream:
            tensor.record_stream(torch.cuda.current_stream())
        tensor = host
    return tensor
