//===- block_replay_cost.cpp - replaying a caching allocator's block events ===//
//
// What the self-profile's "block-event replay" phase costs per block event,
// without a GPU: an FSDP2-shaped program's caching-allocator events (ALLOC,
// FREE_REQUESTED, FREE_COMPLETED, as PyTorch's trace tracker reports them)
// and its host threads' kept lock handovers are queued into the real
// AnnotatedAllocators, and replayed, as the runtime does, at each CUDA call
// (a launch touching the blocks, an event record, a wait, a successful event
// query) through the real StreamResolver into the real Engine.
//
// The program, per step, on --units FSDP units with --acts activations each:
//   forward (thread 1): per unit, the all-gather input on the copy-in
//     stream, the all-gather output on the all-gather stream (each stream
//     waits for the previous one's event), the unsharded parameters on the
//     compute stream (the legacy default stream, handle 0), activations
//     (half kept for backward, half freed after the next launch); the
//     all-gather input and output are used on other streams than their own,
//     so their release completes only once an event recorded after that use
//     was queried (record_stream's deferral), at the next allocation;
//   backward (thread 2, autograd's): the same all-gathers, gradients of the
//     activations (releasing the forward's kept ones: blocks of thread 1
//     released by thread 2), the unsharded gradient, handed to the
//     reduce-scatter stream (record_stream-style) for a reduce-scatter input
//     and the sharded gradient;
//   optimizer (thread 1): foreach launches over the parameters and the
//     sharded gradients, a foreach temporary each, then zero_grad releases the
//     sharded gradients (blocks of the reduce-scatter stream, allocated by
//     thread 2).
// Blocks come from a caching pool per (stream, size), most recently freed
// first, inside one cudaMalloc'd segment per stream, as PyTorch's do.
// Between the block events, --host-per-block lock events (threads 1-4 taking
// --locks locks in turn; FSDP2 on one rank kept about 3 per block event)
// go through the same queue. Clocks are --slots wide (FSDP2: about 140).
// With --op-locks K each launch is made holding a framework's lock K times
// over (a dispatcher or registry lock per op: acquire before the launch,
// release after it), every thread the same locks; with --inplace N each
// activation (forward and backward) and each unit's optimizer step is
// followed by N in-place ops (an activation function, the optimizer's
// foreach updates): launches with no allocation before them. With --fw-grad
// K each launch first locks and unlocks each of its tensors' own mutex K
// times (AutogradMeta::fw_grad, FSDP2's most frequent kept lock event: a
// tensor's mutex, keyed here by its block, locked by the main thread in
// forward and by autograd's in backward, after the ready queue's handover).
//
// With --foreach N each unit has N parameters and two Adam states each
// (persistent blocks: thousands of live blocks), and the optimizer ends with
// Adam's foreach launches over all of them (multi_tensor_apply: the lists
// zipped, at most 60 pointers a launch; a gradient is an interior pointer
// into its unit's sharded gradient), with one list of results allocated and
// freed per step: FSDP2's widest launches (engine_width_cost's launches touch
// no memory).
//
// With --frees-together 1 no host event is queued between a release request
// and its release at once (PyTorch pushes both in one free call, under its
// lock; other threads' lock events rarely fall in between): the host events'
// credit waits for the release, so their number stays the same.
//
// --filter says which of the host events are queued: none (all, as given:
// the handovers are the kept ones), coarse (through the intercept's
// RedundantSyncFilter, every CUDA call and queued event counting as a
// change of the thread's clock, as before rtsync) or exact (counting only
// where the engine can change it: RedundantSyncFilter.h). --lock-kind says
// what the filter may assume of the locks: exclusive (pthread mutexes, as the
// runtime tells it: the last-releaser rule) or shared (semaphores: only the
// per-object rule, the filter before rtfilter). The threads' filters are
// played on this thread, one ThreadFilter each; the digest must be the same
// in every mode.
//
// With --evict KB, before each CUDA call (where the runtime replays) a
// buffer of KB kilobytes is read and written a cache line at a time
// (bench::CacheEvictor): the interpreter's and ATen's traffic between two
// CUDA calls, so the replay starts with cold caches as on the H200 host. The
// buffer is the benchmark's own; the digest is the same with and without it.
//
// The program is correct: the run must end with no finding (exit 1 if not).
// It prints the counts and a digest of the engine's state and the allocation
// sites' accounts, which must not change with an optimization.
//
//   block_replay_cost [--steps N] [--units U] [--acts A] [--slots W]
//                     [--host-per-block X] [--locks L] [--repeat R]
//                     [--op-locks K] [--inplace N] [--fw-grad K] [--foreach N]
//                     [--frees-together 0|1]
//                     [--filter none|coarse|exact] [--lock-kind exclusive|shared]
//                     [--evict KB] [--defer N]
//
// --defer N plays the runtime's defer_cuda_ops (InterceptContext::deferring):
// a launch, record or wait that finds events queued goes behind them, and the
// queue is replayed at a call that needs the engine (the event queries) or
// when N events wait; 0 (the default): replayed at every call, as before. It
// does not change the digest. (The replays' own time then holds the deferred
// calls' engine work too: compare the whole program, or callgrind's misses.)
//
// Instructions per block event: run under valgrind --tool=callgrind at two
// --steps and divide the difference of AnnotatedAllocators::drain's
// inclusive count by the difference of block events (bench/runtime/README.md).
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "CacheEvictor.h"

