import torch


def step(side:
    pass
