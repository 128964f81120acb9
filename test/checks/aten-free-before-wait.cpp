// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
//
// streamlife-free-before-wait on PyTorch C++ code, against the real torch
// 2.11 headers: c10::cuda::CUDAStream streams, guards and the current stream,
// tensors allocated on the current stream and released when their last owner
// goes, at::cuda::CUDAEvent / c10::Event ordering, record_stream.

#include "aten_test.h"
#include <utility>

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

//===--- Streams as c10::cuda::CUDAStream values ---------------------------===//

// The implicit `operator cudaStream_t()` is the stream itself.
void rawBufferOnTorchStreams(size_t n) {
  CUDAStream ag = c10::cuda::getStreamFromPool();
  CUDAStream compute = c10::cuda::getStreamFromPool();
  float *buf;
  cudaMallocAsync(&buf, n, ag);
  cudaMemsetAsync(buf, 0, n, compute);
  cudaFreeAsync(buf, ag);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'ag' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE-5]]:3: note: record an event on 'compute' after this use and make 'ag' wait on it before the release
}

// `.stream()` is the same stream.
void rawBufferThroughDotStream(size_t n, CUDAStream ag, CUDAStream compute) {
  float *buf;
  cudaMallocAsync(&buf, n, ag.stream());
  cudaMemsetAsync(buf, 0, n, compute.stream());
  cudaFreeAsync(buf, ag.stream());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'ag' while stream 'compute' may still use it
}

// Correct: the consumer records an at::cuda::CUDAEvent, the allocation stream
// blocks on it (a false warning before this was modelled).
void cudaEventRecordBlock(size_t n, CUDAStream ag, CUDAStream compute) {
  float *buf;
  cudaMallocAsync(&buf, n, ag);
  cudaMemsetAsync(buf, 0, n, compute);
  at::cuda::CUDAEvent done;
  done.record(compute);
  done.block(ag);
  cudaFreeAsync(buf, ag);
}

// The event recorded on the wrong stream orders nothing.
void cudaEventOnWrongStream(size_t n, CUDAStream ag, CUDAStream compute) {
  float *buf;
  cudaMallocAsync(&buf, n, ag);
  cudaMemsetAsync(buf, 0, n, compute);
  at::cuda::CUDAEvent done;
  done.record(ag);
  done.block(ag);
  cudaFreeAsync(buf, ag);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'ag' while stream 'compute' may still use it
}

// record() takes the current stream; recordOnce(s) records on s.
void cudaEventRecordCurrent(size_t n, CUDAStream ag, CUDAStream compute) {
  float *buf;
  cudaMallocAsync(&buf, n, ag);
  at::cuda::CUDAEvent done, other;
  {
    CUDAStreamGuard onCompute(compute);
    cudaMemsetAsync(buf, 0, n, c10::cuda::getCurrentCUDAStream());
    done.record();
  }
  done.block(ag);
  cudaFreeAsync(buf, ag);

  float *buf2;
  cudaMallocAsync(&buf2, n, ag);
  cudaMemsetAsync(buf2, 0, n, compute);
  other.recordOnce(compute);
  other.block(ag);
  cudaFreeAsync(buf2, ag);
}

// The host waits: CUDAStream::synchronize(), CUDAEvent::synchronize().
void hostSyncs(size_t n, CUDAStream ag, CUDAStream compute) {
  float *a, *b;
  cudaMallocAsync(&a, n, ag);
  cudaMemsetAsync(a, 0, n, compute);
  compute.synchronize();
  cudaFreeAsync(a, ag);

  cudaMallocAsync(&b, n, ag);
  cudaMemsetAsync(b, 0, n, compute);
  at::cuda::CUDAEvent done;
  done.record(compute);
  done.synchronize();
  cudaFreeAsync(b, ag);
}

// c10::Event: the device-generic event, on c10::Stream.
void genericEvent(size_t n, CUDAStream ag, CUDAStream compute) {
  float *buf;
  cudaMallocAsync(&buf, n, ag);
  cudaMemsetAsync(buf, 0, n, compute);
  c10::Event done(c10::DeviceType::CUDA);
  done.record(compute);
  done.block(ag);
  cudaFreeAsync(buf, ag);
}