#include "allocators/AnnotatedAllocators.h"
#include "intercept/RedundantSyncFilter.h"
#include "intercept/StreamResolver.h"

#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using namespace streamlife::rt;
namespace bench = streamlife::bench;

namespace {

constexpr const char *Usage = "block_replay_cost [--steps N] [--units U] [--acts A] [--slots W] "
                              "[--host-per-block X] [--locks L] [--repeat R] [--op-locks K] [--inplace N] "
                              "[--fw-grad K] [--foreach N] [--frees-together 0|1] [--filter none|coarse|exact] "
                              "[--lock-kind exclusive|shared] [--evict KB] [--defer N]";

enum class FilterMode { None, Coarse, Exact };

struct Shape {
  std::size_t Steps = 20;
  unsigned Units = 10;
  unsigned Acts = 16;
  unsigned Slots = 140;
  double HostPerBlock = 3.0;
  unsigned Locks = 8;
  unsigned OpLocks = 0;
  unsigned InPlace = 0;
  unsigned FwGrad = 0;
  unsigned Foreach = 0;
  bool FreesTogether = false;
  FilterMode Filter = FilterMode::None;
  redundant_sync::LockKind LockKind = redundant_sync::LockKind::Exclusive;
  std::size_t EvictKiB = 0; ///< --evict: the program's traffic before each CUDA call
  std::size_t Defer = 0;    ///< --defer: launches, records and waits behind queued events
};

/// One call of the program: a queued event, or a CUDA call that replays the queue first.
struct Call {
  enum Kind : std::uint8_t { Queue, Launch, Record, Wait, Query } What = Queue;
  BlockEvent Event; ///< Queue
  ThreadId Thread = 0;
  Handle Stream = 0; ///< Launch, Record, Wait
  Handle Ev = 0;     ///< Record, Wait, Query
  std::vector<Addr> Words; ///< Launch
};

constexpr ThreadId Main = 1, Autograd = 2;
constexpr Handle Compute = 0; // the legacy default stream
constexpr Handle CopyIn = 0x7100, AllGather = 0x7200, ReduceScatter = 0x7300;
constexpr int Caching = 1; // the allocator's id (registered first)

/// Sites: allocation site S's ops are 1000 + 16 S + variant (SiteKey: op / 16).
enum Site : OpId {
  AgInput,
  AgOutput,
  Unsharded,
  Activation,
  ActivationGrad,
  UnshardedGrad,
  RsInput,
  ShardedGrad,
  ForeachTemp,
  ExpAvg,
  Parameter,     ///< --foreach: a unit's parameters, Adam's states
  ForeachResult, ///< --foreach: a foreach op's outputs, freed in the step
};

/// Writes the program: the caching pool, the streams' events, the host threads' handovers.
class Program {
public:
  explicit Program(const Shape &S) : S(S), Rng(7) {
    for (unsigned U = 0; U < S.Units; ++U) {
      Shards.push_back(allocate(Main, Compute, 1 << 20, ExpAvg, U));
      States.push_back(allocate(Main, Compute, 1 << 20, ExpAvg, U + 1));
    }
    for (unsigned I = 0; I < S.Units * S.Foreach; ++I)
      for (std::vector<Addr> *List : {&Params, &ExpAvgs, &ExpAvgSqs})
        List->push_back(allocate(Main, Compute, ParamBytes, Parameter, unsigned(List - &Params)));
    for (std::size_t Step = 0; Step < S.Steps; ++Step) {
      forward();
      handover(Main, Autograd); // loss.backward() hands the graph to autograd's thread
      backward();
      handover(Autograd, Main); // and waits for it
      optimizer();
    }
    settle(Main, 0);
  }

  std::vector<Call> Calls;
  std::size_t BlockEvents = 0, HostEvents = 0, CudaCalls = 0;

private:
  struct Pending {
    Addr Block;
    Handle Stream;
    Handle Event;
    ThreadId Thread;
  };

