"""A Lightning Trainer.fit on one GPU, with DataLoader worker processes and
pinned memory (the pin-memory thread hands batches to the training loop)."""
import torch

from workload_common import finish, parse, report_loss

options = parse("Lightning Trainer.fit with DataLoader workers", steps=20, layers=2)
import lightning as L  # noqa: E402
from lightning.fabric.plugins.environments import LightningEnvironment  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

torch.manual_seed(0)
losses = []


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 1))

    def training_step(self, batch, index):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        losses.append(loss.detach())
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


data = TensorDataset(torch.randn(4096, 256), torch.randn(4096, 1))
loader = DataLoader(data, batch_size=64, num_workers=2, pin_memory=True, persistent_workers=False)
# One process, no cluster: saying so keeps Lightning from probing for one. Its
# MPI probe imports mpi4py, whose MPI_Init starts Open MPI's singleton daemon
# through ssh/rsh; where neither is on PATH (lit's environment) it aborts the
# process before training, plain or validated alike.
trainer = L.Trainer(max_steps=options.steps, accelerator="gpu", devices=1, logger=False,
                    plugins=[LightningEnvironment()],
                    enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
trainer.fit(Model(), loader)
values = torch.stack(losses).float().cpu()
report_loss(values)
finish(bool(torch.isfinite(values).all()) and len(losses) == options.steps, "training did not run")
