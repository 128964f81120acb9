import torch

from depot.core.moe.transfer import to_host


class Router:
    copy_stream = None

    def __init__(self):
        if Router.copy_stream is None:
            Router.copy_stream = torch.cuda.Stream()

    def counts_to_host(self, counts: torch.Tensor):
        on_side = torch.cuda.current_stream() != self.copy_stream
        if on_side:
            self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            counts = to_host(counts, record_stream=on_side)
        self.copied = self.copy_stream.record_event()
        return counts

    def route(self, routing_map: torch.Tensor):
        self.counts = routing_map.sum(dim=0).long()
        self.counts = self.counts_to_host(self.counts)

    # The twin: the helper is not told to record the stream it reads on.
    def counts_to_host_unrecorded(self, counts: torch.Tensor):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            counts = to_host(counts)
        return counts

    def route_unrecorded(self, routing_map: torch.Tensor):
        self.counts = routing_map.sum(dim=0).long()
        self.counts = self.counts_to_host_unrecorded(self.counts)

    # The helper told to record the stream, always: clean where the helper
    # is seen, a race where it is an unknown call.
    def counts_to_host_recorded(self, counts: torch.Tensor):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            counts = to_host(counts, record_stream=True)
        return counts

    def route_recorded(self, routing_map: torch.Tensor):
        self.counts = routing_map.sum(dim=0).long()
        self.counts = self.counts_to_host_recorded(self.counts)
