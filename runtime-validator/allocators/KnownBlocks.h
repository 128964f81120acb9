//===- KnownBlocks.h - replay's accounting per block address, a slot each -*- C++ -*-===//
//
// AnnotatedAllocators' accounting asks for the block of every replayed block
// event (its allocation, its release request, its release). Replay runs at a
// CUDA call, after the program's own work since the previous one (the Python
// interpreter, ATen's dispatch: tens of MB) evicted the validator's data, so
// each line a lookup touches is a cache miss (bench/runtime/README.md,
// rtcache). A std::unordered_map there touched the bucket array's line and
// the node's, at random in the heap. Here a block is one slot of an
// AddressTable (engine/AddressTable.h): a lookup reads one line, usually.
//
// No entry is erased alone. forget() leaves a block as a new one is made (not
// live, counted by no site; Size and Account are read only while it is live),
// so finding it again is finding a new one; once the forgotten are most of
// the table one rebuild drops them. A block is forgotten only when no site
// counts it (past every site's cap of distinct blocks), so most runs forget
// none.
//
// Which sites count a block: its allocation asks whether its site is among
// them, which read the list's own heap buffer per allocation. The last site
// found or added there is kept in the slot (LastCountedBy): a block handed to
// the same site again (PyTorch's pools hand a block back to the op that freed
// it, step after step) is decided without the list (KnownBlocksTest compares
// it with the search of the list).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ALLOCATORS_KNOWNBLOCKS_H
#define STREAMLIFE_RT_ALLOCATORS_KNOWNBLOCKS_H

#include "engine/AddressTable.h"
#include "engine/Engine.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

/// One block address as replay knows it. Kept after the release while some
/// site counts the address among its distinct blocks, so that a block
/// handed out again costs no allocation here.
struct KnownBlock {
  static constexpr std::uint32_t NoSite = ~std::uint32_t(0);

  std::uint64_t Size = 0;
  std::uint32_t Account = 0; ///< index into the sites, while Live
  OpId RequestSite = NoOp;
  /// One of CountedBy (the last found or added), or NoSite.
  std::uint32_t LastCountedBy = NoSite;
  bool Live = false;
  bool ReleaseRequested = false;
  /// The sites that count this address in their DistinctBlocks.
  std::vector<std::uint32_t> CountedBy;

  /// Whether Site counts this block.
  bool countedBy(std::uint32_t Site) {
    if (Site == LastCountedBy)
      return true;
    if (std::find(CountedBy.begin(), CountedBy.end(), Site) == CountedBy.end())
      return false;
    LastCountedBy = Site;
    return true;
  }
  /// Site counts this block from now on (not counted before).
  void countBy(std::uint32_t Site) {
    CountedBy.push_back(Site);
    LastCountedBy = Site;
  }
};

class KnownBlocks {
public:
  /// The block at Ptr (Ptr != 0), made (not live, counted by no site) if new.
  KnownBlock &findOrMake(Addr Ptr) {
    const std::size_t Before = Table.size();
    KnownBlock &Block = Table.findOrMake(Ptr);
    if (Table.size() == Before && forgotten(Block))
      --Forgotten; // found again: it is a known block once more
    return Block;
  }
  /// The block at Ptr, or null when it has none (a forgotten block counts
  /// as none to the accounting: it is not live).
  KnownBlock *find(Addr Ptr) { return Table.find(Ptr); }
  /// Block (found here, not live, counted by no site) is forgotten; may
  /// rebuild the table, so references into it do not outlive this call.
  void forget(KnownBlock &Block) {
    Block = KnownBlock();
    ++Forgotten;
    if (Forgotten > MinForgottenToSweep && 2 * Forgotten > Table.size()) {
      Table.rebuild(Table.capacity(), [](const KnownBlock &B) { return !forgotten(B); });
      Forgotten = 0;
      ++Sweeps;
    }
  }
  /// Blocks kept (live or counted by a site), forgotten ones left out.
  std::size_t size() const { return Table.size() - Forgotten; }
  /// Rebuilds that dropped the forgotten blocks.
  std::size_t sweeps() const { return Sweeps; }

private:
  static bool forgotten(const KnownBlock &B) { return !B.Live && B.CountedBy.empty(); }
  /// A rebuild copies the table: not for a handful of forgotten blocks.
  static constexpr std::size_t MinForgottenToSweep = 1024;
  /// 0: a free slot (a block's address is never 0).
  AddressTable<KnownBlock, 0> Table;
  std::size_t Forgotten = 0;
  std::size_t Sweeps = 0;
};

} // namespace rt
} // namespace streamlife

#endif
