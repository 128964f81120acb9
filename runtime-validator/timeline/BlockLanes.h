//===- BlockLanes.h - memory blocks as lanes of the timeline -*- C++ -*-===//
//
// One lane per block, a block being a base address: the lifetimes of the
// allocations made at that address follow each other on it (allocated, in
// use, release requested, released, and reused by the next allocation at the
// same address), so the reuse race shows on one lane. Work touching a block
// is drawn on a sub-lane per stream under it: work of two streams on one block
// may overlap in time (the race itself), and one lane's slices must not.
//
// Two levels, because allocators nest: pool blocks (a caching allocator's
// blocks, stream-ordered allocations) are looked up before plain device
// allocations (cuMemAlloc), which for PyTorch are the segments the blocks are
// carved from. A block gets its lane when work first touches it, so segments
// and never-used allocations add no lanes; lanes are named A, B, C... in that
// order.
//
// Bounded: a released block is remembered (for its reuse, and for a late
// access to it) until an allocation overlaps it or MaxRemembered newer
// releases pushed it out.
//
// Not thread-safe: the recorder calls it under its lock.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_TIMELINE_BLOCKLANES_H
#define STREAMLIFE_RT_TIMELINE_BLOCKLANES_H

#include "engine/Engine.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

/// A block's last access by one stream: the slot that made it, and where
/// that slot was placed once it is.
struct BlockUse {
  StreamId Stream = NoStream;
  std::uint32_t Tid = 0; ///< the block's sub-lane for this stream
  std::uint64_t Seq = 0;
  bool Placed = false;
  std::uint64_t Start = 0, End = 0;
};

struct Block {
  std::uint32_t Id = 0; ///< key of this block in BlockLanes
  Addr Base = 0;
  std::uint64_t Size = 0;
  bool Pool = false; ///< a pool block (looked up first), not a plain allocation
  enum class Phase : std::uint8_t { Live, ReleaseRequested, Released } State = Phase::Live;
  std::uint32_t Lifetime = 1;
  std::uint64_t AllocatedNs = 0, RequestedNs = 0;
  StreamId AllocStream = NoStream;
  std::uint32_t AllocLabel = 0;   ///< recorder label of the allocation site
  std::uint32_t ReleaseLabel = 0; ///< and of the release
  /// The lane, once work touched the block (0 before).
  std::uint32_t Lane = 0;
  std::uint32_t Letter = 0; ///< 0 = A
  std::vector<BlockUse> Uses;
};

/// "A", "B", ..., "Z", "AA", "AB", ...
std::string blockLetters(std::uint32_t Index);

class BlockLanes {
public:
  static constexpr std::size_t MaxRemembered = 1 << 16;
  /// Tids: pid-wide lane numbers for block Letter's lane and sub-lanes.
  static constexpr std::uint32_t TidsPerBlock = 32;

  /// A new lifetime at R.Begin. Returns the block (the same one when the
  /// address was a block before: Lifetime > 1 means reused) and the blocks it
  /// pushed out (overlapping, at another address), which are closed now.
  Block &allocated(Range R, bool Pool, std::uint64_t Ns, std::vector<Block> &Closed);
  /// The block whose lifetime contains A: a live one first, pool blocks before
  /// plain allocations; a released one too unless LiveOnly.
  Block *lookup(Addr A, bool LiveOnly);
  /// The block at exactly Base (live or remembered).
  Block *at(Addr Base);
  /// The block with this id while it is remembered.
  Block *byId(std::uint32_t Id) {
    auto It = Blocks.find(Id);
    return It == Blocks.end() ? nullptr : &It->second;
  }
  /// The block is released; it stays remembered.
  void released(Block &B);

  /// Gives B its lane (and letter) if it has none; true when it was new.
  bool ensureLane(Block &B);
  /// The sub-lane of B for stream S (created on first use); NewLane says so.
  BlockUse &use(Block &B, StreamId S, bool &NewLane);

  std::size_t lanes() const { return NextLetter; }
  template <typename Fn> void forEach(Fn F) {
    for (auto &[Id, B] : Blocks)
      F(B);
  }

private:
  std::map<Addr, std::uint32_t> &level(bool Pool) { return Pool ? PoolBlocks : Plain; }
  Block *find(std::map<Addr, std::uint32_t> &Level, Addr A, bool LiveOnly);
  void forget(std::uint32_t Id);

  std::map<Addr, std::uint32_t> PoolBlocks;
  std::map<Addr, std::uint32_t> Plain;
  std::unordered_map<std::uint32_t, Block> Blocks;
  std::deque<std::uint32_t> ReleaseOrder; ///< may hold ids forgotten since
  std::uint32_t NextId = 1;
  std::uint32_t NextLetter = 0;
  std::uint32_t NextOverflowTid = 1u << 30;
};

} // namespace rt
} // namespace streamlife

#endif
