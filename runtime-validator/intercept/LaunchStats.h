//===- LaunchStats.h - how launches were decoded, for api_stats -*- C++ -*-===//
//
// Counters that show a silent run was an observed one: how many launches each
// kernel family's plan decoded, how many fell to the generic rule, and how many
// generic-scan words were ignored for pointing into released memory. Printed
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
  void decoded(const char *Family) {
    for (Counter &C : Families) {
      const char *Name = C.Family.load(std::memory_order_acquire);
      if (!Name) {
        const char *Expected = nullptr;
        if (C.Family.compare_exchange_strong(Expected, Family) || std::strcmp(Expected, Family) == 0) {
          C.Count.fetch_add(1, std::memory_order_relaxed);
          return;
        }
        continue;
      }
      if (Name == Family || std::strcmp(Name, Family) == 0) {
        C.Count.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
  }
  void ignoredGenericWords(std::size_t N) {
    if (N)
      Ignored.fetch_add(N, std::memory_order_relaxed);
  }
  void collective(const char *Name) { decoded(Name); }

  void print(std::FILE *Out) const {
    std::fprintf(Out, "streamlife: intercept-stats: launches by parameter plan:");
    for (const Counter &C : Families)
      if (const char *Name = C.Family.load())
        std::fprintf(Out, " %s %llu;", Name, static_cast<unsigned long long>(C.Count.load()));
    std::fprintf(Out, " generic-scan words ignored (released memory) %llu\n",
                 static_cast<unsigned long long>(Ignored.load()));
  }

private:
  struct Counter {
    std::atomic<const char *> Family{nullptr};
    std::atomic<std::uint64_t> Count{0};
  };
  Counter Families[16];
  std::atomic<std::uint64_t> Ignored{0};
};

} // namespace rt
} // namespace streamlife

#endif
