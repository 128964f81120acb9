// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -- -std=c++17 %torch_include -I%cuda_path/include -I%S/Inputs/aten
//
// Tensors on several devices in one function (an all-to-one copy in two
// hops: each input first to an intermediate device, then to the target).
// - The entries of one vector made on different devices have no single
//   allocation stream: which entry `staged[i]` is depends on the index
//   (real code skips the entries of the other devices), so a use through an
//   entry is before the allocation only when it is before every entry's.
// - An ATen operation runs on the current stream of its operands' device
//   (ATen requires its device operands on one device): an operation on a
//   tensor made on the intermediate device is that device's work, unless a
//   stream guard chose the current stream.
// - A `_like` factory reads only its template's sizes, type and device.
// - A local set once from a device (`auto targetIndex = target.index()`)
//   is that device wherever it is used.
// - The current stream of a tensor's own device
//   (`getCurrentCUDAStream(src.get_device())`) is, for the tensor's objects
//   made on a device's current stream, the stream they were made on: an
//   entry replaced by its copy on the intermediate device is read on that
//   device's stream, whichever device the code cannot tell src is on. Not
//   for another tensor's objects, nor after the tensor was reassigned.

#include "aten_test.h"
#include <vector>

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

// Correct: each hop's copy stream waits for an event recorded on the
// destination's stream after the allocation, and the destination waits for
// the copies before it reads them.
at::Tensor twoHopReduce(std::vector<at::Tensor> inputs, c10::DeviceIndex hop,
                        at::Device target) {
  auto targetIndex = target.index();
  const auto hopDevice = at::Device(at::kCUDA, hop);
  std::vector<at::Tensor> staged(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto &src = inputs[i];
    staged[i] = at::empty_like(src, hopDevice);
    const auto srcIndex = src.get_device();
    CUDAStream copy = c10::cuda::getCurrentCUDAStream(srcIndex);
    at::cuda::CUDAEvent ready;
    ready.record(c10::cuda::getCurrentCUDAStream(hop));
    ready.block(copy);
    auto &dst = staged[i];
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
    at::cuda::CUDAEvent copied;
    copied.record(copy);
    copied.block(c10::cuda::getCurrentCUDAStream(hop));
  }
  // Summed on the intermediate device, on its stream.
  for (size_t i = 1; i < staged.size(); ++i)
    staged[0].add_(staged[i]);
  // The second hop: the same vector's entries, now made on the target.
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i] = staged[i];
    auto &src = inputs[i];
    staged[i] = at::empty_like(src, target);
    const auto srcIndex = src.get_device();
    CUDAStream copy = c10::cuda::getCurrentCUDAStream(srcIndex);
    at::cuda::CUDAEvent ready;
    ready.record(c10::cuda::getCurrentCUDAStream(targetIndex));
    ready.block(copy);
    auto &dst = staged[i];
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
    at::cuda::CUDAEvent copied;
    copied.record(copy);
    copied.block(c10::cuda::getCurrentCUDAStream(targetIndex));
  }
  at::Tensor out = staged[0];
  for (size_t i = 1; i < staged.size(); ++i)
    out.add_(staged[i]);
  return out;
}

