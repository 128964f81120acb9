# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
#
# `from pipeline_helpers import *` brings the module's public functions:
# calls to them are followed like any local call.
import torch
from pipeline_helpers import *


def gathered_then_used_on_the_current_stream():
    ag = torch.cuda.Stream()
    buf = gather(ag, 64)
    torch.cuda.current_stream().wait_stream(ag)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'ag' while the current stream may still use it
