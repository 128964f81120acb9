import torch


class RecordedPayload:
    def __init__(self):
        self.streams = []

    def record_stream(self, stream):
        self.streams.append(stream)


def test_record_stream_of_a_payload():
    from relay.agent import record_inputs

    payload = RecordedPayload()
    stream = torch.cuda.Stream()
    record_inputs({"mask": payload}, stream)
    assert payload.streams == [stream]


def test_record_stream_defers_reuse():
    from relay.agent import record_inputs

    h2d = torch.cuda.Stream()
    forward = torch.cuda.Stream()
    ready = torch.cuda.Event()
    with torch.cuda.stream(h2d):
        tensor = torch.full((1024,), 7, device="cuda")
        ready.record()
    forward.wait_event(ready)
    record_inputs({"delta": tensor}, forward)
    with torch.cuda.stream(forward):
        observed = tensor.clone()
    del tensor
    with torch.cuda.stream(h2d):
        replacement = torch.zeros((1024,), device="cuda")
    forward.synchronize()
    return observed, replacement


def test_record_stream_on_another_stream():
    from relay.agent import record_inputs

    h2d = torch.cuda.Stream()
    forward = torch.cuda.Stream()
    other = torch.cuda.Stream()
    ready = torch.cuda.Event()
    with torch.cuda.stream(h2d):
        tensor = torch.full((1024,), 7, device="cuda")
        ready.record()
    forward.wait_event(ready)
    record_inputs({"delta": tensor}, other)
    with torch.cuda.stream(forward):
        observed = tensor.clone()
    del tensor
    with torch.cuda.stream(h2d):
        replacement = torch.zeros((1024,), device="cuda")
    forward.synchronize()
    return observed, replacement