  void queue(const BlockEvent &E) {
    Call C;
    C.What = Call::Queue;
    C.Event = E;
    Calls.push_back(C);
  }
  void block(BlockEvent::Kind What, ThreadId T, Addr Ptr, std::uint64_t Size, Handle Stream,
             OpId Op, bool HostEventsAfter = true) {
    BlockEvent E;
    E.What = What;
    E.Allocator = Caching;
    E.Thread = T;
    E.Ptr = Ptr;
    E.Size = Size;
    E.Stream = Stream;
    E.Site = Op;
    queue(E);
    ++BlockEvents;
    if (HostEventsAfter)
      hostEvents();
    else
      HostCredit += S.HostPerBlock; // queued after a later block event
  }
  /// The kept lock handovers of threads 1-4: a release, then another thread's acquire.
  void hostEvents() {
    HostCredit += S.HostPerBlock;
    while (HostCredit >= 1) {
      HostCredit -= 1;
      BlockEvent E;
      if (!Holder) {
        Lock = 0x5000 + 64 * (Rng() % S.Locks);
        E.What = BlockEvent::Kind::HostReleased;
        E.Thread = Releaser = 1 + Rng() % 4;
        Holder = true;
      } else {
        E.What = BlockEvent::Kind::HostAcquired;
        E.Thread = 1 + (Releaser + Rng() % 3) % 4;
        Holder = false;
      }
      E.Ptr = Lock;
      queue(E);
      ++HostEvents;
    }
  }
  /// From releases a lock To acquires next: To is ordered after everything From did.
  void handover(ThreadId From, ThreadId To) {
    for (BlockEvent::Kind What : {BlockEvent::Kind::HostReleased, BlockEvent::Kind::HostAcquired}) {
      BlockEvent E;
      E.What = What;
      E.Thread = What == BlockEvent::Kind::HostReleased ? From : To;
      E.Ptr = 0x6000;
      queue(E);
      ++HostEvents;
    }
  }
  void cuda(Call::Kind What, ThreadId T, Handle Stream, Handle Ev,
            std::initializer_list<Addr> Words = {}) {
    cuda(What, T, Stream, Ev, std::vector<Addr>(Words));
  }
  void cuda(Call::Kind What, ThreadId T, Handle Stream, Handle Ev, std::vector<Addr> Words) {
    Call C;
    C.What = What;
    C.Thread = T;
    C.Stream = Stream;
    C.Ev = Ev;
    C.Words = std::move(Words);
    Calls.push_back(std::move(C));
    ++CudaCalls;
  }
  void launch(ThreadId T, Handle Stream, std::initializer_list<Addr> Words) {
    for (unsigned K = 0; K < S.OpLocks; ++K)
      opLock(BlockEvent::Kind::HostAcquired, T, K);
    if (S.FwGrad)
      tensorLocks(T, Words);
    cuda(Call::Launch, T, Stream, 0, Words);
    for (unsigned K = S.OpLocks; K-- > 0;)
      opLock(BlockEvent::Kind::HostReleased, T, K);
  }
  /// --inplace ops on Words: launches that allocate nothing.
  void inPlace(ThreadId T, Handle Stream, std::initializer_list<Addr> Words) {
    for (unsigned I = 0; I < S.InPlace; ++I)
      launch(T, Stream, Words);
  }
  /// The framework's lock K, held around an op.
  void opLock(BlockEvent::Kind What, ThreadId T, unsigned K) {
    BlockEvent E;
    E.What = What;
    E.Thread = T;
    E.Ptr = 0x8000 + 64 * K;
    queue(E);
    ++HostEvents;
  }
  /// --fw-grad: each tensor's mutex locked and unlocked K times.
  __attribute__((noinline)) void tensorLocks(ThreadId T, std::initializer_list<Addr> Words) {
    for (Addr W : Words)
      for (unsigned K = 0; K < S.FwGrad; ++K)
        for (BlockEvent::Kind What : {BlockEvent::Kind::HostAcquired, BlockEvent::Kind::HostReleased})
          tensorLock(What, T, W);
  }
  /// The mutex of the tensor in block A (AutogradMeta::mutex_).
  void tensorLock(BlockEvent::Kind What, ThreadId T, Addr A) {
    BlockEvent E;
    E.What = What;
    E.Thread = T;
    E.Ptr = 0x100000000000ull + A;
    queue(E);
    ++HostEvents;
  }
  Handle record(ThreadId T, Handle Stream) {
    Handle Ev = 0xe0000 + 16 * (NextEvent++ % 64);
    cuda(Call::Record, T, Stream, Ev);
    return Ev;
  }
  void wait(ThreadId T, Handle Stream, Handle Ev) { cuda(Call::Wait, T, Stream, Ev); }

