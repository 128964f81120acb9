//===- SelfProfile.cpp - per-callback timing of the validator -------------===//
#include "intercept/SelfProfile.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace streamlife {
namespace rt {

namespace {

std::uint64_t steadyNs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

const char *phaseName(ProfilePhase P) {
  switch (P) {
  case ProfilePhase::CallSites:
    return "call-site capture";
  case ProfilePhase::Streams:
    return "stream resolution";
  case ProfilePhase::Decode:
    return "parameter decoding";
  case ProfilePhase::Engine:
    return "engine";
  case ProfilePhase::BlockEvents:
    return "block-event replay";
  case ProfilePhase::Findings:
    return "finding output";
  case ProfilePhase::KernelFirstSight:
    return "kernel first sight";
  case ProfilePhase::Count:
    break;
  }
  return "?";
}

const char *callbackName(ProfileCallback C) {
  switch (C) {
  case ProfileCallback::HostSync:
    return "host synchronization";
  case ProfileCallback::BlockEvents:
    return "allocator block events";
  case ProfileCallback::ReplayThread:
    return "replay thread's replays";
  case ProfileCallback::Count:
    break;
  }
  return "?";
}

} // namespace

std::uint64_t SelfProfile::now() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return steadyNs();
#endif
}

SelfProfile::SelfProfile() : StartTicks(now()), StartNs(steadyNs()) {
  for (unsigned P = 0; P < static_cast<unsigned>(ProfilePhase::Count); ++P)
    Names.emplace_back(phaseName(static_cast<ProfilePhase>(P)));
  for (unsigned C = 0; C < static_cast<unsigned>(ProfileCallback::Count); ++C)
    Names.emplace_back(callbackName(static_cast<ProfileCallback>(C)));
}

void SelfProfile::enable() {
  constexpr int Reads = 1000;
  std::uint64_t Begin = steadyNs();
  for (int I = 0; I < Reads; ++I)
    (void)now(); // the counter read is volatile: it is not optimized away
  ClockReadNs = static_cast<double>(steadyNs() - Begin) / Reads;
  Enabled.store(true, std::memory_order_relaxed);
  Active.store(this, std::memory_order_release);
}

SelfProfile::~SelfProfile() {
  SelfProfile *Self = this;
  Active.compare_exchange_strong(Self, nullptr);
}

ProfileSlot SelfProfile::slot(const char *Name) {
  std::lock_guard<std::mutex> Guard(NamesLock);
  // Calls only: a call that shares a phase's or callback's name is another row.
  for (std::size_t I = callbackSlot(ProfileCallback::Count); I < Names.size(); ++I)
    if (Names[I] == Name)
      return static_cast<ProfileSlot>(I);
  if (Names.size() >= MaxSlots)
    return NoProfileSlot;
  Names.emplace_back(Name);
  return static_cast<ProfileSlot>(Names.size() - 1);
}

std::vector<SelfProfile::Row> SelfProfile::rows() const {
  double NsPerTick = 1.0;
#if defined(__x86_64__)
  std::uint64_t Ticks = now() - StartTicks, Ns = steadyNs() - StartNs;
  NsPerTick = Ticks ? static_cast<double>(Ns) / static_cast<double>(Ticks) : 1.0;
#endif
  std::vector<Row> Out;
  std::lock_guard<std::mutex> Guard(NamesLock);
  for (std::size_t I = 0; I < Names.size(); ++I) {
    std::uint64_t N = Calls[I].load(std::memory_order_relaxed);
    if (!N)
      continue;
    Row R;
    R.Name = Names[I];
    if (I < static_cast<std::size_t>(ProfilePhase::Count))
      R.Kind = RowKind::Phase;
    else if (I == static_cast<std::size_t>(callbackSlot(ProfileCallback::ReplayThread)))
      R.Kind = RowKind::Beside;
    else if (I < static_cast<std::size_t>(callbackSlot(ProfileCallback::Count)))
      R.Kind = RowKind::Callback;
    R.Calls = N;
    R.TotalNs = static_cast<double>(Total[I].load(std::memory_order_relaxed)) * NsPerTick;
    Out.push_back(std::move(R));
  }
  std::stable_sort(Out.begin(), Out.end(), [](const Row &A, const Row &B) {
    if (A.Kind != B.Kind)
      return A.Kind < B.Kind;
    return A.TotalNs > B.TotalNs;
  });
  return Out;
}

void SelfProfile::print(std::FILE *Out) const {
  std::vector<Row> Rows = rows();
  if (Rows.empty())
    return;
  std::fprintf(Out,
               "streamlife: self-profile: the validator's own time; each timing includes about %.0f ns "
               "of reading the clock twice\n",
               2 * ClockReadNs);
  std::fprintf(Out, "streamlife: self-profile: %-34s %12s %12s %10s\n", "intercepted call / phase",
               "calls", "total ms", "ns/call");
  bool CallbacksSaid = false, BesideSaid = false, PhasesSaid = false;
  for (const Row &R : Rows) {
    if (R.Kind == RowKind::Callback && !CallbacksSaid) {
      std::fprintf(Out, "streamlife: self-profile: callbacks outside CUDA calls:\n");
      CallbacksSaid = true;
    }
    if (R.Kind == RowKind::Beside && !BesideSaid) {
      std::fprintf(Out, "streamlife: self-profile: on the validator's own thread, beside the program's:\n");
      BesideSaid = true;
    }
    if (R.Kind == RowKind::Phase && !PhasesSaid) {
      std::fprintf(Out, "streamlife: self-profile: phases, inside the calls and callbacks above:\n");
      PhasesSaid = true;
    }
    std::fprintf(Out, "streamlife: self-profile: %-34s %12llu %12.3f %10.0f\n", R.Name.c_str(),
                 static_cast<unsigned long long>(R.Calls), R.TotalNs / 1e6,
                 R.TotalNs / static_cast<double>(R.Calls));
  }
}

} // namespace rt
} // namespace streamlife
