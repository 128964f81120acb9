//===- PythonCallSites.h - a Python call site's op, remembered -*- C++ -*-===//
//
// A training step makes the same CUDA calls from the same Python lines step
// after step, and naming a stack (each frame's code id and line, through the
// walker's caches) and interning it (hash, lock, lookup, compare) cost most of
// a capture. The frame walker's raw frames identify a named stack exactly
// (PythonFrameWalker.h: equal raw frames name equal frames), so each thread
// remembers, per (op table, name, raw stack), the op that interning gave; a
// capture that matches one exactly returns it without naming or locking.
// Before that, a capture compares its walk with the stack it captured last
// under the same name (RawStackMemory::expected): a kernel launched from one
// place, an allocation made by one line, step after step, then costs neither
// the frames' stores nor their hash nor the lookup's memcmp.
// Ops are never removed from a table, so a remembered op stays right.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CALLSITES_PYTHONCALLSITES_H
#define STREAMLIFE_RT_CALLSITES_PYTHONCALLSITES_H

#include "callsites/CallSites.h"
#include "callsites/PythonFrameWalker.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

namespace streamlife {
namespace rt {

/// The op of (Name, the calling thread's Python stack) in Ops, as
/// Ops.intern(Name, no native frames, capturePythonStack()) gives it; NoOp
/// when the thread runs no Python code.
OpId internPythonCallSite(OpTable &Ops, NameId Name);

/// What one thread remembers: the op of each (table, name, raw stack) it
/// interned, in sets of Ways entries, the least recently used of a set
/// making room (a key evicted costs a naming and an intern, never a wrong
/// op). Direct-mapped, two sites of one slot evicted each other at every
/// capture: of 300 distinct call sites a thread, about a quarter shared a
/// slot and missed step after step (bench/runtime/README.md, session 18).
class RawStackMemory {
public:
  static constexpr std::size_t Ways = 4;
  static constexpr std::size_t Sets = 512; ///< 2048 entries: a training step's distinct call sites, and room

  RawStackMemory() { std::fill(std::begin(Expecting), std::end(Expecting), true); }
  /// The op remembered for exactly this key, else NoOp. FramesHash is
  /// hashRawPythonFrames(Raw, N), as the walk gave it: it picks the set, and
  /// every byte of the frames is compared. Inline: every capture asks.
  /// A found stack becomes the next capture's expectation for Name.
  OpId find(std::uint64_t Table, NameId Name, const RawPythonFrame *Raw, int N, std::uint64_t FramesHash) {
    if (N <= 0)
      return NoOp;
    const std::uint64_t H = hashOf(Table, Name, FramesHash);
    const std::size_t First = setOf(H) * Ways;
    for (std::size_t Way = 0; Way < Ways; ++Way) {
      Entry &E = Entries[First + Way];
      if (E.Hash == H && E.Table == Table && E.Name == Name && E.Frames.size() == static_cast<std::size_t>(N) &&
          !std::memcmp(E.Frames.data(), Raw, sizeof(RawPythonFrame) * static_cast<std::size_t>(N))) {
        E.Used = ++Clock;
        const auto Slot = static_cast<std::uint32_t>(First + Way);
        // The expectation would have held: expect again.
        if (LastOfName[Name % NameSlots] == Slot)
          Expecting[Name % NameSlots] = true;
        LastOfName[Name % NameSlots] = Slot;
        return E.Op;
      }
    }
    return NoOp;
  }
  /// Remembers a key that find() missed, in place of its set's least
  /// recently found or remembered entry. Also becomes the next capture's
  /// expectation for Name.
  void remember(std::uint64_t Table, NameId Name, const RawPythonFrame *Raw, int N, std::uint64_t FramesHash,
                OpId Op);

  /// The set a key's entry goes to (for tests: keys of one set compete for
  /// its Ways entries).
  static std::size_t setOf(std::uint64_t Table, NameId Name, std::uint64_t FramesHash) {
    return setOf(hashOf(Table, Name, FramesHash));
  }

  /// The stack the thread last captured with Name in Table, if remembered
  /// still: a capture compares its walk with it (walkRawPythonStackExpecting)
  /// and, when the walk's frames are exactly these, takes Op without storing,
  /// hashing or looking up its own. A kernel launched from one place again
  /// and again, an allocation made by one line step after step, hold it. A
  /// failed expectation costs more than the plain walk (about 90 instructions
  /// when the stacks part at the second frame), so after one the name
  /// expects nothing (Frames null) until a plain capture finds the stack it
  /// would have expected: names whose call sites take turns walk plainly.
  struct Expectation {
    const RawPythonFrame *Frames = nullptr;
    int N = 0;
    OpId Op = NoOp;
  };
  Expectation expected(std::uint64_t Table, NameId Name) const {
    if (!Expecting[Name % NameSlots])
      return {};
    const Entry &E = Entries[LastOfName[Name % NameSlots]];
    if (E.Table != Table || E.Name != Name)
      return {};
    return {E.Frames.data(), static_cast<int>(E.Frames.size()), E.Op};
  }
  /// The walk did not match expected(Table, Name).
  void expectationFailed(NameId Name) { Expecting[Name % NameSlots] = false; }

private:
  struct Entry {
    std::uint64_t Table = 0; ///< OpTable::serial(); 0: empty
    std::uint64_t Hash = 0;
    NameId Name = 0;
    OpId Op = NoOp;
    std::uint64_t Used = 0; ///< Clock when last found or remembered: the set's oldest makes room
    std::vector<RawPythonFrame> Frames;
  };
  static std::uint64_t hashOf(std::uint64_t Table, NameId Name, std::uint64_t FramesHash) {
    // The frames' hash (their code objects and instructions) with the table
    // and the name picks the set; find() compares every byte of the frames.
    std::uint64_t H = (FramesHash ^ Table * 0x9E3779B97F4A7C15ull ^ std::uint64_t(Name) << 32) * 0xBF58476D1CE4E5B9ull;
    return H ^ H >> 31;
  }
  static std::size_t setOf(std::uint64_t H) { return static_cast<std::size_t>(H % Sets); }
  std::vector<Entry> Entries = std::vector<Entry>(Sets * Ways);
  std::uint64_t Clock = 0;
  /// Per name (by its low bits): the entry found or remembered last.
  static constexpr std::size_t NameSlots = 256;
  std::uint32_t LastOfName[NameSlots] = {};
  /// Per name slot: whether a capture compares with its expectation.
  bool Expecting[NameSlots];
};

} // namespace rt
} // namespace streamlife

#endif
