//===- host_sync_cost.cpp - the engine's cost per host synchronization event ===//
//
// What one lock handover costs the engine as the clocks widen (a slot per
// stream and host thread: FSDP2 on one rank creates 132 streams). Two paths
// play the same event sequence side by side, interleaved, in one run:
//   plain   whole-clock joins: a release joins the thread's whole clock into
//           the object's, an acquire the object's whole clock into the
//           thread's (the engine before the logged clocks; copied here);
//   logged  the engine's HostClocks and SyncClocks, which read only the slots
//           that changed since a thread and an object were last in step.
// The sequence: threads taking a few locks in turn (acquire, a CUDA call,
// release), every acquire after another thread's release (the events the
// intercept's RedundantSyncFilter keeps), and optionally a GPU sync every
// K events (a stream sync: the thread learns one stream's new tick, a
// whole-clock join in both paths). Both paths must end with the same clocks.
// A third figure is the logged path through the engine's public entry points
// (its lock and lookups included), acquires and releases only.
//
//   host_sync_cost [--slots 2,140,300] [--events N] [--repeat R]
//                  [--threads T] [--objects O] [--gpu-sync-every K]
//
// Prints one line per width: ns per lock event (acquire or release; the CUDA
// calls and GPU syncs between them included) for each path, medians of R
// rounds, lock events per second, and plain/logged. Exit 0; 1 when the paths
// disagree; 2 on bad usage.
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "engine/Engine.h"
#include "engine/HostClocks.h"
#include "engine/SyncClocks.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using namespace streamlife::rt;

namespace {

struct Event {
  enum Kind : unsigned char { Acquire, Release, CudaCall, GpuSync } What;
  unsigned char Thread;
  unsigned short Stream; ///< GpuSync: which stream advanced
  SyncId Object;
};

/// Threads taking locks in turn: thread T acquires lock O (released last by
/// another thread), makes a CUDA call, releases it.
std::vector<Event> makeSequence(unsigned Threads, unsigned Objects, unsigned Streams,
                                std::size_t Events, unsigned GpuSyncEvery) {
  std::vector<Event> Seq;
  Seq.reserve(Events + Events / 2);
  std::mt19937 Rng(42);
  std::vector<unsigned> LastReleaser(Objects, 0);
  std::size_t Counted = 0;
  while (Counted < Events) {
    const unsigned O = Rng() % Objects;
    unsigned T = Rng() % Threads;
    if (Threads > 1 && T == LastReleaser[O])
      T = (T + 1) % Threads;
    const SyncId Obj = 0x10000 + 64 * O;
    Seq.push_back({Event::Acquire, static_cast<unsigned char>(T), 0, Obj});
    Seq.push_back({Event::CudaCall, static_cast<unsigned char>(T), 0, 0});
    Seq.push_back({Event::Release, static_cast<unsigned char>(T), 0, Obj});
    LastReleaser[O] = T;
    Counted += 2;
    if (GpuSyncEvery && Streams && Counted % GpuSyncEvery < 2)
      Seq.push_back({Event::GpuSync, static_cast<unsigned char>(T),
                     static_cast<unsigned short>(Rng() % Streams), 0});
  }
  return Seq;
}

/// The device: one clock per stream slot, each stream's clock knowing its own
/// tick (what a stream sync teaches a host thread).
struct Device {
  std::vector<ClockSlot> Slots;
  std::vector<VectorClock> Clocks;
  const VectorClock &advance(unsigned S) {
    Clocks[S].tick(Slots[S]);
    return Clocks[S];
  }
};

/// The engine's host synchronization before the logged clocks, with the
/// same calls out of line as there (HostClocks' lookup, learned and stamp
/// live in HostClocks.cpp, the joins in VectorClock.cpp), so the two paths
/// differ in what they do, not in what the compiler could inline.
#define NOINLINE __attribute__((noinline))
struct PlainPath {
  struct Host {
    ClockSlot Slot;
    VectorClock Clock;
    bool ReleasedSinceTick = false;
    Epoch now() const { return Epoch{Slot, Clock.get(Slot)}; }
    NOINLINE void learned() {
      Clock.tick(Slot);
      ReleasedSinceTick = false;
    }
    NOINLINE void stamp() {
      if (ReleasedSinceTick)
        learned();
    }
  };
  std::vector<Host> Hosts;
  std::unordered_map<SyncId, VectorClock> Syncs;
  Device Dev;