void genericEventNoBlock(size_t n, CUDAStream ag, CUDAStream compute) {
  float *buf;
  cudaMallocAsync(&buf, n, ag);
  cudaMemsetAsync(buf, 0, n, compute);
  c10::Event done(c10::DeviceType::CUDA);
  done.record(compute);
  cudaFreeAsync(buf, ag);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'ag' while stream 'compute' may still use it
}

//===--- Tensors: allocated on the current stream, released by the last owner//

// The tensor dies at the end of its scope: released on 'ag', its allocation
// stream, while the kernel on 'compute' may still read it.
void tensorDiesAtScopeEnd(int64_t n, CUDAStream ag, CUDAStream compute) {
  {
    CUDAStreamGuard onAg(ag);
    at::Tensor w = at::empty({n}, test::cuda());
    cudaMemsetAsync(w.data_ptr<float>(), 0, n * 4, compute);
  }
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'w' is released on stream 'ag' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:20: note: 'w' allocated on stream 'ag' here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: record an event on 'compute' after this use and make 'ag' wait on it before the release
}

// ATen ops run on the current stream: a use of 'w' on 'compute'.
void atenOpUnderGuard(int64_t n, CUDAStream ag, CUDAStream compute) {
  CUDAStreamGuard onAg(ag);
  at::Tensor w = at::zeros({n}, test::cuda());
  {
    CUDAStreamGuard onCompute(compute);
    w.mul_(2);
  }
  w.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'w' is released on stream 'ag' while stream 'compute' may still use it
}

// Nested guards restore the outer stream: the last op runs on 'ag' again.
void nestedGuards(int64_t n, CUDAStream ag, CUDAStream compute) {
  CUDAStreamGuard onAg(ag);
  at::Tensor w = at::empty({n}, test::cuda());
  {
    CUDAStreamGuard onCompute(compute);
    {
      CUDAStreamGuard backOnAg(ag);
      w.add_(1);
    }
  }
  w.reset();
}

void nestedGuardsInnerUse(int64_t n, CUDAStream ag, CUDAStream compute) {
  CUDAStreamGuard onAg(ag);
  at::Tensor w = at::empty({n}, test::cuda());
  {
    CUDAStreamGuard onCompute(compute);
    {
      c10::cuda::OptionalCUDAStreamGuard stillCompute(static_cast<c10::Stream>(compute));
      w.add_(1);
    }
  }
  w = at::Tensor();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'w' is released on stream 'ag' while stream 'compute' may still use it
}

// setCurrentCUDAStream changes the current stream until changed back.
void setCurrentStream(int64_t n, CUDAStream ag, CUDAStream compute) {
  c10::cuda::setCurrentCUDAStream(ag);
  at::Tensor w = at::empty({n}, test::cuda());
  c10::cuda::setCurrentCUDAStream(compute);
  w.add_(1);
  c10::cuda::setCurrentCUDAStream(ag);
  w.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'w' is released on stream 'ag' while stream 'compute' may still use it
}

// The seed's buggy pipeline: the reassignment releases the previous layer's
// parameters while the forward on 'compute' still reads them.
at::Tensor allGather(CUDAStream ag, int64_t n, double layer) {
  CUDAStreamGuard onAg(ag);
  return at::full({n}, layer, test::cuda());
}

void noLifetimeManagement(CUDAStream ag, CUDAStream compute, int64_t n,
                          int layers) {
  at::Tensor prev = allGather(ag, n, 1);
  at::cuda::CUDAEvent ready;
  for (int layer = 2; layer <= layers; ++layer) {
    ready.record(ag);
    ready.block(compute);
    {
      CUDAStreamGuard onCompute(compute);
      at::Tensor out = prev.mul(2);
    }
    prev = allGather(ag, n, layer);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'prev' is released on stream 'ag' while stream 'compute' may still use it
    // CHECK-NOTES: :[[@LINE-11]]:21: note: 'prev' allocated on stream 'ag' here
    // CHECK-NOTES: :[[@LINE-5]]:24: note: used on stream 'compute' here
    // CHECK-NOTES: :[[@LINE-6]]:24: note: record an event on 'compute' after this use and make 'ag' wait on it before the release
  }
}

