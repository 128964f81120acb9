// Shared scaffolding for the ATen example pipelines: the sizes, the simulated
// all-gather (the producer) and forward (the consumer), and the result check.
//
// Everything that matters for buffer lifetimes (which stream allocates, which
// uses, the events, the waits and the releases) is written out in each
// example's own .cpp file, so that `streamlife check` and a reader see the
// whole hand-off in one place. These are the C++ versions of the Python
// pipelines in examples/python (same shapes, same verdicts); they build
// against libtorch (not needed for `streamlife check`, which only parses them
// with the PyTorch headers).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/ops/full.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace example {

constexpr int64_t kHidden = 4096;
constexpr int64_t kBatch = 1024;
constexpr int kLayers = 4;

inline at::TensorOptions cudaFloat() {
  return at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
}

// The producer: "all-gathers" one layer's parameters (every element holds the
// layer number) on `ag`. The tensor's allocation stream is `ag`.
inline at::Tensor allGather(c10::cuda::CUDAStream ag, int layer) {
  c10::cuda::CUDAStreamGuard onAg(ag);
  return at::full({kHidden * kHidden}, double(layer), cudaFloat());
}

// The consumer: one layer's forward, a matmul that reads every parameter, on
// the current stream.
inline at::Tensor forward(const at::Tensor &params, const at::Tensor &x) {
  return at::matmul(x, params.view({kHidden, kHidden}));
}

// Every output element of layer L must be kHidden * L (x is all ones).
class Results {
public:
  void add(at::Tensor out, int layer) { outputs_.emplace_back(std::move(out), layer); }
  int print(const char *name) const {
    double worst = 0;
    for (const auto &[out, layer] : outputs_)
      worst = std::max(worst, out.sub(double(kHidden) * layer).abs().max().item<double>());
    std::printf("%s: %s (max_diff=%.1f)\n", name, worst > 1e-3 ? "corrupt" : "ok", worst);
    return 0;
  }

private:
  std::vector<std::pair<at::Tensor, int>> outputs_;
};

} // namespace example
