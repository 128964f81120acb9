"""Activation offloading through saved_tensors_hooks: saved activations go to
pinned host memory on an offload stream (after the compute stream's event) and
come back on the compute stream's demand; the result equals the plain run."""
import torch

from workload_common import finish, parse, timed_loop

options = parse("activation offloading", steps=10)
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.GELU())
                              for _ in range(4)]).cuda()
offload_stream = torch.cuda.Stream()


def pack(tensor):
    if not tensor.is_cuda:
        return tensor
    ready = torch.cuda.current_stream().record_event()
    host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
    with torch.cuda.stream(offload_stream):
        offload_stream.wait_event(ready)
        host.copy_(tensor, non_blocking=True)
        tensor.record_stream(offload_stream)  # the device copy is read on this stream
    done = offload_stream.record_event()
    return host, done, tensor.device


def unpack(packed):
    if isinstance(packed, torch.Tensor):
        return packed
    host, done, device = packed
    torch.cuda.current_stream().wait_event(done)
    return host.to(device, non_blocking=True)


x = torch.randn(64, 1024, device="cuda")
ok = []


def step(i):
    model.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        model(x).square().sum().backward()
    offloaded = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().sum().backward()
    ok.append(all(torch.allclose(a, p.grad, rtol=1e-4, atol=1e-5)
                  for a, p in zip(offloaded, model.parameters())))


timed_loop(options, step)
finish(all(ok), "offloaded gradients differ")
