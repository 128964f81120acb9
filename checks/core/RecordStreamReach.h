//===--- RecordStreamReach.h - streamlife -----------------------*- C++ -*-===//
//
// streamlife-record-stream-in-loop through calls, for either front end. A
// loop that calls a helper which hands one tensor to record_stream
//
//   for (auto &t : tensors) keep(t, stream);   // keep calls t.record_stream(stream)
//   for param in module.parameters(): self._transfer(param, stream)
//
// repeats record_stream once an iteration as surely as a loop that calls it
// itself. The call inside the loop is reported when the function it calls
// reaches a record_stream call outside a loop of its own, directly or through
// its own calls, a few calls deep, and through no call inside a loop: a loop
// nearer the record_stream call is that loop's finding (an epoch loop that
// calls a training loop is not reported again).
//
// The search is the same for both front ends; each gives it its call graph
// (Python: the lowered functions, specializations included; Clang: the
// function bodies of the translation unit) through a small adaptor:
//
//   using Node = ...; using Site = ...;
//   bool recordsInLoop(Node);        // calls record_stream inside a loop of its own
//   const RecordStreamCall<Site> *record(Node);  // its first record_stream
//                                    // call outside loops of its own
//   template <typename F> void forEachCall(Node, F);   // F(Node Callee, Site, bool InLoop)
//   std::string name(Node);
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_RECORDSTREAMREACH_H
#define STREAMLIFE_CHECKS_CORE_RECORDSTREAMREACH_H

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace streamlife {
namespace core {

/// Calls followed below the function a loop calls: its helper, the helper's
/// and one more (a method that calls a free function that calls a recording
/// helper). Deeper chains name a function too far from the loop for its
/// reader to recognize the record_stream call as the loop's.
constexpr unsigned MaxRecordStreamCallDepth = 3;

/// A record_stream call: where, and its receiver as written.
template <typename Site> struct RecordStreamCall {
  Site At;
  std::string Buffer;
};

/// How the function a loop calls reaches a record_stream call: from it down
/// to the function that makes the call, each function's name and where it
/// calls the next (the last: its record_stream call), and the receiver.
template <typename Site> struct RecordStreamReach {
  struct Hop {
    std::string Function;
    Site At;
  };
  std::vector<Hop> Hops;
  std::string Buffer;
};

/// The shortest chain of calls from \p Root, at most MaxRecordStreamCallDepth
/// below it, to a function that calls record_stream outside a loop of its
/// own, through no call inside a loop; none when there is none, when a
/// function on the way calls record_stream inside a loop of its own, or when
/// a chain through a call inside a loop reaches one too.
template <typename Graph>
std::optional<RecordStreamReach<typename Graph::Site>>
reachRecordStream(Graph &G, typename Graph::Node Root) {
  using Node = typename Graph::Node;
  using Site = typename Graph::Site;
  // Breadth first, each function once per way of reaching it (through a
  // call in a loop or not); Parent holds the call that reached it.
  struct Visit {
    Node Function;
    bool ThroughLoop;
    size_t Parent; ///< index into Seen; npos for the root
    Site CallSite;
  };
  constexpr size_t None = static_cast<size_t>(-1);
  std::vector<Visit> Seen{{Root, false, None, Site()}};
  std::optional<RecordStreamReach<Site>> Found;
  size_t LevelEnd = 1;
  unsigned Depth = 0;
  for (size_t Next = 0; Next < Seen.size(); ++Next) {
    if (Next == LevelEnd) {
      if (++Depth > MaxRecordStreamCallDepth)
        break;
      LevelEnd = Seen.size();
    }
    const Visit Here = Seen[Next];
    if (G.recordsInLoop(Here.Function))
      return std::nullopt;
    if (const auto *Record = G.record(Here.Function)) {
      if (Here.ThroughLoop)
        return std::nullopt;
      if (!Found) {
        Found.emplace();
        Found->Buffer = Record->Buffer;
        Site At = Record->At;
        for (size_t I = Next; I != None; I = Seen[I].Parent) {
          Found->Hops.push_back({G.name(Seen[I].Function), At});
          At = Seen[I].CallSite;
        }
        std::reverse(Found->Hops.begin(), Found->Hops.end());
      }
      continue;
    }
    G.forEachCall(Here.Function, [&](Node Callee, Site At, bool InLoop) {
      bool ThroughLoop = Here.ThroughLoop || InLoop;
      if (std::none_of(Seen.begin(), Seen.end(), [&](const Visit &V) {
            return V.Function == Callee && V.ThroughLoop == ThroughLoop;
          }))
        Seen.push_back({Callee, ThroughLoop, Next, At});
    });
  }
  return Found;
}

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_RECORDSTREAMREACH_H
