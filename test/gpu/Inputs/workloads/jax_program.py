"""A JAX program (jit-compiled MLP training steps): JAX allocates through its
own allocator and launches through the driver; the validator must have
nothing to report and break nothing. Not a PyTorch program: no torch import."""
import argparse
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
parser = argparse.ArgumentParser(description="JAX MLP training steps")
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--warmup", type=int, default=2)
options = parser.parse_args()
try:
    import jax
    import jax.numpy as jnp
except ImportError:
    print("error: JAX is not installed", file=sys.stderr)
    sys.exit(2)

key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
params = {"w1": jax.random.normal(k1, (512, 2048)) * 0.02, "w2": jax.random.normal(k2, (2048, 1)) * 0.02}
x = jax.random.normal(k3, (256, 512))
y = jnp.sum(x, axis=1, keepdims=True)


def loss_fn(p):
    return jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)


@jax.jit
def train_step(p):
    loss, grads = jax.value_and_grad(loss_fn)(p)
    return jax.tree_util.tree_map(lambda a, g: a - 1e-2 * g, p, grads), loss


losses = []
for _ in range(options.warmup + options.steps):
    params, loss = train_step(params)
    losses.append(float(loss))
print(f"loss: {losses[-1]:.4g}")
ok = all(l == l for l in losses) and losses[-1] < losses[0]
print("result: ok" if ok else "result: wrong (loss did not decrease)")