// The second hop copies on a pool stream that waited for no device: it is
// before the allocation of every entry it may be.
void secondHopOnPoolStream(std::vector<at::Tensor> inputs,
                           c10::DeviceIndex hop, at::Device target) {
  const auto hopDevice = at::Device(at::kCUDA, hop);
  std::vector<at::Tensor> staged(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    staged[i] = at::empty_like(inputs[i], hopDevice);
  CUDAStream side = c10::cuda::getStreamFromPool();
  for (size_t i = 0; i < inputs.size(); ++i) {
    staged[i] = at::empty_like(inputs[i], target);
    auto &dst = staged[i];
    cudaMemcpyAsync(dst.data_ptr(), inputs[i].data_ptr(), inputs[i].nbytes(),
                    cudaMemcpyDeviceToDevice, side);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'dst' is used on stream 'side' before 'side' is ordered after its allocation on stream '{{hop|target}}' [streamlife-use-before-alloc]
  }
  side.synchronize();
}

// One device only: the entries of one allocation stream keep it (the
// newest entry is the one a later use reads).
void oneDeviceEntries(std::vector<at::Tensor> inputs, c10::DeviceIndex hop,
                      at::Device target) {
  const auto hopDevice = at::Device(at::kCUDA, hop);
  std::vector<at::Tensor> staged(inputs.size());
  CUDAStream copy = c10::cuda::getCurrentCUDAStream(target.index());
  for (size_t i = 0; i < inputs.size(); ++i) {
    staged[i] = at::empty_like(inputs[i], hopDevice);
    auto &dst = staged[i];
    cudaMemcpyAsync(dst.data_ptr(), inputs[i].data_ptr(), inputs[i].nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'dst' is used on stream 'target' before 'target' is ordered after its allocation on stream 'hop' [streamlife-use-before-alloc]
  }
  copy.synchronize();
}

// An operation on a tensor of the intermediate device is its stream's
// work; under a stream guard it is the guard's stream's.
void opOnOperandDevice(const at::Tensor &src, c10::DeviceIndex hop,
                       at::Device target) {
  at::Tensor onHop = at::empty_like(src, at::Device(at::kCUDA, hop));
  at::Tensor onTarget = at::empty_like(src, target);
  onHop.mul_(2);
  onTarget.mul_(2);
  c10::cuda::getCurrentCUDAStream(hop).synchronize();
  c10::cuda::getCurrentCUDAStream(target.index()).synchronize();
}

void opUnderStreamGuard(const at::Tensor &src, c10::DeviceIndex hop,
                        CUDAStream side) {
  at::Tensor onHop = at::empty_like(src, at::Device(at::kCUDA, hop));
  at::Tensor onSrc = at::empty_like(src, src.device());
  CUDAStreamGuard onSide(side);
  onHop.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'onHop' is used on stream 'side' before 'side' is ordered after its allocation on stream 'hop' [streamlife-use-before-alloc]
  side.synchronize();
}

// A `_like` factory under a stream guard does not touch its template; an
// operation that reads it does.
void likeReadsMetadata(const at::Tensor &src, c10::DeviceIndex hop,
                       CUDAStream side) {
  at::Tensor onHop = at::empty_like(src, at::Device(at::kCUDA, hop));
  at::Tensor onSrc = at::empty_like(src, src.device());
  CUDAStreamGuard onSide(side);
  at::Tensor shaped = at::empty_like(onHop, src.device());
  side.synchronize();
}

void opReadsData(const at::Tensor &src, c10::DeviceIndex hop,
                 CUDAStream side) {
  at::Tensor onHop = at::empty_like(src, at::Device(at::kCUDA, hop));
  at::Tensor onSrc = at::empty_like(src, src.device());
  CUDAStreamGuard onSide(side);
  at::Tensor copied = onHop.clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'onHop' is used on stream 'side' before 'side' is ordered after its allocation on stream 'hop' [streamlife-use-before-alloc]
  side.synchronize();
}

// A device index set once is its device; one that may change is not known
// to be (the copy may then be before the allocation).
void indexSetOnce(const at::Tensor &src, at::Device target) {
  auto targetIndex = target.index();
  at::Tensor dst = at::empty_like(src, target);
  CUDAStream copy = c10::cuda::getCurrentCUDAStream(src.get_device());
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream(targetIndex));
  ready.block(copy);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copy);
  copy.synchronize();
}

void indexChanged(const at::Tensor &src, at::Device target,
                  c10::DeviceIndex fallback) {
  auto targetIndex = target.index();
  if (targetIndex < 0)
    targetIndex = fallback;
  at::Tensor dst = at::empty_like(src, target);
  CUDAStream copy = c10::cuda::getCurrentCUDAStream(src.get_device());
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream(targetIndex));
  ready.block(copy);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copy);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'dst' is used on stream 'src.device()' before 'src.device()' is ordered after its allocation on stream 'target' [streamlife-use-before-alloc]
  copy.synchronize();
}

