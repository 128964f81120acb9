// Mock of ATen/cuda/CUDAEvent.h (see ../../README.md): c10's CUDA event and
// guards, seen from at::cuda.
#pragma once
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
