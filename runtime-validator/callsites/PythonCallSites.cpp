//===- PythonCallSites.cpp - a Python call site's op, remembered ----------===//
#include "callsites/PythonCallSites.h"

#include <cstring>
#include <memory>

namespace streamlife {
namespace rt {

static_assert(sizeof(RawPythonFrame) == 32, "raw frames compare with memcmp: no padding");

std::uint64_t RawStackMemory::hashOf(std::uint64_t Table, NameId Name, const RawPythonFrame *Raw, int N) {
  // The code objects and instructions pick the slot; find() compares every
  // byte of the frames.
  std::uint64_t H = 0x9E3779B97F4A7C15ull ^ Table ^ (std::uint64_t(Name) << 32);
  for (int I = 0; I < N; ++I) {
    H = (H ^ reinterpret_cast<std::uintptr_t>(Raw[I].Code) ^ std::uint64_t(Raw[I].Lasti) << 40) *
        0xBF58476D1CE4E5B9ull;
    H ^= H >> 31;
  }
  return H;
}

OpId RawStackMemory::find(std::uint64_t Table, NameId Name, const RawPythonFrame *Raw, int N) const {
  if (N <= 0)
    return NoOp;
  std::uint64_t H = hashOf(Table, Name, Raw, N);
  const Entry &E = Entries[H % Slots];
  if (E.Table == Table && E.Hash == H && E.Name == Name && E.Frames.size() == static_cast<std::size_t>(N) &&
      !std::memcmp(E.Frames.data(), Raw, sizeof(RawPythonFrame) * static_cast<std::size_t>(N)))
    return E.Op;
  return NoOp;
}

void RawStackMemory::remember(std::uint64_t Table, NameId Name, const RawPythonFrame *Raw, int N, OpId Op) {
  if (N <= 0)
    return;
  std::uint64_t H = hashOf(Table, Name, Raw, N);
  Entry &E = Entries[H % Slots];
  E.Table = Table;
  E.Hash = H;
  E.Name = Name;
  E.Op = Op;
  E.Frames.assign(Raw, Raw + N);
}

OpId internPythonCallSite(OpTable &Ops, NameId Name) {
  if (!pythonStacksAttached())
    return NoOp;
  if (pythonFrameWalkerActive()) {
    RawPythonFrame Raw[MaxPythonFrames];
    int N = walkRawPythonStack(Raw, MaxPythonFrames);
    if (N <= 0)
      return NoOp;
    static thread_local std::unique_ptr<RawStackMemory> Memory;
    if (!Memory)
      Memory = std::make_unique<RawStackMemory>();
    if (OpId Known = Memory->find(Ops.serial(), Name, Raw, N); Known != NoOp)
      return Known;
    static thread_local PyFrameRef Python[MaxPythonFrames]; // initialized once, not per capture
    describeRawPythonStack(Raw, N, Python);
    OpId Op = Ops.intern(Name, nullptr, 0, Python, N);
    Memory->remember(Ops.serial(), Name, Raw, N, Op);
    return Op;
  }
  // The profile function's shadow stack is already named.
  static thread_local PyFrameRef Python[MaxPythonFrames];
  int N = capturePythonStack(Python, MaxPythonFrames);
  return N ? Ops.intern(Name, nullptr, 0, Python, N) : NoOp;
}

} // namespace rt
} // namespace streamlife