// Stall: wait, then release.
void stallProducer(CUDAStream ag, CUDAStream compute, int64_t n, int layers) {
  at::Tensor prev = allGather(ag, n, 1);
  at::cuda::CUDAEvent ready, done;
  for (int layer = 2; layer <= layers; ++layer) {
    ready.record(ag);
    ready.block(compute);
    {
      CUDAStreamGuard onCompute(compute);
      at::Tensor out = prev.mul(2);
    }
    done.record(compute);
    done.block(ag);
    prev = allGather(ag, n, layer);
  }
}

// Reset before the wait: the release is not ordered after the forward.
void resetBeforeWait(CUDAStream ag, CUDAStream compute, int64_t n) {
  at::Tensor params = allGather(ag, n, 1);
  at::cuda::CUDAEvent done;
  {
    CUDAStreamGuard onCompute(compute);
    at::Tensor out = params.mul(2);
  }
  done.record(compute);
  params.reset();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'params' is released on stream 'ag' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-9]]:23: note: 'params' allocated on stream 'ag' here
  // CHECK-NOTES: :[[@LINE-6]]:22: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: stream 'ag' waits for 'compute' only after the release
  done.block(ag);
}

// Copies share the tensor: the scope end of 'w' is not a release while
// 'keep' still holds it; keep's reset after the wait is clean.
void copiesShare(CUDAStream ag, CUDAStream compute, int64_t n) {
  at::Tensor keep;
  at::cuda::CUDAEvent done;
  {
    at::Tensor w = allGather(ag, n, 1);
    CUDAStreamGuard onCompute(compute);
    w.add_(1);
    keep = w;
  }
  done.record(compute);
  done.block(ag);
  keep.reset();
}

// A move transfers the tensor: the reset of the moved-from name is nothing,
// the new owner's release is the race.
void moveTransfers(CUDAStream ag, CUDAStream compute, int64_t n) {
  at::Tensor w = allGather(ag, n, 1);
  {
    CUDAStreamGuard onCompute(compute);
    w.add_(1);
  }
  at::Tensor owner = std::move(w);
  w.reset();
  owner.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'owner' is released on stream 'ag' while stream 'compute' may still use it
}

// record_stream tells the allocator 'compute' also uses the block: the
// release waits for it (the record-stream check only fires in loops).
void recordStreamOnce(CUDAStream ag, CUDAStream compute, int64_t n) {
  at::Tensor w = allGather(ag, n, 1);
  {
    CUDAStreamGuard onCompute(compute);
    w.add_(1);
  }
  w.record_stream(compute);
  w.reset();
}

// Recorded for the wrong consumer: 'compute' still races.
void recordStreamWrongConsumer(CUDAStream ag, CUDAStream compute,
                               CUDAStream other, int64_t n) {
  at::Tensor w = allGather(ag, n, 1);
  {
    CUDAStreamGuard onCompute(compute);
    w.add_(1);
  }
  c10::cuda::CUDACachingAllocator::recordStream(w.storage().data_ptr(), other);
  w.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'w' is released on stream 'ag' while stream 'compute' may still use it
}

// Tensor-producing calls allocate on the current stream: *_like, clone, to.
void producersUnderGuard(CUDAStream side, CUDAStream compute, at::Tensor in) {
  CUDAStreamGuard onSide(side);
  at::Tensor a = at::empty_like(in);
  at::Tensor b = in.clone();
  at::Tensor c = in.to(at::kCUDA, at::kHalf);
  {
    CUDAStreamGuard onCompute(compute);
    a.copy_(in, /*non_blocking=*/true);
    b.add_(1);
  }
  a.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is released on stream 'side' while stream 'compute' may still use it
  b.reset();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is released on stream 'side' while stream 'compute' may still use it
  c.reset();
}

// Everything on one stream (the caller's current one): nothing to order.
at::Tensor sameStream(at::Tensor x) {
  at::Tensor y = at::empty_like(x);
  y.copy_(x);
  at::Tensor z = y.mul(2);
  return z;
}
