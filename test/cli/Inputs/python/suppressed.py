import torch


def gather(side):
    with torch.cuda.stream(side):
        return torch.empty(64, device="cuda")


def nolint_named(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf  # NOLINT(streamlife-free-before-wait)


def nolint_bare(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf  # NOLINT


def noqa_named(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf  # noqa: E501, streamlife-free-before-wait


def noqa_glob(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf  # noqa: streamlife-*


def nolint_next_line(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    # NOLINTNEXTLINE(streamlife-free-before-wait)
    del buf


# Another check's name suppresses nothing: still reported.
def noqa_other_check(side, compute):
    buf = gather(side)
    compute.wait_stream(side)
    with torch.cuda.stream(compute):
        out = buf * 2
    del buf  # noqa: streamlife-use-before-alloc
