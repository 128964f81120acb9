//===- SelfProfile.h - where the validator's own time goes ------*- C++ -*-===//
//
// With the self_profile option (`streamlife run --self-profile`), every
// intercepted call is timed under its name (a CUPTI callback by driver
// function, an interposed NCCL or cuBLAS call by its own), and so is each
// phase inside it: call-site capture, stream resolution, kernel-parameter
// decoding (a kernel's first sight apart: once per kernel, not per launch),
// the engine, replaying allocators' block events and printing findings. So is
// the validator's work outside CUDA calls, in the callbacks a program makes
// into it between them: the host-synchronization interposers of the locks that
// order threads (InterceptThreads.cpp) and the allocators' block events
// (Annotations.cpp: PyTorch's trace tracker, CuPy's hooks). On a framework that
// locks and allocates far more often than it launches (FSDP2: about 30 lock
// events and 5 block events per launch) that is a third of the validator's
// cost. The
// table is printed at exit, so that a regression of the launch cost shows which
// callback and which phase it came from.
//
// Off, a timer costs one predictable branch. On, a timer reads the time-stamp
// counter twice (x86-64; elsewhere the monotonic clock) and adds to two
// relaxed atomics of its slot; ticks become nanoseconds at print time, scaled
// by the monotonic clock over the whole run. Every figure includes the timers'
// own cost (a call's time includes its phases' timers), which the table's
// first line states as measured at start-up: a few nanoseconds on bare metal,
// a hundred or more where a hypervisor traps the counter.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_SELFPROFILE_H
#define STREAMLIFE_RT_INTERCEPT_SELFPROFILE_H

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace streamlife {
namespace rt {

using ProfileSlot = std::uint16_t;
constexpr ProfileSlot NoProfileSlot = 0xffff;

/// The phases inside an intercepted call.
enum class ProfilePhase : ProfileSlot {
  CallSites,        ///< stack capture and op interning
  Streams,          ///< stream handles to engine streams
  Decode,           ///< kernel parameters per launch, copies' and sets' arguments
  Engine,           ///< the happens-before engine's verbs
  BlockEvents,      ///< replaying allocators' queued block events
  Findings,         ///< resolving and printing findings
  KernelFirstSight, ///< a kernel's parameter layout, names and plan, once per kernel
  Count
};

/// The program's callbacks into the validator outside CUDA calls. Their slots
/// are fixed (after the phases), so timing one takes no lock: an interposer
/// runs inside the program's own locks, where a slot lookup under the
/// profile's mutex could deadlock the program.
enum class ProfileCallback : ProfileSlot {
  HostSync,     ///< a lock, semaphore or thread event that orders threads: filter and queue
  BlockEvents,  ///< an allocator's block event: call site and queue
  /// The validator's replay thread (ReplayThread.h): its replays, beside the
  /// program's threads, not inside any of their calls; printed apart.
  ReplayThread,
  Count
};

class SelfProfile {
public:
  SelfProfile();

  /// Starts timing; measures what reading the clock costs here (a virtual
  /// machine may trap the time-stamp counter), which print() states.
  void enable();
  bool enabled() const { return Enabled.load(std::memory_order_relaxed); }

  /// The slot of a call named Name ("cuLaunchKernel", "ncclAllReduce"),
  /// registered on first use; the same name, the same slot. NoProfileSlot
  /// once the table is full.
  ProfileSlot slot(const char *Name);
  static ProfileSlot phaseSlot(ProfilePhase P) { return static_cast<ProfileSlot>(P); }
  static ProfileSlot callbackSlot(ProfileCallback C) {
    return static_cast<ProfileSlot>(static_cast<ProfileSlot>(ProfilePhase::Count) + static_cast<ProfileSlot>(C));
  }

  void add(ProfileSlot S, std::uint64_t Ticks) {
    if (S >= MaxSlots)
      return;
    Calls[S].fetch_add(1, std::memory_order_relaxed);
    Total[S].fetch_add(Ticks, std::memory_order_relaxed);
  }

  static std::uint64_t now();

  /// The profile being taken, for timers that hold no runtime (an
  /// interposer's): one relaxed load, null while no profile is enabled.
  static SelfProfile *active() { return Active.load(std::memory_order_relaxed); }
  ~SelfProfile();

  /// The table: intercepted calls, then the callbacks outside them, then the
  /// work on the validator's own thread, then the phases inside the calls and
  /// callbacks, each by total time; nothing when nothing was timed.
  void print(std::FILE *Out) const;

  enum class RowKind : std::uint8_t { Call, Callback, Beside, Phase };
  struct Row {
    std::string Name;
    RowKind Kind = RowKind::Call;
    std::uint64_t Calls = 0;
    double TotalNs = 0;
  };
  /// The rows print() shows (exposed for tests).
  std::vector<Row> rows() const;

private:
  static constexpr ProfileSlot MaxSlots = 1024;
  std::atomic<bool> Enabled{false};
  static inline std::atomic<SelfProfile *> Active{nullptr};
  std::atomic<std::uint64_t> Calls[MaxSlots] = {};
  std::atomic<std::uint64_t> Total[MaxSlots] = {};
  mutable std::mutex NamesLock;
  std::vector<std::string> Names; ///< index = slot; phases, then callbacks, then calls
  std::uint64_t StartTicks;
  std::uint64_t StartNs;
  double ClockReadNs = 0;
};

/// Times one call or phase into a slot when profiling is on.
class ProfileTimer {
public:
  ProfileTimer() = default;
  ProfileTimer(SelfProfile &P, ProfileSlot S) { start(P, S); }
  ProfileTimer(SelfProfile &P, ProfilePhase Phase) { start(P, SelfProfile::phaseSlot(Phase)); }
  ProfileTimer(SelfProfile &P, ProfileCallback Callback) { start(P, SelfProfile::callbackSlot(Callback)); }
  /// Into the active profile (SelfProfile::active), if any.
  explicit ProfileTimer(ProfileCallback Callback) {
    if (SelfProfile *P = SelfProfile::active())
      start(*P, SelfProfile::callbackSlot(Callback));
  }
  explicit ProfileTimer(ProfilePhase Phase) {
    if (SelfProfile *P = SelfProfile::active())
      start(*P, SelfProfile::phaseSlot(Phase));
  }
  ~ProfileTimer() { stop(); }
  ProfileTimer(const ProfileTimer &) = delete;
  ProfileTimer &operator=(const ProfileTimer &) = delete;

  void start(SelfProfile &P, ProfileSlot S) {
    if (!P.enabled() || S == NoProfileSlot)
      return;
    Profile = &P;
    Slot = S;
    Start = SelfProfile::now();
  }
  bool running() const { return Profile != nullptr; }
  void stop() {
    if (!Profile)
      return;
    Profile->add(Slot, SelfProfile::now() - Start);
    Profile = nullptr;
  }

private:
  SelfProfile *Profile = nullptr;
  // Read only while Profile is set, so left unset until start() sets it: two
  // stores fewer in every scope and phase of an unprofiled call.
  ProfileSlot Slot;
  std::uint64_t Start;
};

/// Runs F() timed into Phase's slot when profiling is on. Off, F is called
/// with no timer state to keep across it (a tail call where it is the
/// caller's last act): the verbs every launch goes through use it.
template <typename Fn> decltype(auto) timedPhase(SelfProfile &P, ProfilePhase Phase, Fn &&F) {
  if (__builtin_expect(!P.enabled(), 1))
    return F();
  ProfileTimer Timer(P, Phase);
  return F();
}

} // namespace rt
} // namespace streamlife

#endif
