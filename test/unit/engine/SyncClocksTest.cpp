//===- SyncClocksTest.cpp - host sync by changed slots keeps the plain clocks ===//
//
// SyncClocks joins only the slots that changed since a thread and an object
// were last in step (LoggedClock.h). It is right when every clock is the one the plain
// model computes: a release joins the thread's whole clock into the object's,
// an acquire joins the object's whole clock into the thread's. The property
// test plays random sequences of every operation that changes a host clock
// (releases, acquires, stamps, GPU work and syncs, a thread's first CUDA call
// joining the common knowledge, thread ends, object destruction) through the
// engine's HostClocks and SyncClocks and through the plain model side by side,
// and compares every thread's and every object's clock after each step.
//
//===----------------------------------------------------------------------===//
#include "engine/HostClocks.h"
#include "engine/SyncClocks.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

using namespace streamlife::rt;

namespace {

bool sameClock(const VectorClock &A, const VectorClock &B) {
  return A.dominates(B) && B.dominates(A);
}

/// A stream: its clock joins the enqueuing thread's and ticks its own slot.
struct Gpu {
  ClockSlot Slot;
  VectorClock Clock;
  Epoch now() const { return Epoch{Slot, Clock.get(Slot)}; }
  void work(const VectorClock &Host) {
    Clock.join(Host);
    Clock.tick(Slot);
  }
};

/// The plain model: whole-clock joins, as the engine did them before.
struct PlainModel {
  struct Host {
    ClockSlot Slot;
    VectorClock Clock;
    bool ReleasedSinceTick = false;
    bool UsesCuda = false;
    Epoch now() const { return Epoch{Slot, Clock.get(Slot)}; }
    void learned() {
      Clock.tick(Slot);
      ReleasedSinceTick = false;
    }
  };
  std::vector<Host> Hosts;
  std::vector<Gpu> Gpus;
  std::map<SyncId, VectorClock> Syncs;

  void release(unsigned T, SyncId S) {
    Host &H = Hosts[T];
    VectorClock &C = Syncs[S];
    if (!C.covers(H.now()))
      C.join(H.Clock);
    H.ReleasedSinceTick = true;
  }
  void acquire(unsigned T, SyncId S) {
    auto It = Syncs.find(S);
    if (It != Syncs.end() && Hosts[T].Clock.absorb(It->second))
      Hosts[T].learned();
  }
  void stamp(unsigned T) {
    if (Hosts[T].ReleasedSinceTick)
      Hosts[T].learned();
  }
  void gpuSync(unsigned T, unsigned G) {
    Host &H = Hosts[T];
    if (H.Clock.covers(Gpus[G].now()))
      return;
    H.Clock.join(Gpus[G].Clock);
    H.learned();
  }
  void firstCudaCall(unsigned T) {
    Host &H = Hosts[T];
    if (H.UsesCuda)
      return;
    VectorClock Common;
    bool First = true;
    for (const Host &Other : Hosts) {
      if (!Other.UsesCuda)
        continue;
      if (First)
        Common.assign(Other.Clock);
      else
        Common.meet(Other.Clock);
      First = false;
    }
    if (!First)
      H.Clock.join(Common);
    H.UsesCuda = true;
    H.learned();
  }
};

/// The engine's rooms under test, driven as Engine.cpp drives them.
struct LoggedEngine {
  SlotAllocator Slots;
  HostClocks Hosts{Slots};
  SyncClocks Syncs{1u << 16};
  std::vector<Gpu> Gpus;

