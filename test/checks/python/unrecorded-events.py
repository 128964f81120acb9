# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A wait on an event this function made and has not recorded orders nothing
# (CUDA: a wait on an event never recorded completes at once). An event that
# comes from elsewhere (a parameter, an attribute), or that was handed to a
# function streamlife cannot see, may have been recorded where the function
# cannot see it: its wait is taken to order everything before it.
import torch
from kernels import stage1


def made_here_never_recorded(n):
    aux = torch.cuda.Stream()
    ready = torch.cuda.Event()
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(aux):
        ready.wait()
        out.zero_()
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is used on stream 'aux' before 'aux' is ordered after its allocation on the current stream
    torch.cuda.current_stream().wait_stream(aux)
    return out


def made_here_and_recorded(n):
    aux = torch.cuda.Stream()
    ready = torch.cuda.Event()
    out = torch.empty(n, device="cuda")
    ready.record()
    with torch.cuda.stream(aux):
        ready.wait()
        out.zero_()
    torch.cuda.current_stream().wait_stream(aux)
    return out


def made_here_and_handed_to_a_launcher(n):
    aux = torch.cuda.Stream()
    ready = torch.cuda.Event()
    out = torch.empty(n, device="cuda")
    stage1(out, ready)
    with torch.cuda.stream(aux):
        ready.wait()
        out.zero_()
    torch.cuda.current_stream().wait_stream(aux)
    return out


def from_the_caller(n, ready):
    aux = torch.cuda.Stream()
    out = torch.empty(n, device="cuda")
    with torch.cuda.stream(aux):
        ready.wait()
        out.zero_()
    torch.cuda.current_stream().wait_stream(aux)
    return out
