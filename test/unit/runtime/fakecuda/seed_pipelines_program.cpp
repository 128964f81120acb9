//===- seed_pipelines_program.cpp - the seed's four pipelines, played ------===//
//
// Usage: seed_pipelines_program PIPELINE, PIPELINE one of
// no_lifetime_management, stall_producer, keepalive, record_stream.
//
// The producer/consumer pipelines of examples/python/ (the seed's demo),
// played through the fake CUPTI and its fake GPU (FakeCupti.cpp) with the
// calls PyTorch makes for them: an all-gather stand-in (a fill kernel, 10 us on
// the fake GPU) on a side stream into a block of a caching allocator, a
// forward stand-in (a matmul, 40 us) on the default stream reading it, the
// seed's waits, and the block released by `del`, kept alive, or recorded with
// record_stream. The allocator behaves as PyTorch's: a freed block goes back
// to the pool of its allocation stream and is reused at once by the next
// allocation of its size there; a record_stream'ed block is parked behind an
// event on each recorded stream and reused only once a query says the event
// completed (the fake GPU answers, so the CPU runs ahead of the GPU as in the
// seed, and record_stream ends up with one block per layer). Its blocks are
// described to the validator through <streamlife/annotations.h>, as the
// PyTorch feed does. Used to develop and test the timeline
// (test/cli/run-timeline*.test); the pictures of the real pipelines come from
// a GPU run (bench/runtime/timeline-seed.sh).
//
//===----------------------------------------------------------------------===//
#include "streamlife/annotations.h"

#include <cstdint>
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace {

using CallFn = void (*)(CUpti_CallbackId, const char *, void *, CUresult, const char *);
using DurationFn = void (*)(const char *, std::uint64_t);
using EventDoneFn = bool (*)(CUevent);
CallFn Call = nullptr;
EventDoneFn EventDone = nullptr;

constexpr int NumLayers = 4;
constexpr std::size_t ParamBytes = 64u << 20; // HIDDEN * HIDDEN floats
constexpr std::size_t ActivationBytes = 64u << 20;

CUstream const Default = nullptr; // the legacy default stream
CUstream const AgStream = reinterpret_cast<CUstream>(0x5000);
CUfunction const FillKernel = reinterpret_cast<CUfunction>(0x1000);   // (float *, float *, int)
CUfunction const MatmulKernel = reinterpret_cast<CUfunction>(0x5000); // (x, w, out, n)
const char *const FillName = "_Z4fillPfS_i";
const char *const MatmulName = "_Z6matmulPKfS0_Pfi";

void createStream(CUstream S) {
  CUstream Out = S;
  cuStreamCreate_params P{&Out, CU_STREAM_NON_BLOCKING};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, "cuStreamCreate", &P, CUDA_SUCCESS, nullptr);
}

CUevent newEvent() {
  static unsigned long Next = 0x7100;
  CUevent E = reinterpret_cast<CUevent>(Next);
  Next += 0x10;
  return E;
}

CUevent recordEvent(CUstream S) {
  CUevent E = newEvent();
  cuEventRecord_params R{E, S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", &R, CUDA_SUCCESS, nullptr);
  return E;
}

void waitEvent(CUstream S, CUevent E) {
  cuStreamWaitEvent_params W{S, E, 0};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &W, CUDA_SUCCESS, nullptr);
}

/// Stream.wait_stream: an event on Other, waited for on S.
void waitStream(CUstream S, CUstream Other) { waitEvent(S, recordEvent(Other)); }

