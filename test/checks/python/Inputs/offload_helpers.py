# A local module imported by record-stream-helper-calls.py: a helper that
# moves one tensor to the device and records it on the consumer stream.
import torch


def onload(param, consumer):
    """Copies `param` to the device and keeps it for `consumer`'s work."""
    param.data = param.data.to("cuda", non_blocking=True)
    param.data.record_stream(consumer)
