"""A torch.compile'd training step (Inductor: Triton kernels and cuBLAS)."""
import torch

from workload_common import finish, parse, report_loss, timed_loop, transformer, batch

options = parse("torch.compile training step", layers=2, steps=10)
torch.manual_seed(0)
model = transformer(options)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=options.foreach == "on")


@torch.compile
def forward_loss(x):
    return model(x).square().mean()


losses = []


def step(i):
    loss = forward_loss(batch(options, i))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.detach())


timed_loop(options, step)
values = torch.stack(losses).cpu()
report_loss(values)
finish(bool(torch.isfinite(values).all().item()), "non-finite loss")