// The last hop of a two-hop copy whose entries may have been replaced by
// their copies on the intermediate device (reduced there, or moved on as
// they are): the copy out of such an entry runs on the current stream of
// the entry's own device, which is the stream it was made on.
void replacedByHopCopy(std::vector<at::Tensor> inputs, c10::DeviceIndex hop,
                       at::Device target) {
  auto targetIndex = target.index();
  const auto hopDevice = at::Device(at::kCUDA, hop);
  std::vector<at::Tensor> staged(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto &src = inputs[i];
    staged[i] = at::empty_like(src, hopDevice);
    const auto srcIndex = src.get_device();
    CUDAStream copy = c10::cuda::getCurrentCUDAStream(srcIndex);
    at::cuda::CUDAEvent ready;
    ready.record(c10::cuda::getCurrentCUDAStream(hop));
    ready.block(copy);
    auto &dst = staged[i];
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
    at::cuda::CUDAEvent copied;
    copied.record(copy);
    copied.block(c10::cuda::getCurrentCUDAStream(hop));
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].get_device() != targetIndex)
      inputs[i] = staged[i];
  std::vector<at::Tensor> outputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto &src = inputs[i];
    outputs[i] = at::empty_like(src, target);
    const auto srcIndex = src.get_device();
    CUDAStream copy = c10::cuda::getCurrentCUDAStream(srcIndex);
    at::cuda::CUDAEvent ready;
    ready.record(c10::cuda::getCurrentCUDAStream(targetIndex));
    ready.block(copy);
    auto &dst = outputs[i];
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
  }
  c10::cuda::getCurrentCUDAStream(targetIndex).synchronize();
}

// The same hops, the last copy on the current stream of the destination's
// device: a replaced entry is read there before that stream is ordered
// after its copy on the intermediate device was made.
void replacedReadOnDestinationDevice(std::vector<at::Tensor> inputs,
                                     c10::DeviceIndex hop, at::Device target) {
  const auto hopDevice = at::Device(at::kCUDA, hop);
  std::vector<at::Tensor> staged(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    staged[i] = at::empty_like(inputs[i], hopDevice);
  for (size_t i = 0; i < inputs.size(); ++i)
    inputs[i] = staged[i];
  std::vector<at::Tensor> outputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto &src = inputs[i];
    outputs[i] = at::empty_like(src, target);
    auto &dst = outputs[i];
    CUDAStream copy = c10::cuda::getCurrentCUDAStream(dst.get_device());
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'src' is used on stream 'dst.device()' before 'dst.device()' is ordered after its allocation on stream 'hop' [streamlife-use-before-alloc]
    copy.synchronize();
  }
}

// The copy on the current stream of the source's own device, with no event
// from the destination's: the destination (another tensor) is still written
// before its allocation.
void replacedNoDestinationEvent(std::vector<at::Tensor> inputs,
                                c10::DeviceIndex hop, at::Device target) {
  const auto hopDevice = at::Device(at::kCUDA, hop);
  std::vector<at::Tensor> staged(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    staged[i] = at::empty_like(inputs[i], hopDevice);
  for (size_t i = 0; i < inputs.size(); ++i)
    inputs[i] = staged[i];
  std::vector<at::Tensor> outputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto &src = inputs[i];
    outputs[i] = at::empty_like(src, target);
    CUDAStream copy = c10::cuda::getCurrentCUDAStream(src.get_device());
    auto &dst = outputs[i];
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                    cudaMemcpyDeviceToDevice, copy);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'dst' is used on stream 'src.device()' before 'src.device()' is ordered after its allocation on stream 'target' [streamlife-use-before-alloc]
    copy.synchronize();
  }
}

// The device read before the tensor is replaced by a copy on another device:
// the stream is the old device's, not the one the copy was made on.
void deviceReadBeforeReplace(const at::Tensor &input, c10::DeviceIndex hop,
                             at::Device target) {
  at::Tensor src = input;
  const auto srcIndex = src.get_device();
  CUDAStream copy = c10::cuda::getCurrentCUDAStream(srcIndex);
  src = at::empty_like(input, at::Device(at::kCUDA, hop));
  at::Tensor dst = at::empty_like(input, target);
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream(target.index()));
  ready.block(copy);
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copy);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'src' is used on stream 'src.device()' before 'src.device()' is ordered after its allocation on stream 'hop' [streamlife-use-before-alloc]
  copy.synchronize();
}
