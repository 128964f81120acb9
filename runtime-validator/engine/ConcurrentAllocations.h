//===- ConcurrentAllocations.h - caching allocations per stream and thread -*- C++ -*-===//
//
// A caching allocator hands a released block to the next allocation on the
// block's stream. "Next" must not mean "arrived next": when thread T1 releases
// a block of stream R while thread T2 allocates on R, which of the two calls
// reaches the allocator first is up to the scheduler. So an allocation on R by
// another thread that does not happen before the release (host
// happens-before, HostClocks.h) is a reuse opportunity for it, whether it
// arrived before the release or after (DeferredFrees.cpp).
//
// This file keeps what the "arrived before" half needs: per stream and
// thread, the caching allocations made there, one entry per epoch of the
// thread (allocations within one epoch are indistinguishable to other
// threads), with the thread's clock at the first of them (what that
// allocation's new owner knew). An entry is dropped once every CUDA thread's
// clock covers its epoch: every later release happens after it. A cap per
// stream and thread bounds the rest (the oldest go first, counted).
//
// Keeping a copy of the thread's clock per entry cost the clock's width per
// caching allocation after every lock handover (FSDP2 on one rank: about 140
// slots). A list keeps one copy instead, the thread's clock at its newest
// entry, and each older entry keeps only the slots that grew between it and
// the next one, with their values at it (read from the thread's LoggedClock:
// the slots that grew since the newest entry's position). An entry's
// knowledge of slot k is then the first such value for k from it towards the
// newest, else the copy's: what a release asks of it (does it cover one
// access's epoch) is a short walk, and rare (only releases that leave an
// access unordered ask). Clocks of at most LoggedClock::NarrowWidth slots
// are copied whole (a copy costs less there than finding what grew); since a
// clock only widens, such entries come before every entry kept by changes.
//
// The entries' changes lie end to end in one buffer per list, in entry order
// (an entry's are written when the next one is recorded): a vector per entry
// cost an allocation and a free per caching allocation after a lock
// handover (about 180 instructions, FSDP2's mix). The buffer drops the
// changes of dropped entries when they are most of it. A list's entries lie
// in a ring of reused slots (RingQueue.h), not a std::deque, which
// allocated a node every few caching allocations.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_CONCURRENTALLOCATIONS_H
#define STREAMLIFE_RT_ENGINE_CONCURRENTALLOCATIONS_H

#include "engine/Check.h"
#include "engine/CommonKnowledge.h"
#include "engine/Engine.h"
#include "engine/HostClocks.h"
#include "engine/LoggedClock.h"
#include "engine/RingQueue.h"
#include "engine/VectorClock.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace streamlife {
namespace rt {

struct RecentAllocation {
  Epoch Stamp;           ///< the allocating thread's epoch (HostClocks::stamp)
  OpId Site = NoOp;      ///< that allocation's site, for "could be reused by"
  std::uint32_t Pool = 0;
  /// The slots of the thread's clock that grew between this entry and the
  /// next one of its list, each with its value at this entry: OlderCount
  /// pairs of the list's Changes from position OlderAt on.
  std::uint64_t OlderAt = 0;
  std::uint32_t OlderCount = 0;
  /// The thread's whole clock here (Whole: narrow clocks, and every entry
  /// without changed-slot joins); no changes then. Not read otherwise (a
  /// reused slot may keep an older entry's copy there).
  VectorClock Knowledge;
  bool Whole = false;
};

class ConcurrentAllocations {
  using Change = std::pair<ClockSlot, ClockTime>;
  struct List {
    RingQueue<RecentAllocation> Entries;
    /// The entries' changes, end to end; Changes[0] is at position
    /// ChangesBase (positions count every change the list ever kept).
    std::vector<Change> Changes;
    std::uint64_t ChangesBase = 0;
    std::uint64_t changesEnd() const { return ChangesBase + Changes.size(); }
    /// The thread's clock at the newest entry (changed-slot joins), and the
    /// position of the thread's LoggedClock it was read at.
    VectorClock Newest;
    LoggedClock::Position NewestAt = LoggedClock::Unknown;
    /// Empty at the previous prune too: dropped at the next one.
    bool Idle = false;
  };

public:
  /// ChangedSlotJoins false: every entry copies the thread's whole clock (the
  /// reference the engine's tests and benchmarks compare with).
  explicit ConcurrentAllocations(std::size_t CapPerThread, bool ChangedSlotJoins = true)
      : CapPerThread(CapPerThread ? CapPerThread : 1), ChangedSlotJoins(ChangedSlotJoins) {}

