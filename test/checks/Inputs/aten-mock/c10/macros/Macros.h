// Mock of c10/macros/Macros.h (see ../../README.md): as in torch, namespace at
// sees c10's names and at::cuda sees c10::cuda's (at::cuda::CUDAEvent,
// at::Stream, at::kCUDA).
#pragma once
namespace c10 {}
namespace c10::cuda {}
namespace at {
using namespace c10;
}
namespace at::cuda {
using namespace c10::cuda;
}
