# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-use-before-alloc
#
# A branch on a query of the device module that CUDA answers one way is
# decided: the path on which CUDA would skip a wait is no path. DeepSpeed
# makes the current stream wait for its reduction stream only `if not
# get_accelerator().resolves_data_dependency()`, which every accelerator of
# its wrapper answers with is_synchronized_device(): False on CUDA, whose
# streams order nothing by themselves (only HPU's answers True).
import torch
from deepspeed.accelerator import get_accelerator


class Optimizer:
    def overflow_waited(self):
        with get_accelerator().stream(self.reduce_stream):
            overflow = self.tracker.clone().to(torch.uint8)
        if not get_accelerator().resolves_data_dependency():
            get_accelerator().default_stream().wait_stream(self.reduce_stream)
        overflow.add_(1)
        return overflow

    def overflow_waited_unless_synchronized(self):
        with get_accelerator().stream(self.reduce_stream):
            overflow = self.tracker.clone().to(torch.uint8)
        if get_accelerator().is_synchronized_device():
            pass
        else:
            get_accelerator().default_stream().wait_stream(self.reduce_stream)
        overflow.add_(1)
        return overflow

    # A condition CUDA does not answer leaves both paths: on the one that
    # skips the wait the use comes first.
    def overflow_maybe_waited(self):
        with get_accelerator().stream(self.reduce_stream):
            overflow = self.tracker.clone().to(torch.uint8)
        if not get_accelerator().resolves_data_dependency() and self.ordered:
            get_accelerator().default_stream().wait_stream(self.reduce_stream)
        overflow.add_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'overflow' is used on the current stream before the current stream is ordered after its allocation on stream 'self.reduce_stream'
        return overflow

    # The answer is CUDA's: an accelerator that resolves data dependencies
    # would skip the wait, and on CUDA the wait is on every path.
    def overflow_waited_only_where_resolved(self):
        with get_accelerator().stream(self.reduce_stream):
            overflow = self.tracker.clone().to(torch.uint8)
        if get_accelerator().resolves_data_dependency():
            get_accelerator().default_stream().wait_stream(self.reduce_stream)
        overflow.add_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'overflow' is used on the current stream before the current stream is ordered after its allocation on stream 'self.reduce_stream'
        return overflow