  /// What the thread of one entry knew at it (the clock its new owner had).
  class Knowledge {
  public:
    ClockTime get(ClockSlot S) const {
      // The value at entry I is its own where it is whole or S grew before
      // the next entry, else the next entry's value.
      for (std::size_t E = Index; E < L->Entries.size(); ++E) {
        const RecentAllocation &It = L->Entries[E];
        if (It.Whole)
          return It.Knowledge.get(S);
        const Change *Older = L->Changes.data() + (It.OlderAt - L->ChangesBase);
        for (std::uint32_t I = 0; I < It.OlderCount; ++I)
          if (Older[I].first == S)
            return Older[I].second;
      }
      return L->Newest.get(S);
    }
    bool covers(const Epoch &At) const { return get(At.Slot) >= At.Time; }

  private:
    friend class ConcurrentAllocations;
    const List *L = nullptr;
    std::size_t Index = 0;
  };

  /// A caching allocation of Pool on S by H, stamped Stamp. Returns false when
  /// the cap dropped an older entry.
  bool record(StreamId S, const HostClock &H, Epoch Stamp, OpId Site, std::uint32_t Pool) {
    List &L = listOf({S, H.Thread});
    L.Idle = false;
    // firstNotCovered's binary search relies on it.
    STREAMLIFE_DCHECK(L.Entries.empty() || (L.Entries.back().Stamp.Slot == Stamp.Slot &&
                                            L.Entries.back().Stamp.Time <= Stamp.Time));
    if (!L.Entries.empty() && L.Entries.back().Stamp.Time == Stamp.Time &&
        L.Entries.back().Pool == Pool)
      return true;
    // At the cap the oldest entry goes before the new one comes, so the ring
    // never needs more slots than the cap (a power of two by default).
    const bool Full = L.Entries.size() >= CapPerThread;
    if (Full)
      popFront(L);
    const bool Whole = !ChangedSlotJoins || H.Clock.narrow();
    if (Whole) {
      ++Recorded;
      ++WholeCopies;
      // A later entry kept by changes starts from this one.
      L.NewestAt = LoggedClock::Unknown;
    } else {
      catchUp(L, H.Clock); // writes the previous entry's changes
    }
    // A reused slot: every field is set (Knowledge is read only when Whole,
    // and a whole copy reuses the slot's storage).
    RecentAllocation &A = L.Entries.appendSlot();
    A.Stamp = Stamp;
    A.Site = Site;
    A.Pool = Pool;
    A.OlderAt = L.changesEnd(); // its changes come next
    A.OlderCount = 0;
    A.Whole = Whole;
    if (Whole)
      A.Knowledge.assign(H.Clock);
    return !Full;
  }

  /// Calls Fn(const RecentAllocation &, const Knowledge &) with, for every
  /// thread other than Releaser that allocated from Pool on S, its earliest
  /// allocation that the clock Release does not cover (not ordered before the
  /// release): the one whose new owner knew the least.
  template <typename Fn>
  void forEachUnorderedBefore(StreamId S, ThreadId Releaser, const VectorClock &Release,
                              std::uint32_t Pool, Fn &&F) const {
    for (auto It = Lists.lower_bound({S, 0}); It != Lists.end() && It->first.first == S; ++It) {
      if (It->first.second == Releaser)
        continue;
      const List &L = It->second;
      for (std::size_t I = firstNotCovered(L, Release); I < L.Entries.size(); ++I) {
        const RecentAllocation &A = L.Entries[I];
        if (A.Pool != Pool)
          continue;
        F(A, knowledge(L, I));
        break;
      }
    }
  }

  /// Calls Fn(StreamId, ThreadId, const RecentAllocation &, const Knowledge &)
  /// for every entry (tests compare the two ways of keeping them).
  template <typename Fn> void forEach(Fn &&F) const {
    for (const auto &[Key, L] : Lists)
      for (std::size_t I = 0; I < L.Entries.size(); ++I)
        F(Key.first, Key.second, L.Entries[I], knowledge(L, I));
  }

  /// Drops the entries every CUDA thread is ordered after. A list keeps its
  /// copy of the thread's clock while it is empty for one prune interval (a
  /// stream in use allocates again soon; a new copy costs the whole width).
  void prune(const CommonKnowledge &Common) {
    for (auto It = Lists.begin(); It != Lists.end();) {
      List &L = It->second;
      while (!L.Entries.empty() && Common.covers(L.Entries.front().Stamp))
        popFront(L);
      if (L.Entries.empty() && L.Idle) {
        It = Lists.erase(It);
        Last = nullptr;
        continue;
      }
      L.Idle = L.Entries.empty();
      ++It;
    }
  }

