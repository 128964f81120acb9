//===- LaunchStats.h - how launches were decoded, for api_stats -*- C++ -*-===//
//
// Counters that show a silent run was an observed one: how many launches each
// kernel family's plan decoded, how many fell to the generic rule, how many
// generic-scan words were ignored for pointing into released memory, and the
// NCCL calls and math-library calls decoded at their API, by name. Printed
// with intercept_stats=1 as "streamlife: intercept-stats: ...".
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_LAUNCHSTATS_H
#define STREAMLIFE_RT_INTERCEPT_LAUNCHSTATS_H

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace streamlife {
namespace rt {

class LaunchStats {
public:
  /// Family is a plan's family() (a string literal).
  void decoded(const char *Family) { count(Families, Family); }
  /// Api is the NCCL function's name (a string literal).
  void collective(const char *Api) { count(Collectives, Api); }
  /// Api is a math library's function decoded at its API (a string literal).
  void libraryCall(const char *Api) { count(LibraryCalls, Api); }
  /// A launch, record, wait, copy, set, stream-ordered allocation or free, or
  /// library call's accesses queued behind events (InterceptContext::deferring).
  void deferred() { Deferred.fetch_add(1, std::memory_order_relaxed); }
  void ignoredGenericWords(std::size_t N) {
    if (N)
      Ignored.fetch_add(N, std::memory_order_relaxed);
  }

  /// IgnoredWhenReplayed: the ignored words of the launches replayed from the
  /// queue (AnnotatedAllocators::ignoredGenericWords), counted there.
  void print(std::FILE *Out, std::uint64_t IgnoredWhenReplayed) const {
    std::fprintf(Out, "streamlife: intercept-stats: launches by parameter plan:");
    for (const Counter &C : Families)
      if (const char *Name = C.Name.load())
        std::fprintf(Out, " %s %llu;", Name, static_cast<unsigned long long>(C.Count.load()));
    std::fprintf(Out, " generic-scan words ignored (released memory) %llu\n",
                 static_cast<unsigned long long>(Ignored.load() + IgnoredWhenReplayed));
    printCalls(Out, "NCCL calls", Collectives);
    printCalls(Out, "library calls decoded at their API", LibraryCalls);
    std::fprintf(Out, "streamlife: intercept-stats: CUDA operations replayed later behind queued events: %llu\n",
                 static_cast<unsigned long long>(Deferred.load()));
  }

private:
  struct Counter {
    std::atomic<const char *> Name{nullptr};
    std::atomic<std::uint64_t> Count{0};
  };
  static constexpr std::size_t Slots = 48; ///< more names than there are families, NCCL or library calls

  static void printCalls(std::FILE *Out, const char *What, const Counter (&Table)[Slots]) {
    if (!Table[0].Name.load())
      return;
    std::fprintf(Out, "streamlife: intercept-stats: %s:", What);
    const char *Separator = " ";
    for (const Counter &C : Table)
      if (const char *Name = C.Name.load()) {
        std::fprintf(Out, "%s%s %llu", Separator, Name, static_cast<unsigned long long>(C.Count.load()));
        Separator = "; ";
      }
    std::fprintf(Out, "\n");
  }

  static void count(Counter (&Table)[Slots], const char *Name) {
    for (Counter &C : Table) {
      const char *Seen = C.Name.load(std::memory_order_acquire);
      if (!Seen) {
        const char *Expected = nullptr;
        if (C.Name.compare_exchange_strong(Expected, Name) || std::strcmp(Expected, Name) == 0) {
          C.Count.fetch_add(1, std::memory_order_relaxed);
          return;
        }
        continue;
      }
      if (Seen == Name || std::strcmp(Seen, Name) == 0) {
        C.Count.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
  }

  Counter Families[Slots];
  Counter Collectives[Slots];
  Counter LibraryCalls[Slots];
  std::atomic<std::uint64_t> Ignored{0};
  std::atomic<std::uint64_t> Deferred{0};
};

} // namespace rt
} // namespace streamlife

#endif