  void release(unsigned T, SyncId S) {
    HostClock &H = Hosts.forSync(T);
    Syncs.release(H, S);
    Hosts.released(H);
  }
  void acquire(unsigned T, SyncId S) {
    SyncClock *C = Syncs.find(S);
    if (!C)
      return;
    HostClock &H = Hosts.forSync(T);
    if (Syncs.acquire(H, *C))
      Hosts.learned(H);
  }
  void gpuSync(unsigned T, unsigned G) {
    HostClock &H = Hosts.of(T);
    if (H.Clock.covers(Gpus[G].now()))
      return;
    H.Clock.join(Gpus[G].Clock);
    Hosts.learned(H);
  }
};

enum class Op { Release, Acquire, Stamp, GpuWork, GpuSync, Finish, Destroy };

/// Plays Steps random operations; returns the whole-clock joins SyncClocks did
/// and sets Events to the releases and acquires played.
std::uint64_t playRandom(unsigned Threads, unsigned Streams, unsigned Objects, unsigned Steps,
                         unsigned Seed, std::uint64_t &Events) {
  PlainModel Plain;
  LoggedEngine Logged;
  for (unsigned T = 0; T < Threads; ++T) {
    HostClock &H = Logged.Hosts.forSync(T);
    Plain.Hosts.push_back(PlainModel::Host{H.Slot, {}});
    Plain.Hosts.back().Clock.tick(H.Slot);
  }
  for (unsigned G = 0; G < Streams; ++G) {
    Gpu Stream{Logged.Slots.allocate(), {}};
    Logged.Gpus.push_back(Stream);
    Plain.Gpus.push_back(Stream);
  }
  std::mt19937 Rng(Seed);
  for (unsigned Step = 0; Step < Steps; ++Step) {
    const unsigned T = Rng() % Threads;
    const SyncId S = 0x1000 + 8 * (Rng() % Objects);
    const unsigned G = Rng() % Streams;
    const unsigned Pick = Rng() % 100;
    const Op What = Pick < 35   ? Op::Release
                    : Pick < 70 ? Op::Acquire
                    : Pick < 80 ? Op::Stamp
                    : Pick < 88 ? Op::GpuWork
                    : Pick < 95 ? Op::GpuSync
                    : Pick < 97 ? Op::Finish
                                : Op::Destroy;
    switch (What) {
    case Op::Release:
      ++Events;
      Plain.release(T, S);
      Logged.release(T, S);
      break;
    case Op::Acquire:
      ++Events;
      Plain.acquire(T, S);
      Logged.acquire(T, S);
      break;
    case Op::Stamp:
      Plain.firstCudaCall(T);
      Plain.stamp(T);
      Logged.Hosts.stamp(Logged.Hosts.of(T));
      break;
    case Op::GpuWork:
      Plain.firstCudaCall(T);
      Plain.Gpus[G].work(Plain.Hosts[T].Clock);
      Logged.Gpus[G].work(Logged.Hosts.of(T).Clock);
      break;
    case Op::GpuSync:
      Plain.firstCudaCall(T);
      Plain.gpuSync(T, G);
      Logged.gpuSync(T, G);
      break;
    case Op::Finish:
      Plain.Hosts[T].UsesCuda = false;
      Logged.Hosts.finished(T);
      break;
    case Op::Destroy:
      Plain.Syncs.erase(S);
      Logged.Syncs.forget(S);
      break;
    }
    for (unsigned H = 0; H < Threads; ++H) {
      const HostClock &Real = *Logged.Hosts.find(H);
      EXPECT_TRUE(sameClock(Real.Clock, Plain.Hosts[H].Clock))
          << "thread " << H << " differs after step " << Step << " (seed " << Seed << ")";
      EXPECT_EQ(Real.ReleasedSinceTick, Plain.Hosts[H].ReleasedSinceTick)
          << "thread " << H << " after step " << Step << " (seed " << Seed << ")";
    }
    EXPECT_EQ(Logged.Syncs.size(), Plain.Syncs.size()) << "after step " << Step;
    for (auto &[Id, Clock] : Plain.Syncs) {
      const SyncClock *Real = Logged.Syncs.find(Id);
      if (!Real) {
        ADD_FAILURE() << "object " << Id << " missing after step " << Step;
        continue;
      }
      EXPECT_TRUE(sameClock(Real->Clock, Clock))
          << "object " << Id << " differs after step " << Step << " (seed " << Seed << ")";
    }
    if (::testing::Test::HasFailure())
      break;
  }
  return Logged.Syncs.wholeClockJoins();
}

TEST(SyncClocksTest, LoggedJoinsGiveThePlainClocksOnRandomSequences) {
  std::uint64_t Events = 0, Whole = 0;
  for (unsigned Seed = 1; Seed <= 60 && !::testing::Test::HasFailure(); ++Seed)
    Whole += playRandom(/*Threads=*/3, /*Streams=*/24, /*Objects=*/3, /*Steps=*/600, Seed, Events);
  // Holds trivially if every join read the whole clock: demand that most
  // did not, so the changed slots were what the comparison checked.
  EXPECT_LT(Whole * 2, Events) << Whole << " whole-clock joins of " << Events;
}

TEST(SyncClocksTest, ManyThreadsFewObjectsWideClocks) {
  std::uint64_t Events = 0, Whole = 0;
  for (unsigned Seed = 100; Seed < 115 && !::testing::Test::HasFailure(); ++Seed)
    Whole += playRandom(/*Threads=*/6, /*Streams=*/40, /*Objects=*/2, /*Steps=*/1500, Seed, Events);
  EXPECT_LT(Whole * 2, Events) << Whole << " whole-clock joins of " << Events;
}

TEST(SyncClocksTest, NarrowClocksJoinWhole) {
  // One stream: narrow clocks join whole, record no order of their changes
  // and leave the marks as they were.
  std::uint64_t Events = 0;
  for (unsigned Seed = 200; Seed < 220 && !::testing::Test::HasFailure(); ++Seed)
    playRandom(/*Threads=*/2, /*Streams=*/1, /*Objects=*/4, /*Steps=*/3000, Seed, Events);
}

TEST(SyncClocksTest, TwoThreadsTakingOneLockInTurnReadOnlyWhatChanged) {
  // 300 slots (FSDP2 has about 140), both threads know all of them; then each
  // lock handover carries the other thread's own tick and nothing else.
  SlotAllocator Slots;
  HostClocks Hosts(Slots);
  SyncClocks Syncs(16);
  HostClock &A = Hosts.forSync(0), &B = Hosts.forSync(1);
  VectorClock Device;
  for (int I = 0; I < 298; ++I)
    Device.tick(Slots.allocate());
  for (HostClock *H : {&A, &B}) {
    H->Clock.join(Device);
    Hosts.learned(*H);
  }
  const SyncId Mutex = 0x5000;
  auto Handover = [&](HostClock &From, HostClock &To) {
    Syncs.release(From, Mutex);
    Hosts.released(From);
    Hosts.stamp(From); // a CUDA call after the unlock: the thread's clock moves
    if (Syncs.acquire(To, *Syncs.find(Mutex)))
      Hosts.learned(To);
  };
  for (int Round = 0; Round < 2; ++Round) {
    Handover(A, B);
    Handover(B, A);
  }
  const std::uint64_t FirstContact = Syncs.wholeClockJoins();
  EXPECT_LE(FirstContact, 4u);
  for (int Round = 0; Round < 1000; ++Round) {
    Handover(A, B);
    Handover(B, A);
  }
  EXPECT_EQ(Syncs.wholeClockJoins(), FirstContact);
  // A knows B up to B's last unlock, not B's stamp after it.
  EXPECT_TRUE(A.Clock.covers(Epoch{B.Slot, B.Clock.get(B.Slot) - 1}));
  EXPECT_FALSE(A.Clock.covers(B.now()));
}

} // namespace

