// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- -std=c++17 %torch_include -I%cuda_path/include -I%S/Inputs/aten
//
// A keepalive guarded by `if (keepalive.defined())`: the first iteration has
// nothing to keep, so the allocation stream waits only when the keepalive
// holds a tensor. On the branch where it is undefined it holds none, so
// rebinding it there releases nothing (the join of the loop head alone would
// say it may still hold the previous layer's tensor). The last keepalive
// goes after a device sync.

#include "aten_test.h"

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

at::Tensor allGather(CUDAStream ag, int64_t n, int layer) {
  CUDAStreamGuard onAg(ag);
  return at::full({n}, double(layer), test::cuda());
}

// Right: the previous layer's parameters are kept until `ag` waited on the
// event the forward recorded after reading them.
void guardedKeepalive(CUDAStream ag, CUDAStream compute, int64_t n,
                      int layers) {
  at::Tensor keepalive;
  at::cuda::CUDAEvent forwardDone;
  for (int layer = 0; layer < layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    at::cuda::CUDAEvent gathered;
    gathered.record(ag);
    gathered.block(compute);
    {
      CUDAStreamGuard onCompute(compute);
      params.mul_(2);
    }
    if (keepalive.defined()) {
      forwardDone.block(ag);
    }
    forwardDone.record(compute);
    at::Tensor prev = params;
    keepalive = prev;
  }
  c10::cuda::device_synchronize();
}

// The same with the test negated and an else.
void negatedGuard(CUDAStream ag, CUDAStream compute, int64_t n, int layers) {
  at::Tensor keepalive;
  at::cuda::CUDAEvent forwardDone;
  for (int layer = 0; layer < layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    at::cuda::CUDAEvent gathered;
    gathered.record(ag);
    gathered.block(compute);
    {
      CUDAStreamGuard onCompute(compute);
      params.mul_(2);
    }
    if (!keepalive.defined()) {
      keepalive = params;
    } else {
      forwardDone.block(ag);
      keepalive = params;
    }
    forwardDone.record(compute);
  }
  c10::cuda::device_synchronize();
}

// Wrong: the wait is guarded by an unrelated flag, so on some path the
// previous layer's tensor is released with no wait.
void guardedByAnotherTest(CUDAStream ag, CUDAStream compute, int64_t n,
                          int layers, bool overlap) {
  at::Tensor keepalive;
  at::cuda::CUDAEvent forwardDone;
  for (int layer = 0; layer < layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    at::cuda::CUDAEvent gathered;
    gathered.record(ag);
    gathered.block(compute);
    {
      CUDAStreamGuard onCompute(compute);
      params.mul_(2);
    }
    if (overlap && keepalive.defined()) {
      forwardDone.block(ag);
    }
    forwardDone.record(compute);
    keepalive = params;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'keepalive' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
  }
  c10::cuda::device_synchronize();
}

// Wrong: the keepalive is defined, but the wait is on the undefined branch.
void waitOnTheWrongBranch(CUDAStream ag, CUDAStream compute, int64_t n,
                          int layers) {
  at::Tensor keepalive;
  at::cuda::CUDAEvent forwardDone;
  for (int layer = 0; layer < layers; ++layer) {
    at::Tensor params = allGather(ag, n, layer);
    at::cuda::CUDAEvent gathered;
    gathered.record(ag);
    gathered.block(compute);
    {
      CUDAStreamGuard onCompute(compute);
      params.mul_(2);
    }
    if (!keepalive.defined()) {
      forwardDone.block(ag);
    }
    forwardDone.record(compute);
    keepalive = params;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'keepalive' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
  }
  c10::cuda::device_synchronize();
}
