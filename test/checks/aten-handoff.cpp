// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
//
// Hand-off to the caller: a tensor allocated on a side stream that only the
// callee knows is returned. The caller
// drops it on its own stream's schedule, but the allocator releases it on
// the side stream, which the caller never waits on: warn at the return,
// unless the tensor is rebound (record_stream) or allocated on the caller's
// stream. Also the summaries: a helper's own exit state, projected.

#include "aten_test.h"

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

// FSDP2-like reduce-scatter: the output is allocated on the reduce-scatter
// stream and returned after the join.
at::Tensor reduceScatterOnSide(const at::Tensor &grad, int64_t shard) {
  CUDAStream rs = c10::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready, done;
  ready.record();
  ready.block(rs);
  at::Tensor out;
  {
    CUDAStreamGuard onRs(rs);
    out = at::empty({shard}, grad.options());
    out.copy_(grad.narrow(0, 0, shard), /*non_blocking=*/true);
  }
  done.record(rs);
  done.block(c10::cuda::getCurrentCUDAStream());
  return out;
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'out' is handed to the caller but is released on stream 'rs', which the caller does not know; its uses on the caller's stream will not be ordered before that release
  // CHECK-NOTES: :[[@LINE-7]]:11: note: 'out' allocated on stream 'rs' here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: allocate it on the caller's stream, or rebind it to the caller's stream after the join (record_stream, set_stream)
}

// Allocated on the caller's stream, used on the side stream, joined: correct.
at::Tensor reduceScatterCallerAllocates(const at::Tensor &grad, int64_t shard) {
  CUDAStream rs = c10::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready, done;
  at::Tensor out = at::empty({shard}, grad.options());
  ready.record();
  ready.block(rs);
  {
    CUDAStreamGuard onRs(rs);
    out.copy_(grad.narrow(0, 0, shard), /*non_blocking=*/true);
  }
  done.record(rs);
  done.block(c10::cuda::getCurrentCUDAStream());
  return out;
}

// Rebound to the caller's stream with record_stream: correct.
at::Tensor reduceScatterRecorded(const at::Tensor &grad, int64_t shard) {
  CUDAStream rs = c10::cuda::getStreamFromPool();
  at::Tensor out;
  {
    CUDAStreamGuard onRs(rs);
    out = at::empty({shard}, grad.options());
  }
  out.record_stream(c10::cuda::getCurrentCUDAStream());
  return out;
}

// The same through the allocator's own call on the tensor's storage.
at::Tensor reduceScatterRecordedThroughTheAllocator(const at::Tensor &grad, int64_t shard) {
  CUDAStream rs = c10::cuda::getStreamFromPool();
  at::Tensor out;
  {
    CUDAStreamGuard onRs(rs);
    out = at::empty({shard}, grad.options());
  }
  c10::cuda::CUDACachingAllocator::recordStream(out.storage().data_ptr(),
                                                c10::cuda::getCurrentCUDAStream());
  return out;
}

// Under a CUDAMultiStreamGuard the current stream is one of its streams, which
// one is not known: the op there is skipped, not taken for a use on the
// caller's current stream (which would race with the release on 'ag').
void opUnderAMultiStreamGuard(CUDAStream ag, c10::ArrayRef<CUDAStream> streams, int64_t n) {
  at::Tensor t;
  {
    CUDAStreamGuard onAg(ag);
    t = at::empty({n}, test::cuda());
  }
  c10::cuda::CUDAMultiStreamGuard onEach(streams);
  t.add_(1);
}

// The side stream is the caller's (a parameter): the caller can order it.
at::Tensor allocateOnGivenStream(CUDAStream ag, int64_t n) {
  CUDAStreamGuard onAg(ag);
  return at::empty({n}, test::cuda());
}

// A helper that syncs only on one branch: the caller's release is not
// ordered on the other (a summary is the helper's exit state, not a replay).
void maybeSync(CUDAStream s, bool c) {
  if (c)
    s.synchronize();
}

void conditionalSyncHelper(CUDAStream ag, CUDAStream compute, int64_t n,
                           bool c) {
  at::Tensor w = allocateOnGivenStream(ag, n);
  {
    CUDAStreamGuard onCompute(compute);
    w.add_(1);
  }
  maybeSync(compute, c);
  w.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'w' is released on stream 'ag' while stream 'compute' may still use it
}

// A helper that returns a buffer still in use on 'compute': the caller's
// release on 'ag' races.
float *produceAndUse(CUDAStream ag, CUDAStream compute, size_t n) {
  float *p;
  cudaMallocAsync(&p, n, ag);
  cudaMemsetAsync(p, 0, n, compute);
  return p;
}

void callerFreesReturnedBuffer(CUDAStream ag, CUDAStream compute, size_t n) {
  float *p = produceAndUse(ag, compute, n);
  cudaFreeAsync(p, ag);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'p' is released on stream 'ag' while stream 'compute' may still use it
}