  NOINLINE Host &host(unsigned T) { return Hosts[T]; }

  void play(const Event &E) {
    Host &H = host(E.Thread);
    switch (E.What) {
    case Event::Acquire: {
      auto It = Syncs.find(E.Object);
      if (It != Syncs.end() && H.Clock.absorb(It->second))
        H.learned();
      return;
    }
    case Event::Release: {
      VectorClock &C = Syncs[E.Object];
      if (!C.covers(H.now()))
        C.join(H.Clock);
      H.ReleasedSinceTick = true;
      return;
    }
    case Event::CudaCall:
      H.stamp();
      return;
    case Event::GpuSync:
      H.Clock.join(Dev.advance(E.Stream));
      H.learned();
      return;
    }
  }
};

struct LoggedPath {
  SlotAllocator Slots;
  HostClocks Hosts{Slots};
  SyncClocks Syncs{1u << 16};
  Device Dev;

  void play(const Event &E) {
    HostClock &H = *Hosts.find(E.Thread);
    switch (E.What) {
    case Event::Acquire:
      if (SyncClock *C = Syncs.find(E.Object))
        if (Syncs.acquire(H, *C))
          Hosts.learned(H);
      return;
    case Event::Release:
      Syncs.release(H, E.Object);
      Hosts.released(H);
      return;
    case Event::CudaCall:
      Hosts.stamp(H);
      return;
    case Event::GpuSync:
      H.Clock.join(Dev.advance(E.Stream));
      Hosts.learned(H);
      return;
    }
  }
};

/// Slots [0, Threads) are the host threads', the rest streams' that every
/// thread has synchronized with once (the clocks are Slots wide).
void setUp(PlainPath &Plain, LoggedPath &Logged, unsigned Threads, unsigned Slots) {
  for (unsigned T = 0; T < Threads; ++T) {
    HostClock &H = Logged.Hosts.forSync(T);
    Plain.Hosts.push_back({H.Slot, {}});
    Plain.Hosts.back().Clock.tick(H.Slot);
  }
  for (unsigned S = Threads; S < Slots; ++S) {
    ClockSlot Slot = Logged.Slots.allocate();
    for (Device *D : {&Plain.Dev, &Logged.Dev}) {
      D->Slots.push_back(Slot);
      D->Clocks.emplace_back();
    }
  }
  for (unsigned T = 0; T < Threads; ++T)
    for (unsigned S = 0; S + Threads < Slots; ++S) {
      Plain.play({Event::GpuSync, static_cast<unsigned char>(T), static_cast<unsigned short>(S), 0});
      Logged.play({Event::GpuSync, static_cast<unsigned char>(T), static_cast<unsigned short>(S), 0});
    }
}

std::size_t lockEvents(const std::vector<Event> &Seq) {
  return static_cast<std::size_t>(std::count_if(Seq.begin(), Seq.end(), [](const Event &E) {
    return E.What == Event::Acquire || E.What == Event::Release;
  }));
}

template <typename Path> double nsPerEvent(Path &P, const std::vector<Event> &Seq) {
  auto Start = std::chrono::steady_clock::now();
  for (const Event &E : Seq)
    P.play(E);
  auto End = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(End - Start).count() / double(lockEvents(Seq));
}

/// The acquires and releases of the sequence through Engine's entry points
/// (its lock and lookups included; the CUDA calls and GPU syncs between them
/// are not played). The width comes from Slots - Threads streams with work
/// each thread synchronized with.
double engineNsPerEvent(const std::vector<Event> &Seq, unsigned Threads, unsigned Slots) {
  streamlife::bench::CountingSink Sink;
  Engine E(Sink);
  std::vector<ThreadId> Ids;
  for (unsigned T = 0; T < Threads; ++T)
    Ids.push_back(T);
  streamlife::bench::widen(E, Ids, Slots, StreamFlavor::Blocking);
  auto Start = std::chrono::steady_clock::now();
  for (const Event &Ev : Seq) {
    if (Ev.What == Event::Acquire)
      E.hostAcquires(Ev.Thread, Ev.Object);
    else if (Ev.What == Event::Release)
      E.hostReleases(Ev.Thread, Ev.Object);
  }
  auto End = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(End - Start).count() / double(lockEvents(Seq));
}

bool sameClocks(const PlainPath &Plain, LoggedPath &Logged, unsigned Threads) {
  for (unsigned T = 0; T < Threads; ++T) {
    const VectorClock &A = Plain.Hosts[T].Clock, &B = Logged.Hosts.find(T)->Clock;
    if (!A.dominates(B) || !B.dominates(A))
      return false;
  }
  for (const auto &[Id, Clock] : Plain.Syncs) {
    const SyncClock *C = Logged.Syncs.find(Id);
    if (!C || !C->Clock.dominates(Clock) || !Clock.dominates(C->Clock))
      return false;
  }
  return true;
}

constexpr const char *Usage = "host_sync_cost [--slots 2,140,300] [--events N] [--repeat R] "
                              "[--threads T] [--objects O] [--gpu-sync-every K]";

[[noreturn]] void usage(const std::string &Why) { streamlife::bench::usageError(Why, Usage); }

unsigned long number(const char *Flag, const std::string &Text) {
  return streamlife::bench::number(Flag, Text, Usage);
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<unsigned> Widths = {2, 140, 300};
  std::size_t Events = 1000000;
  unsigned Repeat = 5, Threads = 2, Objects = 4, GpuSyncEvery = 0;
  for (int I = 1; I < Argc; ++I) {
    const char *Flag = Argv[I];
    if (I + 1 >= Argc)
      usage(std::string("missing value for ") + Flag);
    const char *Value = Argv[++I];
    if (!std::strcmp(Flag, "--slots")) {
      Widths.clear();
      for (const std::string &W : streamlife::bench::split(Value))
        Widths.push_back(static_cast<unsigned>(number(Flag, W)));
    } else if (!std::strcmp(Flag, "--events"))
      Events = number(Flag, Value);
    else if (!std::strcmp(Flag, "--repeat"))
      Repeat = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--threads"))
      Threads = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--objects"))
      Objects = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--gpu-sync-every"))
      GpuSyncEvery = static_cast<unsigned>(number(Flag, Value));
    else
      usage(std::string("unknown option '") + Flag + "'");
  }
  if (Threads < 1 || Threads > 255 || Objects < 1 || Repeat < 1 || Events < 2)
    usage("--threads 1..255, --objects, --repeat and --events (>= 2) must be positive");
  for (unsigned W : Widths)
    if (W < Threads || W - Threads > 65535)
      usage("every --slots width must be at least --threads and at most --threads + 65535 "
            "(the host threads' slots count)");

  std::printf("host_sync_cost: %zu lock events, %u threads, %u locks, gpu sync every %u, %u rounds\n",
              Events, Threads, Objects, GpuSyncEvery, Repeat);
  std::printf("%6s %12s %12s %12s %14s %14s %8s\n", "slots", "plain_ns", "logged_ns", "engine_ns",
              "plain_ev/s", "logged_ev/s", "ratio");
  for (unsigned W : Widths) {
    const std::vector<Event> Seq = makeSequence(Threads, Objects, W - Threads, Events, GpuSyncEvery);
    std::vector<double> PlainNs, LoggedNs, EngineNs;
    for (unsigned R = 0; R < Repeat; ++R) {
      PlainPath Plain;
      LoggedPath Logged;
      setUp(Plain, Logged, Threads, W);
      // Alternate which path goes first, so neither always runs on a warm cache.
      if (R % 2) {
        LoggedNs.push_back(nsPerEvent(Logged, Seq));
        PlainNs.push_back(nsPerEvent(Plain, Seq));
      } else {
        PlainNs.push_back(nsPerEvent(Plain, Seq));
        LoggedNs.push_back(nsPerEvent(Logged, Seq));
      }
      if (!sameClocks(Plain, Logged, Threads)) {
        std::fprintf(stderr, "error: the logged clocks differ from the plain ones at %u slots\n", W);
        return 1;
      }
      EngineNs.push_back(engineNsPerEvent(Seq, Threads, W));
    }
    const double P = streamlife::bench::median(PlainNs), L = streamlife::bench::median(LoggedNs),
                 E = streamlife::bench::median(EngineNs);
    std::printf("%6u %12.1f %12.1f %12.1f %14.0f %14.0f %7.2fx\n", W, P, L, E, 1e9 / P, 1e9 / L,
                P / L);
  }
  return 0;
}
