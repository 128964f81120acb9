// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -- -std=c++17 %torch_include -I%cuda_path/include -I%S/Inputs/aten
//
// Per-device current streams. A tensor made with options on another device
// (`src.options().device(dst)`) is allocated on that device's current
// stream; `getCurrentCUDAStream(d)` is device d's current stream; a device
// guard makes it the current one for its scope. Work on the source device's
// stream into such a tensor must first wait for an event from the
// destination's stream (the crash's shape: a peer copy into a fresh block).
// Code that names one device only keeps the current stream for all of them
// (`OptionalCUDAGuard g(at::device_of(x))`, `getCurrentCUDAStream(x.get_device())`
// are the current stream there).

#include "aten_test.h"
#include <ATen/DeviceGuard.h>
#include <ATen/ops/empty_like.h>

using c10::cuda::CUDAStream;

// The crash: the fresh tensor on dstDevice, filled by a peer copy on the
// source device's current stream that never waited for dstDevice's stream.
at::Tensor copyToDevice(const at::Tensor &src, c10::DeviceIndex srcDevice,
                        c10::DeviceIndex dstDevice) {
  at::Tensor dst = at::empty(src.sizes(), src.options().device(at::Device(at::kCUDA, dstDevice)));
  CUDAStream copyStream = c10::cuda::getCurrentCUDAStream(srcDevice);
  cudaMemcpyPeerAsync(dst.data_ptr(), dstDevice, src.data_ptr(), srcDevice,
                      src.nbytes(), copyStream);
  // CHECK-NOTES: :[[@LINE-2]]:3: warning: 'dst' is used on stream 'srcDevice' before 'srcDevice' is ordered after its allocation on stream 'dstDevice' [streamlife-use-before-alloc]
  // CHECK-NOTES: :[[@LINE-5]]:20: note: 'dst' allocated on stream 'dstDevice' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: record an event on 'dstDevice' after the allocation and make 'srcDevice' wait on it before this use
  copyStream.synchronize();
  return dst;
}

// Fixed: the source stream waits for an event recorded on the destination
// device's current stream after the allocation.
at::Tensor copyToDeviceOrdered(const at::Tensor &src,
                               c10::DeviceIndex srcDevice,
                               c10::DeviceIndex dstDevice) {
  at::Tensor dst = at::empty(src.sizes(), src.options().device(at::Device(at::kCUDA, dstDevice)));
  at::cuda::CUDAEvent dstReady;
  dstReady.record(c10::cuda::getCurrentCUDAStream(dstDevice));
  CUDAStream copyStream = c10::cuda::getCurrentCUDAStream(srcDevice);
  dstReady.block(copyStream);
  cudaMemcpyPeerAsync(dst.data_ptr(), dstDevice, src.data_ptr(), srcDevice,
                      src.nbytes(), copyStream);
  copyStream.synchronize();
  return dst;
}

// One device, two spellings: a const local made from an index
// (`const auto dev = at::Device(at::kCUDA, node)`, `const auto idx =
// src.get_device()`) is that index's device, so the event recorded on
// node's stream orders the allocation made with dev (the two-hop copy of
// FBGEMM's merge_pooled_embeddings).
void twoSpellingsOrdered(const at::Tensor &src, c10::DeviceIndex node) {
  const auto nodeDevice = at::Device(at::kCUDA, node);
  at::Tensor dst = at::empty(src.sizes(), src.options().device(nodeDevice));
  const auto srcIndex = src.get_device();
  CUDAStream copyStream = c10::cuda::getCurrentCUDAStream(srcIndex);
  at::cuda::CUDAEvent dstReady;
  dstReady.record(c10::cuda::getCurrentCUDAStream(node));
  dstReady.block(copyStream);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copyStream);
  copyStream.synchronize();
}

// The same without the wait.
void twoSpellingsUnordered(const at::Tensor &src, c10::DeviceIndex node) {
  const auto nodeDevice = at::Device(at::kCUDA, node);
  at::Tensor dst = at::empty(src.sizes(), src.options().device(nodeDevice));
  const auto srcIndex = src.get_device();
  CUDAStream copyStream = c10::cuda::getCurrentCUDAStream(srcIndex);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copyStream);
  // CHECK-NOTES: :[[@LINE-2]]:3: warning: 'dst' is used on stream 'src.device()' before 'src.device()' is ordered after its allocation on stream 'node' [streamlife-use-before-alloc]
  // CHECK-NOTES: :[[@LINE-6]]:20: note: 'dst' allocated on stream 'node' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: record an event on 'node' after the allocation and make 'src.device()' wait on it before this use
  copyStream.synchronize();
}

// Device guards: the tensor is made under the destination's guard (so on its
// current stream), the copy under the source's.
void guardedCopy(const at::Tensor &src, c10::Device srcDevice,
                 c10::Device dstDevice) {
  at::Tensor dst;
  {
    c10::cuda::OptionalCUDAGuard onDst(dstDevice);
    dst = at::empty_like(src, src.options().device(dstDevice));
  }
  c10::cuda::CUDAGuard onSrc(srcDevice);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice,
                  c10::cuda::getCurrentCUDAStream(srcDevice.index()));
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'dst' is used on stream 'srcDevice' before 'srcDevice' is ordered after its allocation on stream 'dstDevice' [streamlife-use-before-alloc]
  c10::cuda::device_synchronize();
}

// The two-way barrier of a copy between devices (ATen's copy kernel does
// this): the source stream waits for the destination's, and back.
void guardedCopyBarrier(const at::Tensor &src, c10::Device srcDevice,
                        c10::Device dstDevice) {
  at::Tensor dst;
  {
    c10::cuda::OptionalCUDAGuard onDst(dstDevice);
    dst = at::empty_like(src, src.options().device(dstDevice));
  }
  c10::cuda::CUDAGuard guard(srcDevice);
  CUDAStream copyStream = c10::cuda::getCurrentCUDAStream(srcDevice.index());
  at::cuda::CUDAEvent dstReady;
  guard.set_device(dstDevice);
  dstReady.record(c10::cuda::getCurrentCUDAStream(dstDevice.index()));
  guard.set_device(srcDevice);
  dstReady.block(copyStream);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copyStream);
  at::cuda::CUDAEvent srcDone;
  srcDone.record(copyStream);
  guard.set_device(dstDevice);
  srcDone.block(c10::cuda::getCurrentCUDAStream(dstDevice.index()));
}

// One device named: its current stream is the current stream. The usual
// head of an extension operator is clean ...
at::Tensor extensionOp(const at::Tensor &x) {
  const c10::cuda::OptionalCUDAGuard guard(at::device_of(x));
  at::Tensor y = at::empty_like(x);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(x.get_device());
  cudaMemcpyAsync(y.data_ptr(), x.data_ptr(), x.nbytes(),
                  cudaMemcpyDeviceToDevice, stream);
  return y;
}

// ... and the guard keeps the current stream known: a pool stream writing
// the fresh tensor without waiting is still seen.
at::Tensor extensionOpOnPoolStream(const at::Tensor &x) {
  const c10::cuda::OptionalCUDAGuard guard(at::device_of(x));
  at::Tensor y = at::empty_like(x);
  CUDAStream side = c10::cuda::getStreamFromPool();
  cudaMemcpyAsync(y.data_ptr(), x.data_ptr(), x.nbytes(),
                  cudaMemcpyDeviceToDevice, side);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'y' is used on stream 'side' before 'side' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
  side.synchronize();
  return y;
}
