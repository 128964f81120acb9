//===- KeptLockCallers.cpp - whose lock events the validator kept ---------===//
#include "intercept/KeptLockCallers.h"

#include "report/CallSiteNames.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace streamlife {
namespace rt {

namespace {

std::size_t slotOf(const void *Caller) {
  auto A = reinterpret_cast<std::uintptr_t>(Caller);
  return static_cast<std::size_t>((A * 0x9E3779B97F4A7C15ull) >> 32) % KeptLockCallers::Capacity;
}

/// "function (library)" for a return address, as a report's frames name it
/// (report/CallSiteNames.h).
std::string nameOf(const void *Caller) {
  Frame F = symbolize(const_cast<void *>(Caller));
  if (F.Module.empty()) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%p", Caller);
    return Buf;
  }
  std::string Library = F.Module.substr(F.Module.rfind('/') + 1);
  return F.Function.empty() ? Library : F.Function + " (" + Library + ")";
}

} // namespace

void KeptLockCallers::count(const void *Caller) {
  std::size_t First = slotOf(Caller);
  for (std::size_t Probe = 0; Probe < Capacity; ++Probe) {
    Slot &S = Slots[(First + Probe) % Capacity];
    const void *Held = S.Caller.load(std::memory_order_acquire);
    if (!Held && S.Caller.compare_exchange_strong(Held, Caller, std::memory_order_acq_rel))
      Held = Caller;
    if (Held == Caller) {
      S.Events.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  Unplaced.fetch_add(1, std::memory_order_relaxed);
}

bool KeptLockCallers::countIfHeld(const void *Caller) {
  std::size_t First = slotOf(Caller);
  for (std::size_t Probe = 0; Probe < Capacity; ++Probe) {
    Slot &S = Slots[(First + Probe) % Capacity];
    const void *Held = S.Caller.load(std::memory_order_acquire);
    if (!Held)
      return false; // slots are never emptied: Caller would be here
    if (Held == Caller) {
      S.Events.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

std::vector<KeptLockCallers::Named> KeptLockCallers::mostKept(std::size_t Most) const {
  std::map<std::string, std::uint64_t> ByName;
  for (const Slot &S : Slots)
    if (const void *Caller = S.Caller.load(std::memory_order_acquire))
      if (std::uint64_t Events = S.Events.load(std::memory_order_relaxed))
        ByName[nameOf(Caller)] += Events;
  std::vector<Named> Sorted;
  for (auto &[Where, Events] : ByName)
    Sorted.push_back(Named{Where, Events});
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const Named &A, const Named &B) { return A.Events > B.Events; });
  if (Sorted.size() > Most)
    Sorted.resize(Most);
  if (std::uint64_t Other = Unplaced.load(std::memory_order_relaxed))
    Sorted.push_back(Named{"other callers", Other});
  return Sorted;
}

std::string keptLockCallersText(const std::vector<KeptLockCallers::Named> &Callers) {
  std::string Text;
  for (const KeptLockCallers::Named &C : Callers) {
    if (!Text.empty())
      Text += ", ";
    Text += std::to_string(C.Events) + " " + C.Where;
  }
  return Text;
}

} // namespace rt
} // namespace streamlife