void synchronize() {
  Call(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", nullptr, CUDA_SUCCESS, nullptr);
}

/// PyTorch's caching allocator, reduced to what the pipelines exercise.
class CachingAllocator {
public:
  CachingAllocator()
      : Id(streamlife_register_allocator("fake caching allocator", STREAMLIFE_REUSE_SAME_STREAM)) {}

  CUdeviceptr allocate(std::size_t Bytes, CUstream S) {
    processEvents();
    CUdeviceptr P = 0;
    std::vector<CUdeviceptr> &Free = FreeBlocks[{S, Bytes}];
    if (!Free.empty()) {
      P = Free.back();
      Free.pop_back();
    } else {
      P = NextSegment;
      NextSegment += 0x10000000; // segments 256 MiB apart
      CUdeviceptr Out = P;
      cuMemAlloc_v2_params M{&Out, Bytes};
      Call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &M, CUDA_SUCCESS, nullptr);
    }
    Blocks[P] = {S, Bytes, {}};
    streamlife_block_allocated(Id, reinterpret_cast<void *>(P), Bytes, S);
    return P;
  }

  void recordStream(CUdeviceptr P, CUstream Consumer) { Blocks[P].Uses.push_back(Consumer); }

  void release(CUdeviceptr P) {
    Block B = Blocks[P];
    Blocks.erase(P);
    streamlife_block_release_requested(Id, reinterpret_cast<void *>(P), B.Stream);
    if (B.Uses.empty())
      return freeBlock(P, B);
    // insert_events: one event per recorded stream; the block waits for them.
    Parked Park{P, B, {}};
    for (CUstream U : B.Uses)
      Park.Events.push_back(recordEvent(U));
    Pending.push_back(Park);
  }

private:
  struct Block {
    CUstream Stream;
    std::size_t Bytes;
    std::vector<CUstream> Uses;
  };
  struct Parked {
    CUdeviceptr Ptr;
    Block B;
    std::vector<CUevent> Events;
  };

  void freeBlock(CUdeviceptr P, const Block &B) {
    FreeBlocks[{B.Stream, B.Bytes}].push_back(P);
    streamlife_block_released(Id, reinterpret_cast<void *>(P), B.Stream);
  }

  /// process_events: the oldest parked blocks whose events completed go back.
  void processEvents() {
    while (!Pending.empty()) {
      Parked &Oldest = Pending.front();
      while (!Oldest.Events.empty()) {
        CUevent E = Oldest.Events.front();
        bool Done = EventDone(E);
        cuEventQuery_params Q{E};
        Call(CUPTI_DRIVER_TRACE_CBID_cuEventQuery, "cuEventQuery", &Q,
             Done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY, nullptr);
        if (!Done)
          return;
        Oldest.Events.erase(Oldest.Events.begin());
      }
      freeBlock(Oldest.Ptr, Oldest.B);
      Pending.pop_front();
    }
  }

  int Id;
  CUdeviceptr NextSegment = 0x7f0000000000;
  std::map<CUdeviceptr, Block> Blocks;
  std::map<std::pair<CUstream, std::size_t>, std::vector<CUdeviceptr>> FreeBlocks;
  std::deque<Parked> Pending;
};

CachingAllocator *Allocator = nullptr;
CUdeviceptr X = 0;
std::vector<CUdeviceptr> Results;

/// all_gather: allocate and fill a param buffer on Stream.
__attribute__((noinline)) CUdeviceptr allGather(CUstream Stream) {
  CUdeviceptr Params = Allocator->allocate(ParamBytes, Stream);
  CUdeviceptr Unused = 0;
  int N = 1 << 24;
  void *Args[] = {&Params, &Unused, &N};
  cuLaunchKernel_params P{FillKernel, 1, 1, 1, 32, 1, 1, 0, Stream, Args, nullptr};
  Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &P, CUDA_SUCCESS, FillName);
  return Params;
}

/// forward: x @ weight on the current (default) stream, into a new result.
__attribute__((noinline)) void forward(CUdeviceptr Params) {
  CUdeviceptr Out = Allocator->allocate(ActivationBytes, Default);
  CUdeviceptr In = X;
  int N = 4096;
  void *Args[] = {&In, &Params, &Out, &N};
  cuLaunchKernel_params P{MatmulKernel, 1, 1, 1, 32, 1, 1, 0, Default, Args, nullptr};
  Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &P, CUDA_SUCCESS, MatmulName);
  Results.push_back(Out);
}

void noLifetimeManagement() {
  CUdeviceptr Prev = allGather(AgStream);
  for (int Layer = 2; Layer <= NumLayers; ++Layer) {
    waitStream(Default, AgStream);
    forward(Prev);
    Allocator->release(Prev); // del prev_params: the matmul still runs
    Prev = allGather(AgStream);
  }
  waitStream(Default, AgStream);
  forward(Prev);
  Allocator->release(Prev);
}

