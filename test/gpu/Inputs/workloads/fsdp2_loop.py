"""FSDP2 (fully_shard) training loop: 4 TransformerEncoderLayers, AdamW with
foreach on or off. Run under torchrun (any number of ranks; NCCL).

FSDP2 allocates each sharded gradient on its reduce-scatter stream; AdamW reads
it on the default stream and zero_grad() drops it with no ordering back to the
reduce-scatter stream. Under PyTorch's caching allocator that is safe (the
reduce-scatter stream waits on the default stream before it allocates again).
Under backend:cudaMallocAsync the drop is a cudaFreeAsync on the reduce-scatter
stream that is not ordered after AdamW's read: a use-after-free by CUDA's
contract, which PyTorch fixes in FSDP2 by recording the consumer stream on the
reduce-scatter output when the allocator frees eagerly (pytorch/pytorch#193686).
--record-grad-streams applies that fix from the outside."""
import os
import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

from workload_common import finish, parse, report_loss, timed_loop, transformer, batch

options = parse("FSDP2 training loop", record_grad_streams=True)
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
    if options.record_grad_streams:
        for p in model.parameters():
            if p.grad is not None:
                p.grad.to_local().record_stream(torch.cuda.current_stream())
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.detach())


timed_loop(options, step)
values = torch.stack(losses).cpu()
report_loss(values)
dist.destroy_process_group()
finish(bool(torch.isfinite(values).all()), "non-finite loss")
