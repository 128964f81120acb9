// launch_path_probe: the pieces of the validator's launch cost, measured one
// at a time without the validator. Preloaded into bench/runtime's
// launch_bound (launch_path_probe.sh), it adds one mechanism the validator
// uses and nothing else:
//   PROBE_CUPTI=1    a CUPTI subscriber that enables the driver callbacks of
//                    the validator's call table (CuptiCalls.inc) and returns
//                    at once: CUPTI's own dispatch cost, the launch, record
//                    and wait included (the mechanism before the entry points)
//   PROBE_CUPTI=2    the same without the calls the validator intercepts at
//                    the driver's entry points: what a CUPTI subscription costs
//                    a step whose calls it does not carry
//   built with -DPROBE_MUTEXES: pthread mutex interposers that only count
//                    and forward: how many locks a launch step takes, and what
//                    interposing them costs before any classification
// At exit it prints one line: probe: cupti_callbacks=N mutex_locks=N
// mutex_unlocks=N (counts over the whole run; the script divides by steps).
// launch_path_probe.sh builds it twice, with and without -DPROBE_MUTEXES.
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<unsigned long long> Callbacks{0};
std::atomic<unsigned long long> Locks{0};
std::atomic<unsigned long long> Unlocks{0};

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {
  Callbacks.fetch_add(1, std::memory_order_relaxed);
}

/// The calls the validator intercepts at the driver's entry points (CUPTI
/// carries them only with driver_entry_points=0).
const CUpti_CallbackId EntryPointCbids[] = {
#define STREAMLIFE_CUPTI_CALL(Name, Family, Null, Site)
#define STREAMLIFE_ENTRY_POINT_CALL(Name, Family, Null, Site) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_COPY(Name, Null, ...)
#define STREAMLIFE_CUPTI_SET(Name, Null, ...)
#define STREAMLIFE_CUPTI_SET2D(Name, Null, ...)
#define STREAMLIFE_CUPTI_COPY2D(Name, Null, ...)
#define STREAMLIFE_CUPTI_COPY3D(Name, Null, ...)
#define STREAMLIFE_CUPTI_COPY_BATCH(Name, Null)
#define STREAMLIFE_CUPTI_COPY_NOT_ANALYSED(Name, Null, Kind)
#include "intercept/CuptiCalls.inc"
};

const CUpti_CallbackId ValidatorCbids[] = {
#define STREAMLIFE_CUPTI_CALL(Name, Family, Null, Site) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_ENTRY_POINT_CALL(Name, Family, Null, Site) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_COPY(Name, Null, ...) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_SET(Name, Null, ...) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_SET2D(Name, Null, ...) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_COPY2D(Name, Null, ...) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_COPY3D(Name, Null, ...) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_COPY_BATCH(Name, Null) CUPTI_DRIVER_TRACE_CBID_##Name,
#define STREAMLIFE_CUPTI_COPY_NOT_ANALYSED(Name, Null, Kind) CUPTI_DRIVER_TRACE_CBID_##Name,
#include "intercept/CuptiCalls.inc"
};

void printCounts() {
  std::fprintf(stderr, "probe: cupti_callbacks=%llu mutex_locks=%llu mutex_unlocks=%llu\n",
               Callbacks.load(), Locks.load(), Unlocks.load());
}

__attribute__((constructor)) void start() {
  const char *Cupti = std::getenv("PROBE_CUPTI");
  if (Cupti && (*Cupti == '1' || *Cupti == '2')) {
    const bool EntryPointsToo = *Cupti == '1';
    CUpti_SubscriberHandle Subscriber;
    if (cuptiSubscribe(&Subscriber, onCallback, nullptr) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "probe: cuptiSubscribe failed\n");
      std::exit(2);
    }
    for (CUpti_CallbackId Cbid : ValidatorCbids) {
      bool AtEntryPoint = false;
      for (CUpti_CallbackId E : EntryPointCbids)
        AtEntryPoint |= E == Cbid;
      if (EntryPointsToo || !AtEntryPoint)
        cuptiEnableCallback(1, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Cbid);
    }
  }
  std::atexit(printCounts);
}

} // namespace

#ifdef PROBE_MUTEXES
namespace {
template <typename Fn> Fn next(const char *Name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, Name));
}

} // namespace

extern "C" __attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t *M) {
  // No function-local static: its guard could lock a mutex while we resolve.
  static int (*Real)(pthread_mutex_t *) = nullptr;
  if (!Real)
    Real = next<int (*)(pthread_mutex_t *)>("pthread_mutex_lock");
  Locks.fetch_add(1, std::memory_order_relaxed);
  return Real(M);
}

extern "C" __attribute__((visibility("default"))) int pthread_mutex_unlock(pthread_mutex_t *M) {
  // No function-local static: its guard could lock a mutex while we resolve.
  static int (*Real)(pthread_mutex_t *) = nullptr;
  if (!Real)
    Real = next<int (*)(pthread_mutex_t *)>("pthread_mutex_unlock");
  Unlocks.fetch_add(1, std::memory_order_relaxed);
  return Real(M);
}
#endif
