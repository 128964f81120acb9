// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
//
// A helper handed a stream parameter, which allocates a tensor on the
// current stream and writes it on the stream it is given. Read alone, the
// helper may be given any stream. Where it has internal linkage (static, an
// anonymous namespace) and every call of it in the translation unit passes
// the caller's current stream, the parameter is the current stream and the
// helper is right. Where some call passes another stream, none is seen, the
// helper's address is taken or another translation unit may call it, the
// finding stands. (Found on held-out code: NVIDIA/Fuser's
// prepareAlltoallvMetadataGpu, dispatch_combine.cpp.)

#include "aten_test.h"
#include <cuda.h>

namespace {

// Fuser's shape: both callers pass
// static_cast<CUstream>(at::cuda::getCurrentCUDAStream().stream()).
at::Tensor prepareMetadata(const at::Tensor &send, CUstream stream) {
  auto counts = at::empty({4, 4}, test::cuda());
  cudaMemcpyAsync(counts.data_ptr(), send.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice,
                  reinterpret_cast<cudaStream_t>(stream));
  return counts;
}

} // namespace

at::Tensor dispatch(const at::Tensor &x) {
  auto stream =
      static_cast<CUstream>(at::cuda::getCurrentCUDAStream().stream());
  auto metadata = prepareMetadata(x, stream);
  return metadata;
}

at::Tensor combine(const at::Tensor &x) {
  auto stream =
      static_cast<CUstream>(at::cuda::getCurrentCUDAStream().stream());
  return prepareMetadata(x, stream);
}

// The current stream passed directly, converted to the handle.
static void fillDirect(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
}

void callFillDirect(const at::Tensor &x) {
  fillDirect(x, at::cuda::getCurrentCUDAStream());
  fillDirect(x, c10::cuda::getCurrentCUDAStream().stream());
}

// The CUDAStream object kept in a local, passed as the object and as its
// handle.
static void fillObject(const at::Tensor &src, c10::cuda::CUDAStream stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream.stream());
}

void callFillObject(const at::Tensor &x) {
  auto s = at::cuda::getCurrentCUDAStream();
  fillObject(x, s);
  cudaStream_t handle = s;
  fillDirect(x, handle);
}

// A call made under a stream guard passes the guard's stream, which is the
// helper's current stream too.
static void scaleOn(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
}

void scaleAside(const at::Tensor &x, c10::cuda::CUDAStream side) {
  c10::cuda::CUDAStreamGuard guard(side);
  scaleOn(x, at::cuda::getCurrentCUDAStream());
}

// Never called here: any stream.
static void neverCalled(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

// One call passes a stream it created.
static void copyOn(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

void copyHereAndAside(const at::Tensor &x) {
  copyOn(x, at::cuda::getCurrentCUDAStream());
  cudaStream_t created;
  cudaStreamCreate(&created);
  copyOn(x, created);
  cudaStreamSynchronize(created);
  cudaStreamDestroy(created);
}

// The one call passes its own parameter, which may be any stream.
static void copyThrough(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

void forward(const at::Tensor &x, cudaStream_t given) {
  copyThrough(x, given);
}

// External linkage: another translation unit may call it with any stream,
// however this one calls it.
void exported(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

void callExported(const at::Tensor &x) {
  exported(x, at::cuda::getCurrentCUDAStream());
}

// Its address escapes: whoever calls through the pointer may pass any
// stream.
static void callback(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

using Callback = void (*)(const at::Tensor &, cudaStream_t);
Callback registerCallback(const at::Tensor &x) {
  callback(x, at::cuda::getCurrentCUDAStream());
  return &callback;
}

// Called from a lambda, which may run later under another current stream.
static void deferred(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

void callLater(const at::Tensor &x) {
  auto run = [&] { deferred(x, at::cuda::getCurrentCUDAStream()); };
  run();
}

// One call is in a constructor's member initializer, which the lowering
// does not read: the stream it passes is not seen.
static at::Tensor stage(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
  return out;
}

struct Staged {
  Staged(const at::Tensor &x, cudaStream_t side) : out(stage(x, side)) {}
  at::Tensor out;
};

at::Tensor stageHere(const at::Tensor &x) {
  return stage(x, at::cuda::getCurrentCUDAStream());
}

// A helper that hands its own stream parameter on: the inner one is given
// what the outer one is given, the current stream at its one call.
static void copyInner(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
}

static void copyOuter(const at::Tensor &src, cudaStream_t stream) {
  copyInner(src, stream);
}

void callCopyOuter(const at::Tensor &x) {
  copyOuter(x, at::cuda::getCurrentCUDAStream());
}

// Passed on under a guard: the inner helper starts on the guard's stream,
// and its parameter is still the outer helper's entry current stream.
static void shiftInner(const at::Tensor &src, cudaStream_t stream) {
  at::Tensor out = at::empty_like(src);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), 16,
                  cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'stream' before 'stream' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
}

static void shiftOuter(const at::Tensor &src, cudaStream_t stream,
                       c10::cuda::CUDAStream side) {
  c10::cuda::CUDAStreamGuard guard(side);
  shiftInner(src, stream);
}

void callShiftOuter(const at::Tensor &x, c10::cuda::CUDAStream side) {
  shiftOuter(x, at::cuda::getCurrentCUDAStream(), side);
}
