//===- BlockLanes.cpp - memory blocks as lanes of the timeline -------------===//
#include "timeline/BlockLanes.h"

#include <algorithm>

namespace streamlife {
namespace rt {

std::string blockLetters(std::uint32_t Index) {
  std::string Text;
  std::uint64_t N = std::uint64_t(Index) + 1;
  while (N) {
    --N;
    Text.insert(Text.begin(), static_cast<char>('A' + N % 26));
    N /= 26;
  }
  return Text;
}

Block &BlockLanes::allocated(Range R, bool Pool, std::uint64_t Ns, std::vector<Block> &Closed) {
  std::map<Addr, std::uint32_t> &Level = level(Pool);
  std::uint64_t Size = R.Size == WholeAllocation ? 1 : std::max<std::uint64_t>(R.Size, 1);
  Addr End = R.Begin + Size;
  // Blocks at other addresses that overlap the new one are gone.
  auto It = Level.upper_bound(R.Begin);
  if (It != Level.begin()) {
    auto Prev = std::prev(It);
    Block &B = Blocks.at(Prev->second);
    if (Prev->first != R.Begin && B.Base + B.Size > R.Begin)
      It = Prev;
  }
  while (It != Level.end() && It->first < End) {
    auto Next = std::next(It);
    if (It->first != R.Begin) {
      Closed.push_back(Blocks.at(It->second));
      Blocks.erase(It->second);
      Level.erase(It);
    }
    It = Next;
  }
  auto Same = Level.find(R.Begin);
  if (Same != Level.end()) {
    Block &B = Blocks.at(Same->second);
    if (B.State != Block::Phase::Released)
      Closed.push_back(B); // its release was never seen: closed as it stands
    ++B.Lifetime;
    B.Size = Size;
    B.State = Block::Phase::Live;
    B.AllocatedNs = Ns;
    B.RequestedNs = 0;
    B.ReleaseLabel = 0;
    return B;
  }
  std::uint32_t Id = NextId++;
  Block &B = Blocks[Id];
  B.Id = Id;
  B.Base = R.Begin;
  B.Size = Size;
  B.Pool = Pool;
  B.AllocatedNs = Ns;
  Level[R.Begin] = Id;
  return B;
}

Block *BlockLanes::find(std::map<Addr, std::uint32_t> &Level, Addr A, bool LiveOnly) {
  auto It = Level.upper_bound(A);
  if (It == Level.begin())
    return nullptr;
  Block &B = Blocks.at(std::prev(It)->second);
  if (A >= B.Base + B.Size)
    return nullptr;
  if (LiveOnly && B.State == Block::Phase::Released)
    return nullptr;
  return &B;
}

Block *BlockLanes::lookup(Addr A, bool LiveOnly) {
  Block *Pooled = find(PoolBlocks, A, true);
  if (Pooled)
    return Pooled;
  if (Block *Live = find(Plain, A, true))
    return Live;
  if (LiveOnly)
    return nullptr;
  if (Block *Old = find(PoolBlocks, A, false))
    return Old;
  return find(Plain, A, false);
}

Block *BlockLanes::at(Addr Base) {
  for (auto *Level : {&PoolBlocks, &Plain})
    if (auto It = Level->find(Base); It != Level->end())
      return &Blocks.at(It->second);
  return nullptr;
}

void BlockLanes::released(Block &B) {
  B.State = Block::Phase::Released;
  ReleaseOrder.push_back(B.Id);
  while (ReleaseOrder.size() > MaxRemembered) {
    std::uint32_t Old = ReleaseOrder.front();
    ReleaseOrder.pop_front();
    auto It = Blocks.find(Old);
    if (It != Blocks.end() && It->second.State == Block::Phase::Released)
      forget(Old);
  }
}

void BlockLanes::forget(std::uint32_t Id) {
  Block &B = Blocks.at(Id);
  std::map<Addr, std::uint32_t> &Level = level(B.Pool);
  if (auto It = Level.find(B.Base); It != Level.end() && It->second == Id)
    Level.erase(It);
  Blocks.erase(Id);
}

bool BlockLanes::ensureLane(Block &B) {
  if (B.Lane)
    return false;
  B.Letter = NextLetter++;
  B.Lane = 1 + B.Letter * TidsPerBlock;
  return true;
}

BlockUse &BlockLanes::use(Block &B, StreamId S, bool &NewLane) {
  NewLane = false;
  for (BlockUse &U : B.Uses)
    if (U.Stream == S)
      return U;
  ensureLane(B);
  BlockUse U;
  U.Stream = S;
  // Sub-lanes follow the block's lane; a block used by more streams than its
  // range holds gets lanes from a shared overflow range.
  U.Tid = B.Uses.size() + 1 < TidsPerBlock ? B.Lane + 1 + static_cast<std::uint32_t>(B.Uses.size())
                                           : NextOverflowTid++;
  NewLane = true;
  B.Uses.push_back(U);
  return B.Uses.back();
}

} // namespace rt
} // namespace streamlife
