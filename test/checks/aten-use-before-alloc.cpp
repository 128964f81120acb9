// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
//
// streamlife-use-before-alloc for tensors: a tensor is allocated on the
// current stream where it is created; work on another stream that uses it
// must first be ordered after that point (the caching allocator may hand it
// a block whose previous lifetime still has work queued on the allocation
// stream).

#include "aten_test.h"

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

// The production crash's shape: a temporary created under the destination
// device's current stream (named after the device: stream 'dst'), written by
// a copy on the source stream that never waited for it.
void tempWrittenOnSourceStream(const at::Tensor &src, c10::Device dst,
                               CUDAStream srcStream) {
  at::Tensor tmp;
  {
    c10::cuda::CUDAGuard onDst(dst);
    tmp = at::empty_like(src, src.options().device(dst));
  }
  cudaMemcpyAsync(tmp.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, srcStream);
  // CHECK-NOTES: :[[@LINE-2]]:3: warning: 'tmp' is used on stream 'srcStream' before 'srcStream' is ordered after its allocation on stream 'dst' [streamlife-use-before-alloc]
  // CHECK-NOTES: :[[@LINE-5]]:11: note: 'tmp' allocated on stream 'dst' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: record an event on 'dst' after the allocation and make 'srcStream' wait on it before this use
  srcStream.synchronize();
}

// The same temporary, with the source stream made to wait for the
// destination's current stream first: correct.
void tempOrderedByEvent(const at::Tensor &src, c10::Device dst,
                        CUDAStream srcStream) {
  at::Tensor tmp;
  at::cuda::CUDAEvent allocated;
  {
    c10::cuda::CUDAGuard onDst(dst);
    tmp = at::empty_like(src, src.options().device(dst));
    allocated.record();
  }
  allocated.block(srcStream);
  cudaMemcpyAsync(tmp.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, srcStream);
  srcStream.synchronize();
}

// Created on the caller's current stream, used by an ATen op on a side stream.
void opOnSideStream(int64_t n, CUDAStream side) {
  at::Tensor acc = at::zeros({n}, test::cuda());
  CUDAStreamGuard onSide(side);
  acc.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'acc' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
  side.synchronize();
}

// Ordered: the side stream waits on an event recorded on the current stream
// after the allocation.
void opOnSideStreamOrdered(int64_t n, CUDAStream side) {
  at::Tensor acc = at::zeros({n}, test::cuda());
  at::cuda::CUDAEvent ready;
  ready.record();
  CUDAStreamGuard onSide(side);
  ready.block(side);
  acc.add_(1);
  side.synchronize();
}

// Allocated on the stream that uses it: nothing to order.
void allocatedWhereUsed(int64_t n, CUDAStream side) {
  CUDAStreamGuard onSide(side);
  at::Tensor acc = at::zeros({n}, test::cuda());
  acc.add_(1);
  cudaMemsetAsync(acc.data_ptr(), 0, n * 4, side);
}

// data_ptr() of a tensor in a raw launch on another stream: a use.
void dataPtrInCopy(int64_t n, CUDAStream side, const float *in) {
  at::Tensor out = at::empty({n}, test::cuda());
  cudaMemcpyAsync(out.data_ptr<float>(), in, n * 4, cudaMemcpyDeviceToDevice,
                  side);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'out' is used on stream 'side' before 'side' is ordered after its allocation on the current stream
  side.synchronize();
}
