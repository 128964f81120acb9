import torch
from mylib import device_api


class Pipe:
    def __init__(self):
        self.side = device_api().current_stream()
