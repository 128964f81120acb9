"""A Hugging Face transformers causal LM built from a config (no download:
random weights, random token ids), trained with bf16 autocast and fused AdamW."""
import torch

from workload_common import finish, parse, report_loss, timed_loop

options = parse("transformers LM from a config, bf16 autocast, fused AdamW", steps=10, layers=4)
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

torch.manual_seed(0)
config = LlamaConfig(vocab_size=8192, hidden_size=options.d_model, intermediate_size=4 * options.d_model,
                     num_hidden_layers=options.layers, num_attention_heads=8, num_key_value_heads=4,
                     max_position_embeddings=2 * options.seq)
model = LlamaForCausalLM(config).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
losses = []


def step(i):
    g = torch.Generator(device="cuda").manual_seed(i)
    ids = torch.randint(0, config.vocab_size, (options.batch, options.seq), device="cuda", generator=g)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.detach())


timed_loop(options, step)
values = torch.stack(losses).float().cpu()
report_loss(values)
finish(bool(torch.isfinite(values).all()), "non-finite loss")
