// Shared scaffolding for the example pipelines: error checking, options, the
// stream-ordered memory pool, the two kernels and the result check.
//
// Everything that matters for buffer lifetimes (allocation, use, event, wait,
// release) is written out in each example's own .cu file, in the function that
// runs the pipeline, so that `streamlife check` and a reader see the whole
// hand-off in one place. This header only holds what every example repeats.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

namespace example {

// Any CUDA error ends the program with one line naming the failing call, so
// that a test can tell "the program broke" (exit 2) from "the program ran and
// its results are corrupt" (exit 0, `result: corrupt ...`).
inline void checkCuda(cudaError_t status, const char *call) {
  if (status == cudaSuccess)
    return;
  std::fprintf(stderr, "error: %s at %s\n", cudaGetErrorString(status), call);
  std::fflush(stdout);
  std::exit(2);
}

#define CHECK_CUDA(call) ::example::checkCuda((call), #call)

// Kernel launches report configuration errors through cudaGetLastError.
#define CHECK_LAUNCH(what) ::example::checkCuda(cudaGetLastError(), what)

// Bad command lines exit 3, distinct from CUDA errors (2) and from a run that
// completed (0, whatever its verdict).
[[noreturn]] inline void usageError(const char *program, const char *message) {
  std::fprintf(stderr, "error: %s\n", message);
  std::fprintf(stderr,
               "usage: %s [--elements N] [--layers L] [--trials T] [--batch B]"
               " [--depth D]\n",
               program);
  std::exit(3);
}

struct Options {
  // Floats per parameter (or activation) buffer: 16M floats = 64 MiB, big
  // enough that a forward pass is still reading when the next producer
  // kernel overwrites the reused block.
  size_t elements = size_t{4096} * 4096;
  int layers = 4;
  int trials = 20;
  // Rows of the "input activations" multiplied with each layer's weights: the
  // knob for how long a forward pass reads its parameters.
  int batch = 64;
  // Buffers in flight (only n_deep_queue uses it).
  int depth = 3;

  // The parameter buffer is a rows x cols weight matrix.
  size_t cols() const { return std::min<size_t>(elements, 4096); }
  size_t rows() const { return elements / cols(); }
};

inline long long parsePositive(const char *program, const char *flag,
                               const char *text) {
  char *end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "%s expects a positive integer, got '%s'", flag, text);
    usageError(program, message);
  }
  return value;
}

inline Options parseOptions(int argc, char **argv) {
  Options options;
  const char *program = argc > 0 ? argv[0] : "example";
  for (int i = 1; i < argc; ++i) {
    const char *flag = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc) {
        char message[256];
        std::snprintf(message, sizeof message, "%s expects a value", flag);
        usageError(program, message);
      }
      return argv[++i];
    };
    if (!std::strcmp(flag, "--elements"))
      options.elements = size_t(parsePositive(program, flag, next()));
    else if (!std::strcmp(flag, "--layers"))
      options.layers = int(parsePositive(program, flag, next()));
    else if (!std::strcmp(flag, "--trials"))
      options.trials = int(parsePositive(program, flag, next()));
    else if (!std::strcmp(flag, "--batch"))
      options.batch = int(parsePositive(program, flag, next()));
    else if (!std::strcmp(flag, "--depth"))
      options.depth = int(parsePositive(program, flag, next()));
    else {
      char message[256];
      std::snprintf(message, sizeof message, "unknown option '%s'", flag);
      usageError(program, message);
    }
  }
  if (options.elements % options.cols() != 0)
    usageError(program, "--elements must be a multiple of 4096 when above 4096");
  // Sums of small integers stay exact in float only below 2^24.
  if (double(options.rows()) * options.layers >= double(1 << 24))
    usageError(program, "--elements / 4096 * --layers must stay below 2^24");
  return options;
}

// Freed blocks stay in the device's default pool (the release threshold keeps
// them from going back to the driver at each synchronization), so the next
// cudaMallocAsync on the same stream gets the very block that was just
// released: the behaviour of every caching allocator, and what makes the
// buggy examples really corrupt.
inline void keepFreedBlocksInPool() {
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaMemPool_t pool;
  CHECK_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t threshold = UINT64_MAX;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                     &threshold));
}

// The producer: every element of a layer's buffer holds the layer number.
__global__ void fillKernel(float *buffer, size_t count, float value) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    buffer[i] = value;
}

inline unsigned fillBlocks(size_t count) {
  return unsigned(std::min<size_t>((count + 255) / 256, 4096));
}

// The consumer: out = x * W, a plain (slow on purpose) matmul. Each thread
// owns one output element and walks a whole column of W, so every parameter
// is read `batch` times over a long stretch of GPU time. With x all ones and
// W all `layer`, every output element is rows * layer exactly.
__global__ void forwardKernel(const float *x, const float *weights, float *out,
                              size_t rows, size_t cols) {
  size_t col = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t row = blockIdx.y;
  if (col >= cols)
    return;
  float sum = 0.0f;
  for (size_t k = 0; k < rows; ++k)
    sum += x[row * rows + k] * weights[k * cols + col];
  out[row * cols + col] = sum;
}