  static OpId op(Site Where, unsigned Variant) { return 1000 + 16 * Where + Variant % 16; }
  /// The allocator's malloc: first the record_stream releases whose events completed.
  Addr allocate(ThreadId T, Handle Stream, std::uint64_t Size, Site Where, unsigned Variant) {
    settle(T);
    std::vector<Addr> &Free = FreeBlocks[{Stream, Size}];
    Addr A;
    if (!Free.empty()) {
      A = Free.back();
      Free.pop_back();
    } else {
      Addr &Next = NextInSegment[Stream];
      if (!Next)
        Next = 0x7f0000000000 + 0x100000000 * NextInSegment.size();
      A = Next;
      Next += Size;
    }
    Sizes[A] = Size;
    block(BlockEvent::Kind::Allocated, T, A, Size, Stream, op(Where, Variant));
    return A;
  }
  /// The owner lets go; used only on its stream: back in the pool at once.
  void release(ThreadId T, Addr A, Handle Stream, Site Where, unsigned Variant) {
    // PyTorch pushes such a free's request and release in one call, under
    // its lock: with --frees-together 1 no lock event comes between (their
    // credit waits for the release).
    block(BlockEvent::Kind::ReleaseRequested, T, A, 0, Stream, 2000 + 16 * Where + Variant % 16,
          !S.FreesTogether);
    complete(T, A, Stream, Where, Variant);
  }
  /// record_stream: used on Other too; back once an event recorded there completed.
  void releaseAfter(ThreadId T, Addr A, Handle Stream, Handle Other, Site Where, unsigned Variant) {
    block(BlockEvent::Kind::ReleaseRequested, T, A, 0, Stream, 2000 + 16 * Where + Variant % 16);
    Deferred.push_back(Pending{A, Stream, record(T, Other), T});
  }
  void complete(ThreadId T, Addr A, Handle Stream, Site Where, unsigned Variant) {
    block(BlockEvent::Kind::Released, T, A, 0, Stream, 3000 + 16 * Where + Variant % 16);
    FreeBlocks[{Stream, Sizes[A]}].push_back(A);
  }
  /// process_events: the record_stream releases whose events completed. The
  /// newest two are still running (their bytes are held back).
  void settle(ThreadId T, std::size_t StillRunning = 2) {
    while (Deferred.size() > StillRunning) {
      const Pending P = Deferred.front();
      Deferred.erase(Deferred.begin());
      cuda(Call::Query, T, 0, P.Event);
      complete(T, P.Block, P.Stream, AgInput, 15);
    }
  }

  /// The all-gather of unit U: returns the unsharded parameters on the compute stream.
  Addr unshard(ThreadId T, unsigned U) {
    Addr In = allocate(T, CopyIn, 2 << 20, AgInput, U);
    launch(T, CopyIn, {Shards[U], In});
    wait(T, AllGather, record(T, CopyIn));
    Addr Out = allocate(T, AllGather, 8 << 20, AgOutput, U);
    launch(T, AllGather, {In, Out});
    releaseAfter(T, In, CopyIn, AllGather, AgInput, U);
    wait(T, Compute, record(T, AllGather));
    Addr Params = allocate(T, Compute, 8 << 20, Unsharded, U);
    launch(T, Compute, {Out, Params});
    releaseAfter(T, Out, AllGather, Compute, AgOutput, U);
    return Params;
  }

  void forward() {
    Saved.assign(S.Units, {});
    for (unsigned U = 0; U < S.Units; ++U) {
      Addr Params = unshard(Main, U);
      Addr Prev = Params;
      for (unsigned K = 0; K < S.Acts; ++K) {
        Addr A = allocate(Main, Compute, 1 << 20, Activation, K);
        launch(Main, Compute, {Params, Prev, A});
        inPlace(Main, Compute, {A});
        if (K % 2)
          release(Main, Prev, Compute, Activation, K);
        else if (K)
          Saved[U].push_back(Prev);
        Prev = A;
      }
      Saved[U].push_back(Prev);
      release(Main, Params, Compute, Unsharded, U);
    }
  }

  void backward() {
    Grads.assign(S.Units, 0);
    for (unsigned U = S.Units; U-- > 0;) {
      Addr Params = unshard(Autograd, U);
      Addr Prev = 0;
      for (unsigned K = 0; K < S.Acts; ++K) {
        Addr G = allocate(Autograd, Compute, 1 << 20, ActivationGrad, K);
        Addr Act = K < Saved[U].size() ? Saved[U][Saved[U].size() - 1 - K] : Params;
        launch(Autograd, Compute, {Params, Act, G});
        inPlace(Autograd, Compute, {G});
        if (K < Saved[U].size())
          release(Autograd, Act, Compute, Activation, K); // thread 1's block
        if (Prev)
          release(Autograd, Prev, Compute, ActivationGrad, K);
        Prev = G;
      }
      Addr Grad = allocate(Autograd, Compute, 8 << 20, UnshardedGrad, U);
      launch(Autograd, Compute, {Prev, Grad});
      release(Autograd, Prev, Compute, ActivationGrad, 0);
      release(Autograd, Params, Compute, Unsharded, U);
      wait(Autograd, ReduceScatter, record(Autograd, Compute));
      Addr In = allocate(Autograd, ReduceScatter, 8 << 20, RsInput, U);
      launch(Autograd, ReduceScatter, {Grad, In});
      releaseAfter(Autograd, Grad, Compute, ReduceScatter, UnshardedGrad, U);
      Grads[U] = allocate(Autograd, ReduceScatter, 1 << 20, ShardedGrad, U);
      launch(Autograd, ReduceScatter, {In, Grads[U]});
      release(Autograd, In, ReduceScatter, RsInput, U);
    }
    LastReduceScatter = record(Autograd, ReduceScatter);
  }

