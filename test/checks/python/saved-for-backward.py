# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# A buffer handed to autograd (`ctx.save_for_backward`) lives on after the
# function returns, whatever stream still reads it: also when it reaches the
# call inside a starred concatenation of lists, and through its views.
import torch


class Halo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, side):
        args = [x]
        pad = torch.empty(x.numel() + 2, device="cuda")
        top = pad[:1]
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            top.copy_(x[:1])
        ctx.save_for_backward(*(args + [pad]))
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, None


# The twin: the same forward that does not save the buffer releases it at
# the return while the side stream may still write it.
class HaloNotSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, side):
        args = [x]
        pad = torch.empty(x.numel() + 2, device="cuda")
        top = pad[:1]
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            top.copy_(x[:1])
        ctx.save_for_backward(*args)
        return x
        # CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'top' is released on the current stream while stream 'side' may still use it
