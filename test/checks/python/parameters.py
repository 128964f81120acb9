# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# Unannotated parameters used the way only tensors are (`.view`, `.copy_`,
# torch's ops) are tensors; so is a parameter's `.grad`. Rebinding one to a
# new tensor (`grad = grad / n`) makes a tensor on the current stream.
import torch


def rebinding_a_parameter(grad, n, s):
    grad = grad / n
    with torch.cuda.stream(s):
        grad.view(-1).mul_(2)
    del grad
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'grad' is released on the current stream while stream 's' may still use it


def rebinding_ordered(grad, n, s):
    grad = grad / n
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        grad.view(-1).mul_(2)
    torch.cuda.current_stream().wait_stream(s)
    del grad


def a_parameters_gradient(p, s):
    g = p.grad * 2
    with torch.cuda.stream(s):
        h = g + 1
    del g
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'g' is released on the current stream while stream 's' may still use it


# A number stays a number: `block * n + i` makes no tensor.
def index_arithmetic(block, n, i, s):
    offset = block * n + i
    with torch.cuda.stream(s):
        y = offset + 1
    del offset
