"""FSDP2 (fully_shard) training loop: 4 TransformerEncoderLayers, AdamW with
foreach on or off. Run under torchrun (any number of ranks; NCCL)."""
import os
import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

from workload_common import finish, parse, report_loss, timed_loop, transformer, batch

options = parse("FSDP2 training loop")
rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
torch.manual_seed(0)
model = transformer(options)
for layer in model:
    fully_shard(layer)
fully_shard(model)
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