  void optimizer() {
    wait(Main, Compute, LastReduceScatter);
    for (unsigned U = 0; U < S.Units; ++U) {
      Addr Temp = allocate(Main, Compute, 1 << 20, ForeachTemp, U);
      launch(Main, Compute, {Shards[U], Grads[U], States[U], Temp});
      inPlace(Main, Compute, {Shards[U], States[U]});
      release(Main, Temp, Compute, ForeachTemp, U);
    }
    if (S.Foreach)
      foreachAdam();
    for (unsigned U = 0; U < S.Units; ++U)
      release(Main, Grads[U], ReduceScatter, ShardedGrad, U); // zero_grad: thread 2's blocks
  }

  /// --foreach N: Adam's foreach step over every unit's N parameters, as
  /// multi_tensor_apply launches it: the tensor lists zipped, in chunks of at
  /// most MaxForeachWords pointers. A parameter's gradient is a view into its
  /// unit's sharded gradient (an interior pointer); one list of results is
  /// allocated for the step and freed after it (blocks of earlier lifetimes).
  void foreachAdam() {
    const std::size_t N = Params.size();
    std::vector<Addr> GradViews(N), Results(N);
    for (std::size_t I = 0; I < N; ++I)
      GradViews[I] = Grads[I / S.Foreach] + (I % S.Foreach) * 1024;
    foreachLaunch({&ExpAvgs, &GradViews});             // exp_avg.lerp_(grad)
    foreachLaunch({&ExpAvgSqs, &GradViews, &GradViews}); // exp_avg_sq.mul_().addcmul_(grad, grad)
    for (std::size_t I = 0; I < N; ++I)
      Results[I] = allocate(Main, Compute, ParamBytes, ForeachResult, 0);
    foreachLaunch({&ExpAvgSqs, &Results});               // sqrt
    foreachLaunch({&Results, &ExpAvgs, &Params});        // param.addcdiv_(exp_avg, denom)
    for (std::size_t I = 0; I < N; ++I)
      release(Main, Results[I], Compute, ForeachResult, 0);
  }
  void foreachLaunch(std::initializer_list<const std::vector<Addr> *> Lists) {
    const std::size_t PerLaunch = std::max<std::size_t>(1, MaxForeachWords / Lists.size());
    const std::size_t N = (*Lists.begin())->size();
    for (std::size_t First = 0; First < N; First += PerLaunch) {
      std::vector<Addr> Words;
      for (const std::vector<Addr> *List : Lists)
        for (std::size_t I = First; I < std::min(N, First + PerLaunch); ++I)
          Words.push_back((*List)[I]);
      cuda(Call::Launch, Main, Compute, 0, std::move(Words));
    }
  }
  static constexpr std::size_t MaxForeachWords = 60;
  static constexpr std::uint64_t ParamBytes = 256 << 10;

