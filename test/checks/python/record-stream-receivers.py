# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-record-stream-in-loop
#
# record_stream is a tensor's method; a batch or context class with a method
# of that name (torchrec's Pipelineable, a dataclass of tensors) is not a
# tensor, and its method is not the allocator's record_stream.
import dataclasses
from typing import TypeVar

import torch


class KeyedJaggedTensor:
    def record_stream(self, stream):
        self._values.record_stream(stream)


@dataclasses.dataclass
class Batch:
    dense_features: torch.Tensor
    sparse_features: KeyedJaggedTensor
    labels: torch.Tensor

    def record_stream(self, stream):
        self.dense_features.record_stream(stream)
        self.sparse_features.record_stream(stream)
        self.labels.record_stream(stream)


In = TypeVar("In", bound=Batch)


def copy_batches(batches, side):
    for batch in batches:
        with torch.cuda.stream(side):
            batch.record_stream(torch.cuda.current_stream())


def annotated_batches(batches, side):
    for b in batches:
        b: In
        b.record_stream(side)


def typed_parameter(items, side):
    for i in range(len(items)):
        recorded(items[i], side)


def recorded(batch: In, side):
    for _ in range(2):
        batch.record_stream(side)


# A tensor's record_stream in a loop is still the allocator's.
def tensors_in_a_loop(tensors: list, side):
    for t in tensors:
        t: torch.Tensor
        t.record_stream(side)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 't' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release


# A view of a tensor (`p.data`, `w.T`) is a tensor too: its record_stream is
# the allocator's, though the file has classes with a method of that name.
def tensor_views_in_a_loop(params: list, side):
    for p in params:
        p: torch.nn.Parameter
        p.data.record_stream(side)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 'p.data' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release
        p.T.record_stream(side)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: record_stream on 'p.T' inside a loop


# ... and a view of something else is not known to be one.
def views_of_batches(batches, side):
    for b in batches:
        b.data.record_stream(side)
