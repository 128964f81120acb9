# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# Device-generic code reaches torch.cuda's stream API through the device
# module: torch.get_device_module(d), getattr(torch, d), a framework's
# wrapper (DeepSpeed's and ColossalAI's get_accelerator(), verl's
# get_torch_device(), FSDP's device_handle), a variable or attribute holding it, and stream contexts
# kept in a variable or an attribute. All of them are torch.cuda's calls.
import contextlib

import torch
from deepspeed.accelerator import get_accelerator
from verl.utils.device import get_device_name, get_torch_device


def accelerator_wrapper(n):
    s = get_accelerator().Stream()
    buf = torch.empty(n, device="cuda")
    with get_accelerator().stream(s):
        y = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 's' may still use it


# verl's wrapper, its stream and event calls.
def torch_device_wrapper(n):
    side = get_torch_device().Stream()
    done = get_torch_device().Event()
    buf = torch.empty(n, device="cuda")
    side.wait_stream(get_torch_device().current_stream())
    with get_torch_device().stream(side):
        y = buf * 2
        done.record()
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 'side' may still use it
    return y


# Its twin: a wrapper the list does not name (verl's get_device_name()
# returns a string): an unknown call, nothing is reported.
def device_name_only(n, side):
    buf = torch.empty(n, device="cuda")
    with get_device_name().stream(side):
        y = buf * 2
    del buf
    return y


def get_device_module(n, dev):
    s = torch.get_device_module(dev).Stream()
    buf = torch.empty(n, device="cuda")
    with torch.get_device_module(dev).stream(s):
        y = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 's' may still use it


def getattr_of_torch(n, dev):
    s = torch.cuda.Stream()
    buf = torch.empty(n, device="cuda")
    with getattr(torch, dev).stream(s):
        y = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 's' may still use it


# The module in a variable; the context in another.
def held_in_variables(n, s):
    acc = get_accelerator()
    buf = torch.empty(n, device="cuda")
    ctx = acc.stream(s)
    with ctx:
        y = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 's' may still use it


# A context made on one path (a null context on the other).
def context_on_some_path(n, s, overlap):
    buf = torch.empty(n, device="cuda")
    if overlap:
        ctx = torch.cuda.stream(s)
    else:
        ctx = contextlib.nullcontext()
    with ctx:
        y = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 's' may still use it


def conditional_context(n, s):
    buf = torch.empty(n, device="cuda")
    with torch.cuda.stream(s) if s is not None else contextlib.nullcontext():
        y = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on the current stream while stream 's' may still use it


# torchrec's pipeline keeps the stream-context function in an attribute.
class Pipeline:
    def __init__(self, device):
        self.side = torch.cuda.Stream()
        self._stream_context = (
            torch.get_device_module(device).stream
            if device.type == "cuda"
            else torch.cuda.stream
        )

    def step(self, n):
        buf = torch.empty(n, device="cuda")
        with self._stream_context(self.side):
            y = buf * 2
        del buf
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'buf' is released on the current stream while stream 'self.side' may still use it

    def step_waited(self, n):
        buf = torch.empty(n, device="cuda")
        with self._stream_context(self.side):
            y = buf * 2
        torch.get_device_module(buf.device).current_stream().wait_stream(self.side)
        del buf


# The same calls ordered correctly are clean.
def accelerator_ordered(n):
    s = get_accelerator().Stream()
    buf = torch.empty(n, device="cuda")
    with get_accelerator().stream(s):
        y = buf * 2
    get_accelerator().current_stream().wait_stream(s)
    del buf


# FSDP's device handle.
class Handle:
    def __init__(self):
        self._device_handle = torch.cuda

    def run(self, n):
        s = self._device_handle.Stream()
        buf = torch.empty(n, device="cuda")
        with self._device_handle.stream(s):
            y = buf * 2
        self._device_handle.current_stream().wait_stream(s)
        del buf
