from depot.core.kernels import jit


def prefill(q, out):
    jit.module().run(q, out)
