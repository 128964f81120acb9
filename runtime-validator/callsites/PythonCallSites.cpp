//===- PythonCallSites.cpp - a Python call site's op, remembered ----------===//
#include "callsites/PythonCallSites.h"

#include <memory>

namespace streamlife {
namespace rt {

static_assert(sizeof(RawPythonFrame) == 32, "raw frames compare with memcmp: no padding");

void RawStackMemory::remember(std::uint64_t Table, NameId Name, const RawPythonFrame *Raw, int N,
                              std::uint64_t FramesHash, OpId Op) {
  if (N <= 0)
    return;
  const std::uint64_t H = hashOf(Table, Name, FramesHash);
  const std::size_t First = setOf(H) * Ways;
  std::size_t Oldest = First; // an empty entry's Used is 0: the oldest of all
  for (std::size_t Slot = First + 1; Slot < First + Ways; ++Slot)
    if (Entries[Slot].Used < Entries[Oldest].Used)
      Oldest = Slot;
  Entry &E = Entries[Oldest];
  E.Table = Table;
  E.Hash = H;
  E.Name = Name;
  E.Op = Op;
  E.Used = ++Clock;
  E.Frames.assign(Raw, Raw + N);
  LastOfName[Name % NameSlots] = static_cast<std::uint32_t>(Oldest);
}

OpId internPythonCallSite(OpTable &Ops, NameId Name) {
  if (!pythonStacksAttached())
    return NoOp;
  if (pythonFrameWalkerActive()) {
    static thread_local std::unique_ptr<RawStackMemory> Memory;
    if (!Memory)
      Memory = std::make_unique<RawStackMemory>();
    const RawStackMemory::Expectation Expected = Memory->expected(Ops.serial(), Name);
    RawPythonFrame Raw[MaxPythonFrames];
    std::uint64_t FramesHash;
    int N;
    if (Expected.Frames) {
      bool Same = false;
      N = walkRawPythonStackExpecting(Expected.Frames, Expected.N, Raw, MaxPythonFrames, FramesHash, Same);
      if (Same)
        return Expected.Op;
      Memory->expectationFailed(Name);
    } else {
      N = walkRawPythonStack(Raw, MaxPythonFrames, FramesHash);
    }
    if (N <= 0)
      return NoOp;
    if (OpId Known = Memory->find(Ops.serial(), Name, Raw, N, FramesHash); Known != NoOp)
      return Known;
    static thread_local PyFrameRef Python[MaxPythonFrames]; // initialized once, not per capture
    describeRawPythonStack(Raw, N, Python);
    OpId Op = Ops.intern(Name, nullptr, 0, Python, N);
    Memory->remember(Ops.serial(), Name, Raw, N, FramesHash, Op);
    return Op;
  }
  // The profile function's shadow stack is already named.
  static thread_local PyFrameRef Python[MaxPythonFrames];
  int N = capturePythonStack(Python, MaxPythonFrames);
  return N ? Ops.intern(Name, nullptr, 0, Python, N) : NoOp;
}

} // namespace rt
} // namespace streamlife
