// What every ATen checker test includes: the real torch 2.11 headers (unpacked
// into the build tree by lit.cfg.py) for tensors, streams, guards and events,
// plus the CUDA runtime for raw launches and copies.
#pragma once
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <c10/core/Event.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

namespace test {
inline at::TensorOptions cuda() { return at::TensorOptions().device(at::kCUDA); }
} // namespace test