  const Shape &S;
  std::mt19937 Rng;
  std::map<std::pair<Handle, std::uint64_t>, std::vector<Addr>> FreeBlocks;
  std::map<Handle, Addr> NextInSegment;
  std::unordered_map<Addr, std::uint64_t> Sizes;
  std::vector<Pending> Deferred;
  std::vector<Addr> Shards, States, Grads;
  std::vector<Addr> Params, ExpAvgs, ExpAvgSqs; ///< --foreach: by unit, then parameter
  std::vector<std::vector<Addr>> Saved;
  Handle LastReduceScatter = 0;
  unsigned NextEvent = 0;
  double HostCredit = 0;
  bool Holder = false;
  ThreadId Releaser = 0;
  SyncId Lock = 0;
};

CUresult deviceZero(CUdevice *D) {
  *D = 0;
  return CUDA_SUCCESS;
}

/// The validator's side: engine, stream resolver, annotated allocators.
struct Validator {
  explicit Validator(const Shape &S)
      : Mode(S.Filter), Kind(S.LockKind), E(Sink), Resolver(E, driver()),
        Annotated(E, [this](OpId Op) { return siteKey(Op); }), Filters(8), Evictor(S.EvictKiB), Defer(S.Defer) {
    Annotated.registerAllocator("PyTorch caching allocator", 1);
    for (Handle H : {CopyIn, AllGather, ReduceScatter})
      Resolver.created(Main, reinterpret_cast<CUstream>(H), CU_STREAM_NON_BLOCKING, 0, Ctx);
    Resolver.resolve(Main, nullptr, false, Ctx);
    // The process's other streams (NCCL's, the copy engines') widen every clock.
    bench::widen(E, {1, 2, 3, 4}, S.Slots > 8 ? S.Slots - 4 : 4);
    // The allocator's segments (cudaMalloc), which its blocks are carved from.
    for (unsigned I = 1; I <= 4; ++I)
      E.allocated(Main, Range{0x7f0000000000 + 0x100000000 * Addr(I), 0x80000000}, AllocKind::Device,
                  NoStream, 9, 0);
  }
  static const DriverApi &driver() {
    static DriverApi D = [] {
      DriverApi A;
      A.CtxGetDevice = deviceZero;
      return A;
    }();
    return D;
  }
  /// As the runtime's (intercept/Runtime.cpp): a cache of op -> site key
  /// under a lock, the key computed outside it on a miss.
  std::uint64_t siteKey(OpId Op) {
    {
      std::lock_guard<std::mutex> Guard(SiteKeyLock);
      if (auto It = SiteKeys.find(Op); It != SiteKeys.end())
        return It->second;
    }
    std::lock_guard<std::mutex> Guard(SiteKeyLock);
    SiteKeys.emplace(Op, Op / 16);
    return Op / 16;
  }
  StreamId stream(ThreadId T, Handle H) {
    return Resolver.resolve(T, reinterpret_cast<CUstream>(H), false, Ctx);
  }
  void replay() {
    if (Annotated.hasPending())
      Annotated.drain([this](ThreadId Owner, Handle H) { return stream(Owner, H); });
  }
  /// replay(), its wall time added to ReplayNs (with --evict the whole
  /// program's time is mostly the evictor's).
  void timedReplay() {
    auto Start = std::chrono::steady_clock::now();
    replay();
    ReplayNs += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - Start)
                    .count();
  }
  /// As InterceptContext tells the thread's filter of an event it queued.
  void queued(const BlockEvent &Event) {
    redundant_sync::ThreadFilter &F = Filters[Event.Thread];
    if (Mode == FilterMode::Coarse) {
      F.clockMayChange();
      return;
    }
    using redundant_sync::Queued;
    switch (Event.What) {
    case BlockEvent::Kind::Allocated:
      return F.queued(Queued::Allocation);
    case BlockEvent::Kind::ReleaseRequested:
      return F.queued(Queued::ReleaseRequest);
    case BlockEvent::Kind::Released:
      return F.queued(Queued::BlockRelease);
    case BlockEvent::Kind::HostReleased:
      return F.queued(Queued::Release);
    default: // the program queues no other kind
      return F.queued(Queued::Acquire);
    }
  }
  /// A host event through the filter, as InterceptThreads.cpp queues it.
  void hostEvent(const BlockEvent &Event) {
    redundant_sync::ThreadFilter &F = Filters[Event.Thread];
    if (Event.What == BlockEvent::Kind::HostReleased) {
      if (F.releaseIsRedundant(Event.Ptr)) {
        ++DroppedHostEvents;
        return;
      }
      Annotated.push(Event);
      queued(Event);
      F.releaseQueued(Event.Ptr, Kind);
    } else {
      redundant_sync::AcquireCheck Check = F.checkAcquire(Event.Ptr, Kind);
      if (Check.redundant()) {
        ++DroppedHostEvents;
        return;
      }
      Annotated.push(Event);
      queued(Event);
      F.acquireQueued(Event.Ptr, Check);
    }
    ++KeptHostEvents;
  }
  void play(const Call &C) {
    if (C.What == Call::Queue) {
      if (C.Event.What >= BlockEvent::Kind::HostReleased) {
        if (Mode != FilterMode::None)
          return hostEvent(C.Event);
        ++KeptHostEvents;
        Annotated.push(C.Event);
        return;
      }
      // As the annotation entry point: a release named by its request is
      // queued without capturing its own site.
      if (C.Event.What == BlockEvent::Kind::Released &&
          Annotated.pushReleaseNamedByRequest(C.Event)) {
        ++UncapturedReleases;
        if (Mode != FilterMode::None)
          queued(C.Event);
        return;
      }
      Annotated.push(C.Event);
      if (Mode != FilterMode::None)
        queued(C.Event);
      return;
    }
    // As InterceptScope: the thread's time read before the replay and after the call.
    redundant_sync::ThreadFilter &F = Filters[C.Thread];
    redundant_sync::ThreadFilter::CallMark Mark{};
    if (Mode == FilterMode::Coarse)
      F.clockMayChange();
    else if (Mode == FilterMode::Exact)
      Mark = F.cudaCallEntered(Engine::hostWord(E.hostState(C.Thread)));
    if (Evictor.enabled())
      Evictor.touch();
    // As InterceptScope::runCommonCase and InterceptContext::deferring: a
    // launch, record or wait goes behind queued events while fewer than
    // Defer wait; anything else replays first.
    const bool Deferrable = Defer && C.What != Call::Query && C.What != Call::Queue;
    const bool Unsettled = Deferrable && Annotated.hasPending() && Annotated.unapplied() < Defer;
    if (Unsettled) {
      callDeferred(C, F);
    } else {
      timedReplay();
      call(C);
    }
    if (Mode == FilterMode::Exact) {
      if (Unsettled)
        F.cudaCallLeftUnsettled(Mark, Engine::hostWord(E.hostState(C.Thread)));
      else
        F.cudaCallLeft(Mark, Engine::hostWord(E.hostState(C.Thread)));
    }
  }
  /// call(C) queued behind the events (AnnotatedAllocators::pushLaunch and kin).
  void callDeferred(const Call &C, redundant_sync::ThreadFilter &F) {
    switch (C.What) {
    case Call::Launch:
      Words.clear();
      for (Addr W : C.Words)
        Words.push_back(PointerWord{W, false});
      Annotated.pushLaunch(C.Thread, stream(C.Thread, C.Stream), Words.data(), Words.size(), 7, 8);
      break;
    case Call::Record:
      Annotated.pushEventRecorded(C.Thread, C.Ev, stream(C.Thread, C.Stream));
      break;
    case Call::Wait:
      Annotated.pushStreamWaited(C.Thread, stream(C.Thread, C.Stream), C.Ev);
      break;
    default:
      return;
    }
    if (Mode == FilterMode::Exact)
      F.queued(redundant_sync::Queued::Access);
    else if (Mode == FilterMode::Coarse)
      F.clockMayChange();
  }
  void call(const Call &C) {
    switch (C.What) {
    case Call::Launch: {
      Words.clear();
      for (Addr W : C.Words)
        Words.push_back(PointerWord{W, false});
      E.launchedWithPointerWords(C.Thread, stream(C.Thread, C.Stream), Words.data(), Words.size(), 7,
                                 8);
      break;
    }
    case Call::Record:
      E.eventRecorded(C.Thread, C.Ev, stream(C.Thread, C.Stream));
      break;
    case Call::Wait:
      E.streamWaitsEvent(C.Thread, stream(C.Thread, C.Stream), C.Ev);
      break;
    case Call::Query:
      E.hostSyncsEvent(C.Thread, C.Ev);
      break;
    case Call::Queue:
      break;
    }
  }

