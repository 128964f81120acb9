"""CUDA-graph replay: a forward+backward captured once, replayed with new data
copied into the static input; the replayed loss equals the eager one."""
import torch

from workload_common import finish, parse, timed_loop

options = parse("CUDA graph replay", steps=20)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda()
static_x = torch.randn(128, 512, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):  # warm up on a side stream, as the docs say
    for _ in range(3):
        model(static_x).square().mean().backward()
torch.cuda.current_stream().wait_stream(side)
model.zero_grad(set_to_none=False)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static_loss = model(static_x).square().mean()
    static_loss.backward()
ok = []


def step(i):
    data = torch.randn(128, 512, device="cuda")
    static_x.copy_(data)
    graph.replay()
    eager = model(data).square().mean()
    ok.append(torch.allclose(static_loss, eager, rtol=1e-4, atol=1e-6))


timed_loop(options, step)
finish(all(ok), "replayed loss differs")
