// Mock of c10/cuda/CUDACachingAllocator.h (see ../../README.md).
#pragma once
#include <c10/core/Storage.h>
#include <c10/cuda/CUDAStream.h>

namespace c10::cuda::CUDACachingAllocator {
void recordStream(const DataPtr &dataPtr, CUDAStream stream);
void emptyCache();
} // namespace c10::cuda::CUDACachingAllocator
