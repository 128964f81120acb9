// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait,streamlife-missing-consumer-event -check-fixed-clean -fixed-file=%t.cpp -- -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten
// RUN: clang++-22 -fsyntax-only -std=c++17 %torch_include %cuda_include -I%S/Inputs/aten %t.cpp
//
// Fix-its on PyTorch C++ code, against the real torch 2.11 headers: a tensor
// reset before the allocation stream blocks on the consumer's event moves
// after the block; a consumer event recorded before the forward that reads
// the tensor moves after it. The fixed file compiles and re-checks clean
// (both checks run together, as `streamlife check` runs them).

#include "aten_test.h"

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

at::Tensor allGather(CUDAStream ag, int64_t n, double layer) {
  CUDAStreamGuard onAg(ag);
  return at::full({n}, layer, test::cuda());
}

// CHECK-MESSAGES: :[[@LINE+13]]:3: warning: 'params' is released on stream 'ag' while stream 'compute' may still use it
// CHECK-FIXES: {{^}}void resetBeforeBlock(
// CHECK-FIXES: done.record(compute);
// CHECK-FIXES-NEXT: {{^  }}done.block(ag);
// CHECK-FIXES-NEXT: {{^  }}params.reset();
void resetBeforeBlock(CUDAStream ag, CUDAStream compute, int64_t n) {
  at::Tensor params = allGather(ag, n, 1);
  at::cuda::CUDAEvent done;
  {
    CUDAStreamGuard onCompute(compute);
    at::Tensor out = params.mul(2);
  }
  done.record(compute);
  params.reset();
  done.block(ag);
}

// CHECK-MESSAGES: :[[@LINE+15]]:3: warning: stream 'ag' waits on event 'done' recorded on 'compute' before its last use of 'params'
// CHECK-FIXES: {{^}}void recordBeforeForward(
// CHECK-FIXES: at::cuda::CUDAEvent done;
// CHECK-FIXES-NEXT: {{^  }}{
// CHECK-FIXES: {{^  }}}
// CHECK-FIXES-NEXT: {{^  }}done.record(compute);
// CHECK-FIXES-NEXT: {{^  }}done.block(ag);
void recordBeforeForward(CUDAStream ag, CUDAStream compute, int64_t n) {
  at::Tensor params = allGather(ag, n, 1);
  at::cuda::CUDAEvent done;
  done.record(compute);
  {
    CUDAStreamGuard onCompute(compute);
    at::Tensor out = params.mul(2);
  }
  done.block(ag);
  params.reset();
}
