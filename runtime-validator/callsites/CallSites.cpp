//===- CallSites.cpp - op interning and stack capture ---------------------===//
#include "callsites/CallSites.h"

#include "callsites/FastUnwind.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace streamlife {
namespace rt {

int captureStack(void **Frames, int Max) {
  if (Max <= 0)
    return 0;
  if (Max > MaxStackFrames)
    Max = MaxStackFrames;
  return fastBacktrace(Frames, Max);
}

namespace {

std::uint64_t hashOp(NameId Name, void *const *Frames, int Count, const PyFrameRef *Python,
                     int PythonCount) {
  // One multiply per word (a byte-wise FNV-1a took eight dependent ones, about
  // 0.3 us for a 32-frame stack, paid at every capture of a Python call site).
  std::uint64_t H = 0x9E3779B97F4A7C15ull ^ Name;
  auto Mix = [&H](std::uint64_t V) {
    H = (H ^ V) * 0xBF58476D1CE4E5B9ull;
    H ^= H >> 31;
  };
  for (int I = 0; I < Count; ++I)
    Mix(reinterpret_cast<std::uintptr_t>(Frames[I]));
  Mix(~std::uint64_t(Count)); // a native frame never hashes like a Python one
  for (int I = 0; I < PythonCount; ++I)
    Mix(std::uint64_t(Python[I].Code) << 32 | Python[I].Line);
  return H;
}

} // namespace

OpTable::OpTable() {
  static std::atomic<std::uint64_t> Tables{0};
  Serial = ++Tables;
  Names.emplace_back("");
  NameIds.emplace("", 0);
  Ops.emplace_back(); // NoOp
}

NameId OpTable::internName(std::string_view Name) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = NameIds.find(std::string(Name));
  if (It != NameIds.end())
    return It->second;
  NameId Id = static_cast<NameId>(Names.size());
  Names.emplace_back(Name);
  NameIds.emplace(std::string(Name), Id);
  return Id;
}

OpId OpTable::intern(NameId Name, void *const *Frames, int Count) {
  return intern(Name, Frames, Count, nullptr, 0);
}

OpId OpTable::intern(NameId Name, void *const *Frames, int Count, const PyFrameRef *Python,
                     int PythonCount) {
  if (Count < 0)
    Count = 0;
  if (PythonCount < 0 || !Python)
    PythonCount = 0;
  std::uint64_t H = hashOp(Name, Frames, Count, Python, PythonCount);
  std::lock_guard<std::mutex> Guard(Lock);
  return internLocked(H, Name, Frames, Count, Python, PythonCount);
}

OpId OpTable::internLocked(std::uint64_t H, NameId Name, void *const *Frames, int Count,
                           const PyFrameRef *Python, int PythonCount) {
  auto Range = OpsByHash.equal_range(H);
  for (auto It = Range.first; It != Range.second; ++It) {
    const OpRecord &R = Ops[It->second];
    if (R.Name == Name && R.Frames.size() == static_cast<std::size_t>(Count) &&
        (Count == 0 || !std::memcmp(R.Frames.data(), Frames, sizeof(void *) * Count)) &&
        R.Python.size() == static_cast<std::size_t>(PythonCount) &&
        std::equal(R.Python.begin(), R.Python.end(), Python))
      return It->second;
  }
  OpId Id = static_cast<OpId>(Ops.size());
  // Built before the push: Frames and Python may point into Ops (sameStack).
  OpRecord Record{Name, std::vector<void *>(Frames, Frames + Count),
                  std::vector<PyFrameRef>(Python, Python + PythonCount)};
  Ops.push_back(std::move(Record));
  OpsByHash.emplace(H, Id);
  return Id;
}

OpId OpTable::sameStack(OpId Op, NameId Name) {
  // Every launch of a kernel whose parameters the generic rule read asks for
  // the same pair again: remember the answer per thread. Ops are never removed
  // or changed, so an answer holds for the table's whole life; the serial
  // keeps a later table at the same address from reading this one's answers.
  struct Answer {
    std::uint64_t Table = 0;
    OpId Op = NoOp;
    NameId Name = 0;
    OpId Same = NoOp;
  };
  static thread_local Answer Answers[256];
  Answer &A = Answers[(static_cast<std::size_t>(Op) * 0x9E3779B1u ^ Name) % 256];
  if (A.Table == Serial && A.Op == Op && A.Name == Name && A.Same != NoOp)
    return A.Same;
  OpId Same;
  bool Known;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    static const OpRecord None; // an unknown op has no stack
    Known = Op < Ops.size();
    const OpRecord &R = Known ? Ops[Op] : None;
    int Count = static_cast<int>(R.Frames.size()), PythonCount = static_cast<int>(R.Python.size());
    std::uint64_t H = hashOp(Name, R.Frames.data(), Count, R.Python.data(), PythonCount);
    Same = internLocked(H, Name, R.Frames.data(), Count, R.Python.data(), PythonCount);
  }
  if (Known) // an unknown id may later name an op with a stack
    A = Answer{Serial, Op, Name, Same};
  return Same;
}

std::string OpTable::name(NameId Id) const {
  std::lock_guard<std::mutex> Guard(Lock);
  return Id < Names.size() ? Names[Id] : std::string();
}

OpRecord OpTable::op(OpId Op) const {
  std::lock_guard<std::mutex> Guard(Lock);
  return Op < Ops.size() ? Ops[Op] : OpRecord();
}

std::size_t OpTable::size() const {
  std::lock_guard<std::mutex> Guard(Lock);
  return Ops.size() - 1;
}

} // namespace rt
} // namespace streamlife
