"""A data prefetcher: the next batch is copied host-to-device on a side stream
while the current one trains; the compute stream waits for the copy and
record_stream keeps the batch alive for it (correct)."""
import torch

from workload_common import finish, parse, timed_loop

options = parse("data prefetcher", steps=30)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
host_batches = [torch.randn(256, 1024).pin_memory() for _ in range(4)]
copy_stream = torch.cuda.Stream()


class Prefetcher:
    def __init__(self):
        self.i = 0
        self.preload()

    def preload(self):
        with torch.cuda.stream(copy_stream):
            self.next = host_batches[self.i % len(host_batches)].cuda(non_blocking=True)
        self.i += 1

    def take(self):
        torch.cuda.current_stream().wait_stream(copy_stream)
        current = self.next
        current.record_stream(torch.cuda.current_stream())
        self.preload()
        return current


prefetcher = Prefetcher()
checks = []


def step(i):
    x = prefetcher.take()
    loss = model(x).square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    checks.append(torch.allclose(x.sum(), x.sum()))


timed_loop(options, step)
finish(all(checks), "batch changed while in use")
