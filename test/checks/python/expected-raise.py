# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A test that expects a call to raise (`pytest.raises`, `assertRaises`):
# the call fails its checks before it enqueues any work, so its arguments
# are not used on the stream current around it. The statements before the
# one that raises do run.
import unittest

import pytest
import torch


def test_second_stream_is_refused(ws, n):
    inp = torch.randn(n, device="cuda")
    ws.all_reduce(inp)
    other = torch.cuda.Stream()
    with torch.cuda.stream(other), pytest.raises(RuntimeError, match="already bound"):
        ws.all_reduce(inp)
    torch.cuda.synchronize()


class StreamTest(unittest.TestCase):
    def test_refused_with_assert_raises(self, ws, n):
        inp = torch.randn(n, device="cuda")
        other = torch.cuda.Stream()
        with torch.cuda.stream(other):
            with self.assertRaises(RuntimeError):
                ws.all_reduce(inp)
        torch.cuda.synchronize()


# The twins: the same call outside the expected-raise block, and a use that
# comes before the statement that raises.
def test_second_stream_is_used(ws, n):
    inp = torch.randn(n, device="cuda")
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):
        ws.all_reduce(inp)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'inp' is used on stream 'other' before 'other' is ordered after its allocation on the current stream
    torch.cuda.synchronize()


def test_use_before_the_raising_call(ws, n):
    inp = torch.randn(n, device="cuda")
    other = torch.cuda.Stream()
    with torch.cuda.stream(other), pytest.raises(ValueError):
        y = inp * 2
        # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'inp' is used on stream 'other' before 'other' is ordered after its allocation on the current stream
        ws.all_reduce(y)
    torch.cuda.synchronize()
