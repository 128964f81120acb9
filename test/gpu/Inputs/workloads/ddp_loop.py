"""DistributedDataParallel training loop over the same transformer. torchrun."""
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from workload_common import finish, parse, report_loss, timed_loop, transformer, batch

options = parse("DDP training loop")
rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
torch.manual_seed(0)
model = DistributedDataParallel(transformer(options), device_ids=[rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=options.foreach == "on")
losses = []


def step(i):
    loss = model(batch(options, i + 97 * dist.get_rank())).square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.detach())


timed_loop(options, step)
values = torch.stack(losses).cpu()
report_loss(values)
dist.destroy_process_group()
finish(bool(torch.isfinite(values).all()), "non-finite loss")
