//===- BenchSupport.h - what the engine benchmarks share ---------*- C++ -*-===//
//
// The pieces every CPU benchmark of the engine needs and none should own: a
// finding sink that only counts, command-line numbers and lists, medians, and
// an engine made as wide as a real process's (FSDP2 on one rank: about 132
// streams and a few host threads, every thread having synchronized with each
// stream once, so that its clock has a slot per stream).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_BENCH_RUNTIME_CPU_BENCHSUPPORT_H
#define STREAMLIFE_BENCH_RUNTIME_CPU_BENCHSUPPORT_H

#include "engine/Engine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace streamlife {
namespace bench {

struct CountingSink : rt::FindingSink {
  void report(const rt::Finding &) override { ++Count; }
  std::size_t Count = 0;
};

inline double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// Prints Why and the usage line, exits 2 (bad usage).
[[noreturn]] inline void usageError(const std::string &Why, const char *Usage) {
  std::fprintf(stderr, "error: %s\nusage: %s\n", Why.c_str(), Usage);
  std::exit(2);
}

/// Text as a decimal number, or a usage error naming Flag.
inline unsigned long number(const char *Flag, const std::string &Text, const char *Usage) {
  char *End = nullptr;
  unsigned long V = std::strtoul(Text.c_str(), &End, 10);
  if (Text.empty() || *End)
    usageError(std::string("bad number for ") + Flag + ": '" + Text + "'", Usage);
  return V;
}

/// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split(const std::string &List) {
  std::vector<std::string> Out;
  for (std::size_t Pos = 0; Pos <= List.size();) {
    std::size_t Comma = List.find(',', Pos);
    if (Comma == std::string::npos)
      Comma = List.size();
    Out.push_back(List.substr(Pos, Comma - Pos));
    Pos = Comma + 1;
  }
  return Out;
}

/// Widens E's clocks to Slots: Slots - Threads streams of Flavor (handles
/// 0x1000 + Threads, 0x1000 + Threads + 1, ...), each recorded once and
/// synchronized with by every thread of Threads. Returns the streams.
inline std::vector<rt::StreamId> widen(rt::Engine &E, const std::vector<rt::ThreadId> &Threads,
                                       unsigned Slots,
                                       rt::StreamFlavor Flavor = rt::StreamFlavor::NonBlocking) {
  std::vector<rt::StreamId> Streams;
  for (unsigned S = static_cast<unsigned>(Threads.size()); S < Slots; ++S) {
    rt::StreamDesc D;
    D.StreamHandle = 0x1000 + S;
    D.Flavor = Flavor;
    Streams.push_back(E.stream(0, D));
  }
  for (rt::ThreadId T : Threads)
    for (std::size_t I = 0; I < Streams.size(); ++I) {
      E.eventRecorded(T, /*Event=*/0x9000 + I, Streams[I]);
      E.hostSyncsStream(T, Streams[I]);
    }
  return Streams;
}

} // namespace bench
} // namespace streamlife

#endif