inline dim3 forwardGrid(const Options &options) {
  return dim3(unsigned((options.cols() + 255) / 256), unsigned(options.batch));
}

// Device buffers that live for the whole program (inputs and per-layer
// outputs). They are allocated with plain cudaMalloc before any pipeline runs
// and are never part of a cross-stream hand-off.
struct Workspace {
  float *x = nullptr;   // batch x rows, all ones
  float *out = nullptr; // layers x batch x cols
  size_t outPerLayer = 0;
};

inline Workspace makeWorkspace(const Options &options) {
  Workspace ws;
  size_t xCount = size_t(options.batch) * options.rows();
  ws.outPerLayer = size_t(options.batch) * options.cols();
  CHECK_CUDA(cudaMalloc(&ws.x, xCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&ws.out, ws.outPerLayer * options.layers * sizeof(float)));
  fillKernel<<<fillBlocks(xCount), 256>>>(ws.x, xCount, 1.0f);
  CHECK_LAUNCH("fillKernel (inputs)");
  CHECK_CUDA(cudaDeviceSynchronize());
  return ws;
}

inline void freeWorkspace(Workspace &ws) {
  CHECK_CUDA(cudaFree(ws.x));
  CHECK_CUDA(cudaFree(ws.out));
}

// Largest |value - expected| over a host array where every element of layer
// l (1-based, `perLayer` elements each) should equal scale * l.
inline double maxDiff(const std::vector<float> &values, size_t perLayer,
                      int layers, double scale) {
  double worst = 0.0;
  for (int layer = 1; layer <= layers; ++layer) {
    double expected = scale * layer;
    const float *begin = values.data() + size_t(layer - 1) * perLayer;
    for (size_t i = 0; i < perLayer; ++i) {
      double diff = std::fabs(double(begin[i]) - expected);
      worst = std::isnan(diff) ? INFINITY : std::max(worst, diff);
    }
  }
  return worst;
}

// Copies every layer's forward output back and compares with rows * layer.
inline double checkForwardOutputs(const Options &options, const Workspace &ws) {
  std::vector<float> host(ws.outPerLayer * options.layers);
  CHECK_CUDA(cudaMemcpy(host.data(), ws.out, host.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
  return maxDiff(host, ws.outPerLayer, options.layers, double(options.rows()));
}

// Collects per-trial verdicts and prints the summary lines the tests read:
// `blocks: K` (most distinct buffer addresses in one trial) and, last,
// `result: ok` or `result: corrupt (N/M trials, max_diff=X)`.
class TrialLog {
public:
  explicit TrialLog(int trials) : trials_(trials) {}

  void noteBlock(const void *block) { blocksThisTrial_.insert(block); }

  void endTrial(int trial, double diff) {
    maxBlocks_ = std::max(maxBlocks_, blocksThisTrial_.size());
    blocksThisTrial_.clear();
    if (diff > 1e-6) {
      ++corrupted_;
      worstDiff_ = std::max(worstDiff_, diff);
      if (corrupted_ <= 3)
        std::printf("trial %d: corrupt max_diff=%.1f (expected 0)\n", trial,
                    diff);
    }
  }

  void print() const {
    std::printf("blocks: %zu\n", maxBlocks_);
    if (corrupted_ == 0)
      std::printf("result: ok\n");
    else
      std::printf("result: corrupt (%d/%d trials, max_diff=%.1f)\n",
                  corrupted_, trials_, worstDiff_);
    std::fflush(stdout);
  }

private:
  int trials_;
  int corrupted_ = 0;
  double worstDiff_ = 0.0;
  size_t maxBlocks_ = 0;
  std::set<const void *> blocksThisTrial_;
};

inline void printConfig(const char *name, const Options &options) {
  std::printf("%s: elements=%zu (%zu x %zu) batch=%d layers=%d trials=%d\n",
              name, options.elements, options.rows(), options.cols(),
              options.batch, options.layers, options.trials);
}

// The driver shared by the forward-pipeline examples: parse options, set up
// the pool and the workspace, run `runTrial` (which owns the streams and the
// whole hand-off, and synchronizes the device before returning) `trials`
// times, check each trial's outputs and print the verdict.
template <typename TrialFn>
int runForwardExample(const char *name, int argc, char **argv,
                      TrialFn runTrial) {
  Options options = parseOptions(argc, argv);
  printConfig(name, options);
  keepFreedBlocksInPool();
  Workspace ws = makeWorkspace(options);
  TrialLog log(options.trials);
  for (int trial = 0; trial < options.trials; ++trial) {
    // Stale outputs of the previous trial must not hide a corrupt one.
    CHECK_CUDA(cudaMemset(ws.out, 0,
                          ws.outPerLayer * options.layers * sizeof(float)));
    CHECK_CUDA(cudaDeviceSynchronize());
    runTrial(options, ws, log);
    log.endTrial(trial, checkForwardOutputs(options, ws));
  }
  log.print();
  freeWorkspace(ws);
  return 0;
}

} // namespace example
