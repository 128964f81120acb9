"""accelerate's cpu_offload: the weights live in CPU memory and each module's
are copied to the GPU for its forward and dropped after it (inference)."""
import torch

from workload_common import finish, parse, report_loss, timed_loop, batch

options = parse("accelerate cpu_offload inference", steps=5)
from accelerate import cpu_offload  # noqa: E402

torch.manual_seed(0)
# Linear layers: accelerate's hooks move each module's own parameters (a
# TransformerEncoderLayer's attention reads in_proj_weight past them).
d = options.d_model
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                                                  torch.nn.Linear(4 * d, d))
                              for _ in range(options.layers)]).eval()
cpu_offload(model, execution_device=torch.device("cuda"))
outputs = []


def step(i):
    with torch.no_grad():
        outputs.append(model(batch(options, i)).float().square().mean())


timed_loop(options, step)
values = torch.stack(outputs).cpu()
report_loss(values)
finish(bool(torch.isfinite(values).all()), "non-finite output")
