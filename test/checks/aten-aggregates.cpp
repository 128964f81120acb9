// REQUIRES: checker, torch-headers, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -- -std=c++17 %torch_include -I%cuda_path/include -I%S/Inputs/aten
//
// Owned buffers where real code keeps them: in struct fields inside
// std::vectors (named through `v.back().t`, `v[i].t`, and references to
// them), in containers indexed by a loop counter (`hosts[i].copy_(...)`), with
// their events owned through std::unique_ptr. Host memory (pinned or CPU
// tensors) is not a stream-ordered device block.

#include "aten_test.h"
#include <memory>
#include <vector>

using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;

struct Staging {
  at::Tensor t;
  int64_t offset;
};

// The fresh tensor lives in a struct inside a vector; a reference to the
// field is written on another stream before that stream waited for the
// allocation.
void fieldThroughReference(const at::Tensor &src, CUDAStream copy) {
  std::vector<Staging> staging;
  staging.push_back({at::empty_like(src), 0});
  auto &dst = staging.back().t;
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copy);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'dst' is used on stream 'copy' before 'copy' is ordered after its allocation on the current stream [streamlife-use-before-alloc]
  copy.synchronize();
}

void fieldThroughReferenceOrdered(const at::Tensor &src, CUDAStream copy) {
  std::vector<Staging> staging;
  staging.push_back({at::empty_like(src), 0});
  at::cuda::CUDAEvent allocated;
  allocated.record();
  allocated.block(copy);
  auto &dst = staging.back().t;
  cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), src.nbytes(),
                  cudaMemcpyDeviceToDevice, copy);
  copy.synchronize();
}

// An entry is kept alive by its vector: dropping the vector's element is
// its release. Clearing it while the side stream may still read is a race.
void clearWhileInUse(const at::Tensor &src, CUDAStream side) {
  std::vector<Staging> staging;
  staging.push_back({at::empty_like(src), 0});
  at::cuda::CUDAEvent ready;
  ready.record();
  ready.block(side);
  {
    CUDAStreamGuard onSide(side);
    staging[0].t.add_(1);
  }
  staging.clear();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'staging[*]' is released on the current stream while stream 'side' may still use it [streamlife-free-before-wait]
}

void clearAfterWait(const at::Tensor &src, CUDAStream side) {
  std::vector<Staging> staging;
  staging.push_back({at::empty_like(src), 0});
  at::cuda::CUDAEvent ready, done;
  ready.record();
  ready.block(side);
  {
    CUDAStreamGuard onSide(side);
    staging[0].t.add_(1);
  }
  done.record(side);
  done.block(c10::cuda::getCurrentCUDAStream());
  staging.clear();
}

// Subscript receivers: the activation is copied into hosts[i] on the d2h
// stream, then reassigned (released on the compute stream) with no event.
void offloadToSubscript(std::vector<at::Tensor> &hosts, const at::Tensor &x,
                        CUDAStream d2h, int layers) {
  at::Tensor act = x.mul(2);
  at::cuda::CUDAEvent produced;
  for (int i = 0; i < layers; ++i) {
    produced.record();
    produced.block(d2h);
    {
      CUDAStreamGuard onD2h(d2h);
      hosts[i].copy_(act, /*non_blocking=*/true);
    }
    act = act.mul(2);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'act' is released on the current stream while stream 'd2h' may still use it [streamlife-free-before-wait]
  }
}

void offloadToSubscriptWaited(std::vector<at::Tensor> &hosts,
                              const at::Tensor &x, CUDAStream d2h,
                              int layers) {
  at::Tensor act = x.mul(2);
  at::cuda::CUDAEvent produced, copied;
  for (int i = 0; i < layers; ++i) {
    produced.record();
    produced.block(d2h);
    {
      CUDAStreamGuard onD2h(d2h);
      hosts[i].copy_(act, /*non_blocking=*/true);
    }
    copied.record(d2h);
    copied.block(c10::cuda::getCurrentCUDAStream());
    act = act.mul(2);
  }
}

// Events owned through std::unique_ptr: `ev->record(s)`, `ev->block(s)`.
void uniqueEventOrders(int64_t n, CUDAStream side) {
  at::Tensor buf = at::empty({n}, test::cuda());
  auto ready = std::make_unique<at::cuda::CUDAEvent>();
  ready->record();
  ready->block(side);
  {
    CUDAStreamGuard onSide(side);
    buf.mul_(2);
  }
  auto done = std::make_unique<at::cuda::CUDAEvent>();
  done->record(side);
  done->block(c10::cuda::getCurrentCUDAStream());
}