void stallProducer() {
  CUdeviceptr Prev = allGather(AgStream);
  for (int Layer = 2; Layer <= NumLayers; ++Layer) {
    waitStream(Default, AgStream);
    forward(Prev);
    CUevent FwdDone = recordEvent(Default);
    waitEvent(AgStream, FwdDone); // the producer waits before the block can be reused
    Allocator->release(Prev);
    Prev = allGather(AgStream);
  }
  waitStream(Default, AgStream);
  forward(Prev);
  CUevent FwdDone = recordEvent(Default);
  waitEvent(AgStream, FwdDone);
  Allocator->release(Prev);
}

void keepalive() {
  CUdeviceptr Keep = 0;
  CUevent KeepEvent = nullptr;
  CUdeviceptr Prev = allGather(AgStream);
  for (int Layer = 2; Layer <= NumLayers; ++Layer) {
    if (Keep) {
      waitEvent(AgStream, KeepEvent); // wait first, then release
      Allocator->release(Keep);
    }
    waitStream(Default, AgStream);
    forward(Prev);
    CUevent FwdDone = recordEvent(Default);
    Keep = Prev; // not freed yet: the next all-gather gets another block
    KeepEvent = FwdDone;
    Prev = allGather(AgStream);
  }
  if (Keep) {
    waitEvent(AgStream, KeepEvent);
    Allocator->release(Keep);
  }
  waitStream(Default, AgStream);
  forward(Prev);
  CUevent FwdDone = recordEvent(Default);
  waitEvent(AgStream, FwdDone);
  Allocator->release(Prev);
}

void recordStream() {
  CUdeviceptr Prev = allGather(AgStream);
  for (int Layer = 2; Layer <= NumLayers; ++Layer) {
    waitStream(Default, AgStream);
    forward(Prev);
    Allocator->recordStream(Prev, Default); // default also used this block
    Allocator->release(Prev);
    Prev = allGather(AgStream);
  }
  waitStream(Default, AgStream);
  forward(Prev);
  Allocator->recordStream(Prev, Default);
  Allocator->release(Prev);
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Pipeline = Argc > 1 ? Argv[1] : "";
  void (*Run)() = Pipeline == "no_lifetime_management" ? noLifetimeManagement
                  : Pipeline == "stall_producer"       ? stallProducer
                  : Pipeline == "keepalive"            ? keepalive
                  : Pipeline == "record_stream"        ? recordStream
                                                       : nullptr;
  if (!Run) {
    std::fprintf(stderr, "usage: seed_pipelines_program no_lifetime_management|stall_producer|"
                         "keepalive|record_stream\n");
    return 2;
  }
  const char *Cupti = std::getenv("STREAMLIFE_CUPTI_LIBRARY");
  void *Lib = Cupti ? dlopen(Cupti, RTLD_NOW) : nullptr;
  Call = Lib ? reinterpret_cast<CallFn>(dlsym(Lib, "fakeCuptiCall")) : nullptr;
  EventDone = Lib ? reinterpret_cast<EventDoneFn>(dlsym(Lib, "fakeCuptiEventDone")) : nullptr;
  auto SetDuration = Lib ? reinterpret_cast<DurationFn>(dlsym(Lib, "fakeCuptiSetDuration")) : nullptr;
  if (!Call || !EventDone || !SetDuration) {
    std::fprintf(stderr, "seed_pipelines_program: set STREAMLIFE_CUPTI_LIBRARY to the fake CUPTI\n");
    return 2;
  }
  // The seed's shapes on an H100: a 64 MiB all-gather is shorter than the
  // 4096x4096 matmul that reads it.
  SetDuration(FillName, 10000);
  SetDuration(MatmulName, 40000);

  CachingAllocator Pool;
  Allocator = &Pool;
  createStream(AgStream);
  X = Pool.allocate(ActivationBytes, Default); // x = torch.ones(...)
  Run();
  synchronize();
  for (CUdeviceptr R : Results) // the trial's results are dropped
    Pool.release(R);
  Pool.release(X);
  std::printf("%s: ran\n", Pipeline.c_str());
  return 0;
}
