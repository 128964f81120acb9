"""Memory pressure on the caching allocator: a per-process memory fraction small
enough that the allocator frees cached segments and retries (OOM retry),
blocks record_stream'd on a side stream still pending, checkpointed attention
(torch.utils.checkpoint around scaled_dot_product_attention, cuBLAS split-K
matmuls), batch sizes that change every step, and empty_cache()."""
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from workload_common import finish, parse, report_loss, timed_loop

options = parse("memory pressure: memory fraction, OOM retry, record_stream, checkpointing", steps=12,
                d_model=1024, batch=16, seq=256)
budget = 3 << 30  # bytes the process may hold
total = torch.cuda.get_device_properties(0).total_memory
try:
    torch.cuda.set_per_process_memory_fraction(budget / total)
    limited = True
except RuntimeError as error:  # a backend without a fraction
    print(f"note: no memory fraction: {error}")
    limited = False
torch.manual_seed(0)
d = options.d_model
qkv = torch.nn.Linear(d, 3 * d).cuda()
proj = torch.nn.Linear(d, d).cuda()
mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d)).cuda()
params = list(qkv.parameters()) + list(proj.parameters()) + list(mlp.parameters())
optimizer = torch.optim.AdamW(params, lr=1e-4)
side = torch.cuda.Stream()
losses = []
retries_before = torch.cuda.memory_stats().get("num_alloc_retries", 0)


def block(x):
    b, s, _ = x.shape
    q, k, v = qkv(x).view(b, s, 3, 8, d // 8).unbind(2)
    a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
    x = x + proj(a.transpose(1, 2).reshape(b, s, d))
    return x + mlp(x)


def step(i):
    b = options.batch + (i % 4) * 8  # a different shape every step: fragmentation
    g = torch.Generator(device="cuda").manual_seed(i)
    x = torch.randn(b, options.seq, d, device="cuda", generator=g)
    y = x
    for _ in range(3):
        y = checkpoint(block, y, use_reentrant=False)
    loss = y.float().square().mean()
    loss.backward()
    # A copy of the activations on a side stream, kept alive by record_stream.
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        snapshot = (x * 0.5).sum(dim=-1)
    snapshot.record_stream(torch.cuda.current_stream())
    x.record_stream(side)
    del x, snapshot
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.detach())
    if i % 5 == 4:
        torch.cuda.empty_cache()
    # Fill the budget so the next steps must free cached segments and retry.
    if limited and i % 3 == 0:
        try:
            hog = torch.empty(int(budget * 0.55), dtype=torch.uint8, device="cuda")
            del hog
        except torch.OutOfMemoryError:
            pass


timed_loop(options, step)
values = torch.stack(losses).cpu()
retries = torch.cuda.memory_stats().get("num_alloc_retries", 0) - retries_before
print(f"allocator retries: {retries}")
report_loss(values)
finish(bool(torch.isfinite(values).all()), "non-finite loss")