  std::size_t entries() const {
    std::size_t N = 0;
    for (const auto &Entry : Lists)
      N += Entry.second.Entries.size();
    return N;
  }
  /// Entries whose knowledge was read from the thread's whole clock (a new
  /// list, clocks too narrow to keep the order) and all of them.
  std::uint64_t wholeCopies() const { return WholeCopies; }
  std::uint64_t recorded() const { return Recorded; }

private:
  /// The index of L's first entry that Release does not cover. A list's
  /// stamps are one thread's epochs (its own slot, whose time never goes
  /// back: record() checks), so the covered entries are a prefix: a binary
  /// search, where a scan read every entry since the last prune (up to the
  /// sweep's interval of them) at each release that left an access unordered.
  static std::size_t firstNotCovered(const List &L, const VectorClock &Release) {
    if (L.Entries.empty())
      return 0;
    const ClockTime Known = Release.get(L.Entries.front().Stamp.Slot);
    return L.Entries.partitionPoint(
        [Known](const RecentAllocation &A) { return A.Stamp.Time <= Known; });
  }

  /// Drops L's oldest entry, and the changes no entry reads any more once
  /// they are most of the buffer (so a drop costs O(1) on average).
  static void popFront(List &L) {
    L.Entries.pop_front();
    const std::uint64_t Unread =
        (L.Entries.empty() ? L.changesEnd() : L.Entries.front().OlderAt) - L.ChangesBase;
    if (Unread == 0 || 2 * Unread < L.Changes.size())
      return;
    L.Changes.erase(L.Changes.begin(), L.Changes.begin() + static_cast<std::ptrdiff_t>(Unread));
    L.ChangesBase += Unread;
  }

  /// The list of (stream, thread), made if need be. A thread's allocations
  /// come in runs on one stream: the last list asked is remembered (a map's
  /// node never moves; prune forgets it when it erases a list).
  List &listOf(std::pair<StreamId, ThreadId> Key) {
    if (!Last || LastKey != Key) {
      Last = &Lists[Key];
      LastKey = Key;
    }
    return *Last;
  }

  Knowledge knowledge(const List &L, std::size_t I) const {
    Knowledge K;
    K.L = &L;
    K.Index = I;
    return K;
  }

  /// Brings L.Newest up to Clock, noting in L's newest entry what each slot
  /// that grew was there.
  void catchUp(List &L, const LoggedClock &Clock) {
    ++Recorded;
    // Gathered first, then copied once: one allocation per entry, not one
    // per doubling. At most one per slot, so room for the width is enough
    // and the gathering needs no capacity checks.
    if (Scratch.size() < Clock.width())
      Scratch.resize(Clock.width());
    std::size_t Gathered = 0;
    if (L.NewestAt != LoggedClock::Unknown && Clock.readsChangesSince(L.NewestAt)) {
      Clock.joinChangesInto(L.Newest, L.NewestAt, [&](ClockSlot S, ClockTime Then) {
        Scratch[Gathered++] = {S, Then};
      });
    } else {
      ++WholeCopies;
      for (ClockSlot S = 0; S < Clock.width(); ++S) {
        const ClockTime Now = Clock.get(S), Then = L.Newest.get(S);
        if (Now <= Then)
          continue;
        Scratch[Gathered++] = {S, Then};
        L.Newest.raise(S, Now);
      }
    }
    L.NewestAt = Clock.position();
    if (!L.Entries.empty() && !L.Entries.back().Whole) {
      // The newest entry's changes start at the buffer's end (record()).
      L.Entries.back().OlderCount = static_cast<std::uint32_t>(Gathered);
      L.Changes.insert(L.Changes.end(), Scratch.begin(), Scratch.begin() + Gathered);
    }
  }

  std::size_t CapPerThread;
  bool ChangedSlotJoins;
  std::uint64_t WholeCopies = 0;
  std::uint64_t Recorded = 0;
  std::vector<Change> Scratch;
  std::map<std::pair<StreamId, ThreadId>, List> Lists;
  std::pair<StreamId, ThreadId> LastKey{};
  List *Last = nullptr;
};

} // namespace rt
} // namespace streamlife

#endif
