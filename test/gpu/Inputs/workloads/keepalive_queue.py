"""An N-deep keepalive queue: weights made on a producer stream, used on the
compute stream; each stays referenced with the compute stream's event until
N newer ones exist, then the producer stream waits on that event before the
reference is dropped (wait before free)."""
import collections

import torch

from workload_common import finish, parse, timed_loop

options = parse("N-deep keepalive queue", steps=20)
depth = 3
producer = torch.cuda.Stream()
compute = torch.cuda.current_stream()
x = torch.ones(256, 1024, device="cuda")
queue = collections.deque()
results = []


def step(i):
    with torch.cuda.stream(producer):
        weights = torch.full((1024, 1024), float(i % 7), device="cuda")
    compute.wait_stream(producer)
    results.append(((x @ weights)[0, 0], 1024.0 * (i % 7)))
    queue.append((weights, compute.record_event()))
    if len(queue) > depth:
        _, used = queue.popleft()
        producer.wait_event(used)  # the allocation stream waits, then the block is released


timed_loop(options, step)
finish(all(float(v) == e for v, e in results), "a product changed")
