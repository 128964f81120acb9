# A local module imported by modules.py: its functions are followed through
# summaries.
import torch


def gather(stream, n):
    """Allocates on `stream` and returns the new tensor."""
    with torch.cuda.stream(stream):
        out = torch.empty(n, device="cuda")
    return out


def consume(t):
    """Reads `t` on the caller's current stream."""
    return t.sum()


def hand_off(producer, consumer):
    """Orders `consumer` after everything `producer` enqueued."""
    consumer.wait_event(producer.record_event())
