import abc

import torch


class Multistreamable(abc.ABC):
    """An object that can be handed from one stream to another."""

    @abc.abstractmethod
    def record_stream(self, stream: torch.cuda.Stream) -> None:
        ...
