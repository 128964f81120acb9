// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
//
// Tensors kept alive in containers (N buffers in flight): an entry lives
// until it is removed, and removing the oldest entry is its release. The
// allocation stream must wait on the entry's event first: wait-then-pop is
// clean, pop-then-wait (or pop with no wait) is flagged at the pop.

#include "aten_test.h"
#include <deque>
#include <tuple>
#include <utility>
#include <vector>

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

at::Tensor allGather(CUDAStream ag, int64_t n, double layer) {
  CUDAStreamGuard onAg(ag);
  return at::full({n}, layer, test::cuda());
}

struct InFlight {
  at::Tensor params;
  at::cuda::CUDAEvent done;
};

at::cuda::CUDAEvent forward(const at::Tensor &params, CUDAStream compute) {
  CUDAStreamGuard onCompute(compute);
  at::Tensor out = params.mul(2);
  at::cuda::CUDAEvent done;
  done.record(compute);
  return done;
}

// N-deep queue of structs, right: the oldest entry's event, then the pop.
void queueWaitThenPop(CUDAStream ag, CUDAStream compute, int64_t n, int layers,
                      size_t depth) {
  std::deque<InFlight> inFlight;
  for (int layer = 1; layer <= layers; ++layer) {
    if (inFlight.size() == depth) {
      inFlight.front().done.block(ag);
      inFlight.pop_front();
    }
    at::Tensor params = allGather(ag, n, layer);
    inFlight.push_back(InFlight{params, forward(params, compute)});
  }
  while (!inFlight.empty()) {
    inFlight.front().done.block(ag);
    inFlight.pop_front();
  }
}

// Wrong: the pop releases the oldest tensor, the wait comes after it.
void queuePopThenWait(CUDAStream ag, CUDAStream compute, int64_t n, int layers,
                      size_t depth) {
  std::deque<InFlight> inFlight;
  for (int layer = 1; layer <= layers; ++layer) {
    if (inFlight.size() == depth) {
      at::cuda::CUDAEvent oldest = std::move(inFlight.front().done);
      inFlight.pop_front();
      // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'inFlight.pop_front()' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
      // CHECK-NOTES: :[[@LINE+6]]:25: note: 'params' allocated on stream 'ag' here
      // CHECK-NOTES: :[[@LINE+6]]:41: note: used on stream 'compute' here
      // CHECK-NOTES: :[[@LINE+5]]:41: note: the use happens in an earlier loop iteration than the release
      // CHECK-NOTES: :[[@LINE+1]]:7: note: stream 'ag' waits for 'compute' only after the release
      oldest.block(ag);
    }
    at::Tensor params = allGather(ag, n, layer);
    inFlight.push_back(InFlight{params, forward(params, compute)});
  }
}

// pairs in a deque: wait on `.second`, then pop; and the missing wait.
void pairQueue(CUDAStream ag, CUDAStream compute, int64_t n, int layers) {
  std::deque<std::pair<at::Tensor, at::cuda::CUDAEvent>> q;
  for (int layer = 1; layer <= layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    q.emplace_back(params, forward(params, compute));
    if (q.size() > 2) {
      q.front().second.block(ag);
      q.pop_front();
    }
  }
  while (!q.empty())
    q.pop_front();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'q.pop_front()' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
}

// tuples: std::get<1>(q.front()) is the event. A host sync also orders.
void tupleQueue(CUDAStream ag, CUDAStream compute, int64_t n, int layers) {
  std::deque<std::tuple<at::Tensor, at::cuda::CUDAEvent>> q;
  for (int layer = 1; layer <= layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    q.emplace_back(params, forward(params, compute));
    if (q.size() > 3) {
      std::get<1>(q.front()).synchronize();
      q.pop_front();
    }
  }
}

// A vector used as a FIFO: erase(begin()) is the pop.
void vectorFifo(CUDAStream ag, CUDAStream compute, int64_t n, int layers) {
  std::vector<InFlight> ring;
  for (int layer = 1; layer <= layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    ring.push_back(InFlight{params, forward(params, compute)});
    if (ring.size() > 2)
      ring.erase(ring.begin());
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'ring.erase(ring.begin())' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
  }
}

// Waiting on one path only is not enough. The pop drops the entry, but
// `params` still owns the tensor: it is released when `params` goes.
void waitOnOnePath(CUDAStream ag, CUDAStream compute, int64_t n, bool fast) {
  std::deque<InFlight> q;
  at::Tensor params = allGather(ag, n, 1);
  q.push_back(InFlight{params, forward(params, compute)});
  if (!fast)
    q.front().done.block(ag);
  q.pop_front();
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'params' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]

// The same with the entry as the tensor's only owner: released at the pop.
void waitOnOnePathOnlyOwner(CUDAStream ag, CUDAStream compute, int64_t n,
                            bool fast) {
  std::deque<InFlight> q;
  {
    at::Tensor params = allGather(ag, n, 1);
    q.push_back(InFlight{params, forward(params, compute)});
  }
  if (!fast)
    q.front().done.block(ag);
  q.pop_front();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'q.pop_front()' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
}

// Containers of plain tensors (no event) are keepalives the checker does not
// second-guess; the whole device being synchronized also orders.
void plainTensorQueue(CUDAStream ag, CUDAStream compute, int64_t n) {
  std::deque<at::Tensor> keep;
  keep.push_back(allGather(ag, n, 1));
  keep.pop_front();
  std::deque<InFlight> q;
  at::Tensor params = allGather(ag, n, 2);
  q.push_back(InFlight{params, forward(params, compute)});
  c10::cuda::device_synchronize();
  q.pop_front();
}
