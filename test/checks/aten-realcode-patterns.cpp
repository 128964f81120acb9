// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
//
// Reductions, written for this suite, of the ordering patterns met in the
// real PyTorch-based code swept for issue 10 (ProcessGroupNCCL.cpp,
// aten/native/cuda/Copy.cu, DeepSpeed's compile/z3.cpp): events held through
// a shared_ptr or an event-pool handle (`ev->record(s)`, `ev->block(s)`),
// the collective's start/end event pair, the two-way barrier of a
// cross-stream copy, and a hand-off by record_stream. Each correct form is
// clean; dropping its one ordering step is flagged.

#include "aten_test.h"
#include <memory>

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

//===--- Collective: start event, work on the comm stream, end event ------===//

// The comm stream waits for the caller's current stream, works on the
// buffer, records its end event, and the current stream blocks on it before
// the buffer (allocated on the current stream) goes away.
void collectiveEndEventBlocksCaller(CUDAStream comm, int64_t n) {
  at::Tensor buf = at::empty({n}, test::cuda());
  auto start = std::make_shared<at::cuda::CUDAEvent>();
  start->record(c10::cuda::getCurrentCUDAStream());
  start->block(comm);
  {
    CUDAStreamGuard onComm(comm);
    buf.mul_(2);
  }
  auto end = std::make_shared<at::cuda::CUDAEvent>();
  end->record(comm);
  end->block(c10::cuda::getCurrentCUDAStream());
}

// The end event is recorded but nobody blocks on it.
void collectiveEndEventNeverBlocked(CUDAStream comm, int64_t n) {
  at::Tensor buf = at::empty({n}, test::cuda());
  auto start = std::make_shared<at::cuda::CUDAEvent>();
  start->record(c10::cuda::getCurrentCUDAStream());
  start->block(comm);
  {
    CUDAStreamGuard onComm(comm);
    buf.mul_(2);
  }
  auto end = std::make_shared<at::cuda::CUDAEvent>();
  end->record(comm);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'buf' is released on the current stream while stream 'comm' may still use it [streamlife-free-before-wait]

//===--- Cross-stream copy: two-way barrier with pooled events -------------===//

void pooledEventBarrier(at::cuda::CUDAEventPool &pool, CUDAStream copy,
                        int64_t n) {
  at::Tensor dst = at::empty({n}, test::cuda());
  auto dstReady = pool.get(0);
  dstReady->record(c10::cuda::getCurrentCUDAStream());
  dstReady->block(copy);
  {
    CUDAStreamGuard onCopy(copy);
    dst.fill_(1);
  }
  auto srcReady = pool.get(0);
  srcReady->record(copy);
  srcReady->block(c10::cuda::getCurrentCUDAStream());
}

// The second half of the barrier is missing.
void pooledEventHalfBarrier(at::cuda::CUDAEventPool &pool, CUDAStream copy,
                            int64_t n) {
  at::Tensor dst = at::empty({n}, test::cuda());
  auto dstReady = pool.get(0);
  dstReady->record(c10::cuda::getCurrentCUDAStream());
  dstReady->block(copy);
  {
    CUDAStreamGuard onCopy(copy);
    dst.fill_(1);
  }
  auto srcReady = pool.get(0);
  srcReady->record(copy);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'dst' is released on the current stream while stream 'copy' may still use it [streamlife-free-before-wait]

//===--- Offload: hand-off to the offload stream by record_stream ----------===//

void offloadHandedOff(CUDAStream offload, int64_t n) {
  at::Tensor t = at::empty({n}, test::cuda());
  at::cuda::CUDAEvent computed;
  computed.record(c10::cuda::getCurrentCUDAStream());
  computed.block(offload);
  {
    CUDAStreamGuard onOffload(offload);
    t.add_(1);
  }
  t.record_stream(offload);
}

void offloadNotHandedOff(CUDAStream offload, int64_t n) {
  at::Tensor t = at::empty({n}, test::cuda());
  at::cuda::CUDAEvent computed;
  computed.record(c10::cuda::getCurrentCUDAStream());
  computed.block(offload);
  {
    CUDAStreamGuard onOffload(offload);
    t.add_(1);
  }
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 't' is released on the current stream while stream 'offload' may still use it [streamlife-free-before-wait]
