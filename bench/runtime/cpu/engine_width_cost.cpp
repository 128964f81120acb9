//===- engine_width_cost.cpp - the engine's per-call cost as the clocks widen ===//
//
// What the engine's hot calls cost when the clocks are wide (a slot per
// stream and host thread: FSDP2 on one rank creates 132 streams) and the
// calling threads hand locks to each other, so that each thread's clock keeps
// changing by a slot or two. Two engines play the same calls side by side,
// interleaved, through the public entry points (lock and lookups included):
//   whole    EngineOptions::ChangedSlotJoins = false: every join of a thread's
//            knowledge reads its whole clock (the engine before changed-slot
//            joins, for streams and kept allocations);
//   changed  the default: only the slots that changed since the two sides
//            were last in step are read (LoggedClock.h).
// Cases (each a round of T threads taking one lock in turn; per turn the
// thread acquires the lock the previous one released, then):
//   handover  releases it (acquires and releases only);
//   launch    makes --per-turn launches on streams chosen round robin among
//             --hot of them, then releases (StreamTable::enqueue inherits the
//             thread's clock, which changed at the acquire);
//   alloc     makes --per-turn caching allocations and releases of a block on
//             one of --hot streams, then releases the lock (each allocation's
//             thread knowledge is kept for other threads' releases:
//             ConcurrentAllocations.h).
// Both engines must end with the same findings (none) and the same clocks
// (exit 1 otherwise). Figures: ns per call (launch, allocation+release pair,
// or lock event), medians of --repeat rounds.
//
//   engine_width_cost [--cases handover,launch,alloc] [--slots 16,140,300]
//                     [--turns N] [--per-turn K] [--hot H] [--threads T]
//                     [--repeat R] [--only whole|changed]
//
// --only plays one engine (for profilers and instruction counts: run it under
// valgrind --tool=callgrind at two --turns and divide the difference).
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "engine/EngineImpl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace streamlife::rt;
using streamlife::bench::median;
using streamlife::bench::split;

