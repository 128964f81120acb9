import torch

INPUT_KEYS = ("delta", "mask")


def record_inputs(inputs, stream):
    """Keeps each device tensor of inputs alive until stream's work is done."""
    for key in INPUT_KEYS:
        value = inputs.get(key)
        if value is None:
            continue
        if isinstance(value, torch.Tensor):
            if value.is_cuda:
                value.record_stream(stream)
            continue
        value.record_stream(stream)