void uniqueEventNeverBlocked(int64_t n, CUDAStream side) {
  at::Tensor buf = at::empty({n}, test::cuda());
  auto ready = std::make_unique<at::cuda::CUDAEvent>();
  ready->record();
  ready->block(side);
  {
    CUDAStreamGuard onSide(side);
    buf.mul_(2);
  }
  auto done = std::make_unique<at::cuda::CUDAEvent>();
  done->record(side);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'buf' is released on the current stream while stream 'side' may still use it [streamlife-free-before-wait]

// Events inside vector entries, owned through unique_ptr: the entry's event
// is waited on before the entry goes.
struct InFlight {
  at::Tensor params;
  std::unique_ptr<at::cuda::CUDAEvent> done;
};

void entryEventThroughUniquePtr(CUDAStream ag, CUDAStream compute,
                                int64_t n) {
  std::vector<InFlight> inFlight;
  {
    CUDAStreamGuard onAg(ag);
    inFlight.push_back({at::empty({n}, test::cuda()),
                        std::make_unique<at::cuda::CUDAEvent>()});
  }
  at::cuda::CUDAEvent gathered;
  gathered.record(ag);
  gathered.block(compute);
  {
    CUDAStreamGuard onCompute(compute);
    inFlight.back().params.mul_(2);
  }
  inFlight.back().done->record(compute);
  inFlight.front().done->block(ag);
  inFlight.erase(inFlight.begin());
}

void entryEventThroughUniquePtrLate(CUDAStream ag, CUDAStream compute,
                                    int64_t n) {
  std::vector<InFlight> inFlight;
  {
    CUDAStreamGuard onAg(ag);
    inFlight.push_back({at::empty({n}, test::cuda()),
                        std::make_unique<at::cuda::CUDAEvent>()});
  }
  at::cuda::CUDAEvent gathered;
  gathered.record(ag);
  gathered.block(compute);
  {
    CUDAStreamGuard onCompute(compute);
    inFlight.back().params.mul_(2);
  }
  inFlight.back().done->record(compute);
  inFlight.erase(inFlight.begin());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'inFlight.erase(inFlight.begin())' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
}

// Host memory: a pinned or CPU tensor written by an async copy on a side
// stream and dropped on the current one is not a device block (the caching
// host allocator keeps pinned blocks until the copies that use them end).
void pinnedStaging(const at::Tensor &act, CUDAStream d2h) {
  at::Tensor host = at::empty(act.sizes(), act.options().device(at::kCPU).pinned_memory(true));
  at::cuda::CUDAEvent produced;
  produced.record();
  produced.block(d2h);
  CUDAStreamGuard onD2h(d2h);
  host.copy_(act, /*non_blocking=*/true);
}

void cpuStaging(const at::Tensor &act, CUDAStream d2h, int64_t n) {
  at::Tensor host = at::empty({n}, at::kFloat);
  at::cuda::CUDAEvent produced;
  produced.record();
  produced.block(d2h);
  CUDAStreamGuard onD2h(d2h);
  host.copy_(act, /*non_blocking=*/true);
}

// The same staging on the device is a race at the function's end.
void deviceStaging(const at::Tensor &act, CUDAStream d2h, int64_t n) {
  at::Tensor staged = at::empty({n}, test::cuda());
  at::cuda::CUDAEvent produced;
  produced.record();
  produced.block(d2h);
  CUDAStreamGuard onD2h(d2h);
  staged.copy_(act, /*non_blocking=*/true);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'staged' is released on the current stream while stream 'd2h' may still use it [streamlife-free-before-wait]

// Options taken from a device tensor keep its device (`act.options()`, with
// a dtype changed or not): a device block, the same race.
void stagingFromOptions(const at::Tensor &act, CUDAStream d2h, int64_t n) {
  at::Tensor staged = at::empty({n}, act.options().dtype(at::kHalf));
  at::cuda::CUDAEvent produced;
  produced.record();
  produced.block(d2h);
  CUDAStreamGuard onD2h(d2h);
  staged.copy_(act, /*non_blocking=*/true);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'staged' is released on the current stream while stream 'd2h' may still use it [streamlife-free-before-wait]