namespace {

constexpr const char *Usage =
    "engine_width_cost [--cases handover,launch,alloc] [--slots 16,140,300] [--turns N] "
    "[--per-turn K] [--hot H] [--threads T] [--repeat R] [--only whole|changed]";

enum class Case { Handover, Launch, Alloc };

struct Params {
  unsigned Slots;
  unsigned Threads;
  std::size_t Turns;
  unsigned PerTurn;
  unsigned Hot;
};

/// One engine set up at the width: Slots - Threads streams, every thread
/// synchronized with each once (its clock is as wide as the process's).
struct Subject {
  Subject(bool Changed, const Params &P) {
    EngineOptions O;
    O.ChangedSlotJoins = Changed;
    E = std::make_unique<Engine>(Sink, O);
    std::vector<ThreadId> Threads;
    for (ThreadId T = 1; T <= P.Threads; ++T)
      Threads.push_back(T);
    Streams = streamlife::bench::widen(*E, Threads, P.Slots);
  }
  streamlife::bench::CountingSink Sink;
  std::unique_ptr<Engine> E;
  std::vector<StreamId> Streams;
};

/// Plays the case; returns ns per counted call.
double play(Subject &S, Case C, const Params &P) {
  Engine &E = *S.E;
  const SyncId Lock = 0x5000;
  const unsigned Hot = std::max(1u, std::min<unsigned>(P.Hot, S.Streams.size()));
  std::size_t Calls = 0;
  unsigned Next = 0;
  const std::vector<Range> NoRanges;
  auto Start = std::chrono::steady_clock::now();
  for (std::size_t Turn = 0; Turn < P.Turns; ++Turn) {
    const ThreadId T = 1 + Turn % P.Threads;
    E.hostAcquires(T, Lock);
    switch (C) {
    case Case::Handover:
      Calls += 2;
      break;
    case Case::Launch:
      for (unsigned K = 0; K < P.PerTurn; ++K) {
        E.launched(T, S.Streams[Next++ % Hot], NoRanges, /*Op=*/7);
        ++Calls;
      }
      break;
    case Case::Alloc:
      for (unsigned K = 0; K < P.PerTurn; ++K) {
        const StreamId St = S.Streams[Next++ % Hot];
        const Range Block{0x10000000 + 0x100000 * Addr(T) + 0x1000 * Addr(K), 0x1000};
        E.allocated(T, Block, AllocKind::CachingAllocator, St, /*Site=*/8, 0, 0);
        E.released(T, Block.Begin, ReleaseKind::CachingAllocator, St, /*Site=*/9);
        ++Calls;
      }
      break;
    }
    E.hostReleases(T, Lock);
  }
  auto End = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(End - Start).count() / double(Calls);
}

bool sameClock(const VectorClock &A, const VectorClock &B) {
  return A.dominates(B) && B.dominates(A);
}

bool sameState(Subject &A, Subject &B, const Params &P) {
  if (A.Sink.Count != B.Sink.Count)
    return false;
  Engine::Impl &X = A.E->state(), &Y = B.E->state();
  for (ThreadId T = 1; T <= P.Threads; ++T)
    if (!sameClock(X.Hosts.find(T)->Clock, Y.Hosts.find(T)->Clock))
      return false;
  for (StreamId S = 0; S < X.Streams.size(); ++S)
    if (!sameClock(X.Streams.get(S)->Clock, Y.Streams.get(S)->Clock))
      return false;
  return true;
}

[[noreturn]] void usage(const std::string &Why) { streamlife::bench::usageError(Why, Usage); }

unsigned long number(const char *Flag, const std::string &Text) {
  return streamlife::bench::number(Flag, Text, Usage);
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Cases = {"handover", "launch", "alloc"};
  std::vector<unsigned> Widths = {16, 140, 300};
  std::size_t Turns = 200000;
  unsigned PerTurn = 4, Hot = 4, Threads = 2, Repeat = 5;
  std::string Only;
  for (int I = 1; I < Argc; ++I) {
    const char *Flag = Argv[I];
    if (I + 1 >= Argc)
      usage(std::string("missing value for ") + Flag);
    const std::string Value = Argv[++I];
    if (!std::strcmp(Flag, "--cases"))
      Cases = split(Value);
    else if (!std::strcmp(Flag, "--slots")) {
      Widths.clear();
      for (const std::string &W : split(Value))
        Widths.push_back(static_cast<unsigned>(number(Flag, W)));
    } else if (!std::strcmp(Flag, "--turns"))
      Turns = number(Flag, Value);
    else if (!std::strcmp(Flag, "--per-turn"))
      PerTurn = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--hot"))
      Hot = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--threads"))
      Threads = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--repeat"))
      Repeat = static_cast<unsigned>(number(Flag, Value));
    else if (!std::strcmp(Flag, "--only") && (Value == "whole" || Value == "changed"))
      Only = Value;
    else
      usage(std::string("unknown option '") + Flag + "'");
  }
  if (Threads < 1 || Repeat < 1 || Turns < 1 || PerTurn < 1 || Hot < 1)
    usage("--threads, --repeat, --turns, --per-turn and --hot must be positive");
  for (unsigned W : Widths)
    if (W <= Threads)
      usage("every --slots width must exceed --threads (the host threads' slots count)");

  std::printf("engine_width_cost: %zu turns of %u threads, %u calls per turn on %u hot streams, "
              "%u rounds\n",
              Turns, Threads, PerTurn, Hot, Repeat);
  std::printf("%-9s %6s %10s %10s %8s\n", "case", "slots", "whole_ns", "changed_ns", "ratio");
  for (const std::string &Name : Cases) {
    Case C;
    if (Name == "handover")
      C = Case::Handover;
    else if (Name == "launch")
      C = Case::Launch;
    else if (Name == "alloc")
      C = Case::Alloc;
    else
      usage("unknown case '" + Name + "'");
    for (unsigned W : Widths) {
      const Params P{W, Threads, Turns, PerTurn, Hot};
      std::vector<double> WholeNs, ChangedNs;
      for (unsigned R = 0; R < Repeat; ++R) {
        if (!Only.empty()) {
          Subject One(Only == "changed", P);
          (Only == "changed" ? ChangedNs : WholeNs).push_back(play(One, C, P));
          continue;
        }
        Subject Whole(false, P), Changed(true, P);
        // Alternate which engine goes first, so neither always runs warm.
        if (R % 2) {
          ChangedNs.push_back(play(Changed, C, P));
          WholeNs.push_back(play(Whole, C, P));
        } else {
          WholeNs.push_back(play(Whole, C, P));
          ChangedNs.push_back(play(Changed, C, P));
        }
        if (!sameState(Whole, Changed, P)) {
          std::fprintf(stderr, "error: the engines differ (%s, %u slots)\n", Name.c_str(), W);
          return 1;
        }
      }
      const double Wh = WholeNs.empty() ? 0 : median(WholeNs);
      const double Ch = ChangedNs.empty() ? 0 : median(ChangedNs);
      std::printf("%-9s %6u %10.1f %10.1f %7.2fx\n", Name.c_str(), W, Wh, Ch, Ch ? Wh / Ch : 0.0);
    }
  }
  return 0;
}