  FilterMode Mode;
  redundant_sync::LockKind Kind;
  CUcontext Ctx = reinterpret_cast<CUcontext>(0xc000);
  bench::CountingSink Sink;
  Engine E;
  StreamResolver Resolver;
  AnnotatedAllocators Annotated;
  std::mutex SiteKeyLock;
  std::unordered_map<OpId, std::uint64_t> SiteKeys;
  std::size_t UncapturedReleases = 0; ///< releases whose site needed no capture
  std::vector<redundant_sync::ThreadFilter> Filters; ///< by thread
  std::size_t KeptHostEvents = 0, DroppedHostEvents = 0;
  std::vector<PointerWord> Words; ///< a launch's, reused
  bench::CacheEvictor Evictor; ///< --evict
  std::size_t Defer; ///< --defer
  double ReplayNs = 0;          ///< in the replays before CUDA calls
};

/// Plays the program once; returns ns per block event.
double play(const Program &P, Validator &V) {
  auto Start = std::chrono::steady_clock::now();
  for (const Call &C : P.Calls)
    V.play(C);
  V.replay();
  auto End = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(End - Start).count() / double(P.BlockEvents);
}

/// What must not change with an optimization: findings, engine state, accounts.
void printDigest(Validator &V) {
  Engine::Stats St = V.E.stats();
  std::printf("findings %zu, live %zu, segments %zu, records %zu, dropped %zu, deferred %zu "
              "(pending %zu), concurrent allocations %zu\n",
              St.Findings, St.LiveAllocations, St.ShadowSegments, St.RecordedAccesses,
              St.DroppedRecords, St.DeferredNotReported, St.DeferredPending,
              St.ConcurrentAllocations);
  for (const BlockAccount &A : V.Annotated.accounts())
    std::printf("site %" PRIu64 " (op %u): %zu allocations, %zu blocks, peak live %zu, peak held "
                "back %" PRIu64 "\n",
                A.SiteKey, A.Site, A.Allocations, A.DistinctBlocks, A.PeakLiveBlocks,
                A.PeakHeldBackBytes);
  for (const Engine::DeferredRelease &D : V.E.deferredReleases())
    std::printf("deferred: release %u/%u, access %u/%u: %zu (%zu unordered)\n", D.Release.Stream,
                D.Release.Op, D.Access.Stream, D.Access.Op, D.Count, D.StillUnordered);
}

