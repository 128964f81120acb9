"""accelerate's cpu_offload: the weights live in CPU memory and each module's
are copied to the GPU for its forward and dropped after it (inference)."""
import torch

from workload_common import finish, parse, report_loss, timed_loop, transformer, batch

options = parse("accelerate cpu_offload inference", steps=5)
from accelerate import cpu_offload  # noqa: E402

torch.manual_seed(0)
model = transformer(options).cpu().eval()
cpu_offload(model, execution_device=torch.device("cuda"))
outputs = []


def step(i):
    with torch.no_grad():
        outputs.append(model(batch(options, i)).float().square().mean())


timed_loop(options, step)
values = torch.stack(outputs).cpu()
report_loss(values)
finish(bool(torch.isfinite(values).all()), "non-finite output")
