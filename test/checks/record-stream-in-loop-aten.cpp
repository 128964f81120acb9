// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-record-stream-in-loop -- -std=c++17 %torch_include %cuda_include
//
// The same rule against the real PyTorch headers: at::Tensor::record_stream
// (ATen/core/TensorBody.h) and c10::cuda::CUDACachingAllocator::recordStream.

#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <unordered_map>

void handOffEveryLayer(at::Tensor *params, c10::cuda::CUDAStream compute,
                       int layers) {
  for (int layer = 0; layer < layers; ++layer) {
    params[layer].record_stream(compute);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: record_stream on 'params[layer]' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release [streamlife-record-stream-in-loop]
    // CHECK-NOTES: :[[@LINE-3]]:3: note: inside this loop
  }
}

void allocatorHandOff(const at::Tensor &t, c10::cuda::CUDAStream compute,
                      int n) {
  while (n-- > 0)
    c10::cuda::CUDACachingAllocator::recordStream(t.storage().data_ptr(),
                                                  compute);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: record_stream on 't.storage().data_ptr()' inside a loop
}

// Once, outside any loop: fine.
void handOffOnce(const at::Tensor &t, c10::cuda::CUDAStream compute) {
  t.record_stream(compute);
  c10::cuda::CUDACachingAllocator::recordStream(t.storage().data_ptr(),
                                                compute);
}

// DeepSpeed (compile/z3.cpp) hands every reloaded buffer of a map to the
// current stream at the end of each backward pass: a loop over the map.
void handOffEveryReloadBuffer(std::unordered_map<long, at::Tensor> &buffers) {
  for (auto &it : buffers) {
    it.second.record_stream(c10::cuda::getCurrentCUDAStream());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 'it.second' inside a loop
  }
  buffers.clear();
}

// The loop only collects; the one hand-off happens after it.
void handOffAfterLoop(std::unordered_map<long, at::Tensor> &buffers,
                      at::Tensor &last) {
  for (auto &it : buffers)
    last = it.second;
  last.record_stream(c10::cuda::getCurrentCUDAStream());
}