[[noreturn]] void usage(const std::string &Why) { bench::usageError(Why, Usage); }

} // namespace

int main(int Argc, char **Argv) {
  Shape S;
  unsigned Repeat = 1;
  for (int I = 1; I < Argc; ++I) {
    const char *Flag = Argv[I];
    if (I + 1 >= Argc)
      usage(std::string("missing value for ") + Flag);
    const std::string Value = Argv[++I];
    if (!std::strcmp(Flag, "--steps"))
      S.Steps = bench::number(Flag, Value, Usage);
    else if (!std::strcmp(Flag, "--units"))
      S.Units = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--acts"))
      S.Acts = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--slots"))
      S.Slots = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--host-per-block"))
      S.HostPerBlock = std::strtod(Value.c_str(), nullptr);
    else if (!std::strcmp(Flag, "--locks"))
      S.Locks = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--op-locks"))
      S.OpLocks = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--foreach"))
      S.Foreach = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--frees-together"))
      S.FreesTogether = bench::number(Flag, Value, Usage) != 0;
    else if (!std::strcmp(Flag, "--fw-grad"))
      S.FwGrad = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--lock-kind")) {
      if (Value == "exclusive")
        S.LockKind = redundant_sync::LockKind::Exclusive;
      else if (Value == "shared")
        S.LockKind = redundant_sync::LockKind::Shared;
      else
        usage("--lock-kind is exclusive or shared");
    } else if (!std::strcmp(Flag, "--inplace"))
      S.InPlace = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else if (!std::strcmp(Flag, "--filter")) {
      if (Value == "none")
        S.Filter = FilterMode::None;
      else if (Value == "coarse")
        S.Filter = FilterMode::Coarse;
      else if (Value == "exact")
        S.Filter = FilterMode::Exact;
      else
        usage("--filter is none, coarse or exact");
    } else if (!std::strcmp(Flag, "--evict"))
      S.EvictKiB = bench::number(Flag, Value, Usage);
    else if (!std::strcmp(Flag, "--defer"))
      S.Defer = bench::number(Flag, Value, Usage);
    else if (!std::strcmp(Flag, "--repeat"))
      Repeat = static_cast<unsigned>(bench::number(Flag, Value, Usage));
    else
      usage(std::string("unknown option '") + Flag + "'");
  }
  if (S.Units < 1 || S.Acts < 2 || S.Locks < 1 || Repeat < 1 || S.HostPerBlock < 0)
    usage("--units, --locks and --repeat must be positive, --acts at least 2");

  const Program P(S);
  std::printf("block_replay_cost: %zu steps, %u units of %u activations, %u slots: %zu block "
              "events, %zu host events, %zu CUDA calls\n",
              S.Steps, S.Units, S.Acts, S.Slots, P.BlockEvents, P.HostEvents, P.CudaCalls);
  std::vector<double> Ns, ReplayNs;
  std::size_t Findings = 0, Uncaptured = 0, Kept = 0, Dropped = 0;
  for (unsigned R = 0; R < Repeat; ++R) {
    Validator V(S);
    Ns.push_back(play(P, V));
    ReplayNs.push_back(V.ReplayNs / double(P.BlockEvents));
    Findings = V.Sink.Count;
    Uncaptured = V.UncapturedReleases;
    Kept = V.KeptHostEvents;
    Dropped = V.DroppedHostEvents;
    if (R + 1 == Repeat)
      printDigest(V);
  }
  std::printf("releases queued without capturing their site: %zu of %zu block events\n", Uncaptured,
              P.BlockEvents);
  std::printf("host events: %zu queued, %zu dropped by the filter (%s, %s locks)\n", Kept, Dropped,
              S.Filter == FilterMode::None     ? "none"
              : S.Filter == FilterMode::Coarse ? "coarse"
                                               : "exact",
              S.LockKind == redundant_sync::LockKind::Exclusive ? "exclusive" : "shared");
  std::printf("ns per block event (the whole program, median of %u): %.1f\n", Repeat,
              bench::median(Ns));
  std::printf("ns per block event in the replays (drain), median of %u: %.1f\n", Repeat,
              bench::median(ReplayNs));
  if (Findings) {
    std::fprintf(stderr, "error: the program is correct, yet %zu findings\n", Findings);
    return 1;
  }
  return 0;
}