namespace {

TEST(SyncClocksTest, EvictionBeyondTheCapNeverDropsTheObjectBeingReleased) {
  // A destroyed object's id leaves a stale entry in the creation order. When
  // the id is released again and the cap is exceeded, the stale entry is the
  // oldest: evicting by it would drop the object being released (and leave
  // the release writing into a freed clock). The oldest other object goes.
  SlotAllocator Slots;
  HostClocks Hosts(Slots);
  SyncClocks Syncs(/*MaxObjects=*/1);
  HostClock &H = Hosts.forSync(0);
  const SyncId A = 0xa000, B = 0xb000;
  Syncs.release(H, A);
  Syncs.forget(A);
  Syncs.release(H, B);
  Hosts.learned(H);
  Syncs.release(H, A);
  const SyncClock *Released = Syncs.find(A);
  ASSERT_NE(Released, nullptr);
  EXPECT_TRUE(Released->Clock.covers(H.now()));
  EXPECT_EQ(Syncs.find(B), nullptr);
  EXPECT_EQ(Syncs.size(), 1u);
  EXPECT_EQ(Syncs.forgotten(), 1u);
}

} // namespace

namespace {

TEST(SyncClocksTest, EvictionBeyondTheCapKeepsAnObjectInUse) {
  // A program that creates a mutex per tensor and never destroys them reaches
  // the cap; the ready queue's mutex, created first and used every step, must
  // not be the one forgotten (it would be, by creation order): what thread T1
  // released into it long ago stays known to its next acquirer.
  SlotAllocator Slots;
  HostClocks Hosts(Slots);
  SyncClocks Syncs(/*MaxObjects=*/8);
  HostClock &T1 = Hosts.forSync(0);
  HostClock &T2 = Hosts.forSync(1);
  const SyncId Hot = 0x1000;
  Hosts.learned(T1);
  Syncs.release(T1, Hot);
  const Epoch T1AtRelease = T1.now();
  Hosts.released(T1);
  for (SyncId Tensor = 0x2000; Tensor < 0x2000 + 64 * 100; Tensor += 64) {
    Syncs.release(T2, Tensor); // a new object every step: the cap is passed
    Hosts.released(T2);
    SyncClock *C = Syncs.find(Hot);
    ASSERT_NE(C, nullptr) << "the object in use was forgotten at tensor " << std::hex << Tensor;
    if (Syncs.acquire(T2, *C))
      Hosts.learned(T2);
    Syncs.release(T2, Hot);
    Hosts.released(T2);
  }
  EXPECT_GT(Syncs.forgotten(), 80u) << "the cap evicted too little: eviction went untested";
  EXPECT_LE(Syncs.size(), 8u);
  EXPECT_TRUE(Syncs.find(Hot)->Clock.covers(T1AtRelease));
  EXPECT_TRUE(T2.Clock.covers(T1AtRelease));
}

} // namespace
