//===- InterceptThreads.cpp - the host threads' synchronization -----------===//
//
// ThreadSanitizer's interceptors for the happens-before order between host
// threads (engine/HostClocks.h, engine/SyncClocks.h): the library defines the
// pthread and semaphore entry points, so the dynamic linker binds every
// program's and library's calls to them (LD_PRELOAD), calls the real ones
// (dlsym(RTLD_NEXT)) and reports
//   release  before pthread_mutex_unlock, pthread_rwlock_unlock, sem_post,
//            pthread_cond_wait (it unlocks the mutex), pthread_barrier_wait,
//            pthread_create (to the new thread), and when a thread ends (to
//            its joiner);
//   acquire  after a successful lock, trylock, timed lock, semaphore wait,
//            condition wait (it relocks the mutex), barrier wait, at the new
//            thread's start and after pthread_join.
// Only calls from the program's code count (CallerLibraries.h: the CUDA
// libraries' and the modelled allocators' locks, the Python interpreter's
// lock and the locks of the library functions PrivateLockFunctions.h lists
// order nothing), and only once the process used CUDA: before that no
// clock holds anything a later check could use.
//
// The events are queued with the allocators' block events and reach the
// engine at the next CUDA call, in the order they happened
// (allocators/AnnotatedAllocators.h): an interposer runs inside any lock of
// the program, where the validator must not call CUDA or wait for its own
// locks. A release is queued before the real unlock and an acquire after the
// real lock, so the queue's order respects the order the lock imposes. When a
// process synchronizes a lot and calls CUDA little, a release drains the
// queue itself, after the real unlock.
//
// Not intercepted: futex-based primitives (std::atomic::wait, std::latch,
// std::counting_semaphore, CPython 3.13's PyMutex fast path), spin locks and
// lock-free queues. An ordering made only through them is missed, which can
// only add findings, never hide one.
//
//===----------------------------------------------------------------------===//
#include "intercept/CallerLibraries.h"
#include "intercept/HostSyncQueue.h"
#include "intercept/InterceptContext.h"
#include "intercept/RealFunction.h"
#include "intercept/RedundantSyncFilter.h"

#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>

#include <atomic>

namespace streamlife {
namespace rt {

namespace {
/// True when the process used CUDA: before that, no clock holds anything a
/// later check could use.
bool usedCuda(ValidatorRuntime *R) { return R && processUsedCuda(); }
} // namespace

namespace {


/// The condition functions have two versions in glibc; the default is the
/// one programs link against (GLIBC_2.3.2 on x86-64).
#if defined(__x86_64__)
constexpr const char *CondVersion = "GLIBC_2.3.2";
#else
constexpr const char *CondVersion = nullptr;
#endif

/// Queued events beyond which a releasing thread drains the queue itself.
constexpr std::size_t DrainBeyond = 1 << 16;

constexpr SyncId ThreadEndTag = 0x8000000000000000ull;
SyncId threadEndId(pthread_t T) { return ThreadEndTag ^ static_cast<SyncId>(T); }

/// True when this call from Caller is certainly not program synchronization:
/// the validator's own code, or a caller already classified as one whose
/// synchronization orders nothing (the driver's and CUPTI's locks, the GIL).
/// Every lock the driver, CUPTI and the validator take passes here (about 12
/// of the driver's per launch-bound step on an H200), so it is inline and
/// reads one cache slot and a thread-local: no call, no frame, no lock. The
/// slot first: nearly every ignored lock is a library's (the driver's), whose
/// slot settles it, and the validator's own code is a private library too
/// once seen; its depth is read only for a caller the slot does not settle
/// (five instructions less per ignored lock than the depth first).
__attribute__((always_inline)) inline bool ignoredAtOnce(const void *Caller, SyncPrimitive What) {
  CallerKind Kind = cachedCallerKind(Caller);
  if (Kind != CallerKind::Unknown && !countsAsProgramSync(Kind, What))
    return true;
  return ValidatorCode::running();
}

/// Also where intercept_stats counts the events of a library function's
/// private lock (CallerLibraries.h keeps those callers out of the cache then).
__attribute__((noinline)) CallerKind classifyFirstSight(const void *Caller) {
  ValidatorCode Running; // dladdr's and the symbol table's locks are not the program's
  return classifyCaller(Caller);
}

/// The runtime when this call, from Caller, is program synchronization that
/// must be reported; null otherwise. An unseen caller is classified only once
/// the process used CUDA.
ValidatorRuntime *reporting(const void *Caller, SyncPrimitive What) {
  if (ignoredAtOnce(Caller, What))
    return nullptr;
  ValidatorRuntime *R = runtimeOnceCudaUsed();
  if (!R)
    return nullptr;
  CallerKind Kind = cachedCallerKind(Caller);
  if (Kind == CallerKind::Unknown)
    Kind = classifyFirstSight(Caller);
  return countsAsProgramSync(Kind, What) ? R : nullptr;
}

/// reporting() after ignoredAtOnce(Caller, What) said no: the validator's
/// depth is not asked again. The caller's kind is read again: handing it on
/// from the prefix saved 9 instructions per reported lock event and cost 4
/// per ignored one (the validator's and the driver's locks, several per CUDA
/// call), by reference or by value. Inline: every reported lock event asks
/// it, and a call's frame cost as much as the question.
__attribute__((always_inline)) inline ValidatorRuntime *reportingChecked(const void *Caller, SyncPrimitive What) {
  ValidatorRuntime *R = runtimeOnceCudaUsed();
  if (!R)
    return nullptr;
  CallerKind Kind = cachedCallerKind(Caller);
  if (__builtin_expect(Kind == CallerKind::Unknown, 0))
    Kind = classifyFirstSight(Caller);
  return countsAsProgramSync(Kind, What) ? R : nullptr;
}

/// Returns the events queued and not yet applied. Caller: the interposed
/// lock call's return address, or null for a thread's start and end. Inline
/// (the push and the filter's note are too): a kept lock event's call of it
/// cost a frame and the registers the interposer keeps across it. The
/// validator's depth guards the push: an allocator that locks a pthread mutex
/// while the queue grows must find that lock ignored, not queued under the
/// queue's own lock.
__attribute__((always_inline)) inline std::size_t queue(ValidatorRuntime &R, BlockEvent::Kind What, ThreadId T,
                                                        SyncId Sync, const void *Caller = nullptr) {
  ValidatorCode Running;
  return queueHostSync(R, What, T, Sync, Caller);
}

// Releases and acquires that would change no clock are not queued
// (RedundantSyncFilter.h): most of a framework's locking is one thread taking
// the same lock again with nothing learned in between. Inline, as the steps
// of the reported paths below: those are one frame each, the real call's
// (a frame per step cost a dropped event as much as the filter's question).
// Returns the events queued and not yet applied after it.
// Caller: the interposed call's return address, for intercept_stats' count
// of the kept events by caller (KeptLockCallers.h). Kind: Exclusive for a
// pthread mutex (also a condition wait's), whose releases only its owner
// makes (the filter's last-releaser rule); Shared for semaphores,
// reader-writer locks and barriers. CountingDropped: the observed path's copy
// (releasedObserved), which also counts a dropped event by its caller; the
// unobserved copy has no trace of the count.
template <bool CountingDropped = false>
__attribute__((always_inline)) inline std::size_t releasedUntimed(ValidatorRuntime &R, const void *Sync,
                                                                  redundant_sync::LockKind Kind,
                                                                  const void *Caller) {
  auto Id = reinterpret_cast<SyncId>(Sync);
  redundant_sync::ThreadFilter &Filter = redundant_sync::thisThread();
  if (Filter.releaseIsRedundant(Id)) {
    if constexpr (CountingDropped)
      droppedHostSync(R, Caller);
    return unappliedEvents(R);
  }
  std::size_t Unapplied = queue(R, BlockEvent::Kind::HostReleased, currentThread(), Id, Caller);
  Filter.releaseQueued(Id, Kind);
  return Unapplied;
}
template <bool CountingDropped = false>
__attribute__((always_inline)) inline void acquiredUntimed(ValidatorRuntime &R, const void *Sync,
                                                           redundant_sync::LockKind Kind, const void *Caller) {
  auto Id = reinterpret_cast<SyncId>(Sync);
  redundant_sync::ThreadFilter &Filter = redundant_sync::thisThread();
  redundant_sync::AcquireCheck Check = Filter.checkAcquire(Id, Kind);
  if (Check.redundant()) {
    if constexpr (CountingDropped)
      droppedHostSync(R, Caller);
    return;
  }
  queue(R, BlockEvent::Kind::HostAcquired, currentThread(), Id, Caller);
  Filter.acquireQueued(Id, Check);
}
// The observed path (lockEventsObserved: a self-profile or intercept_stats):
// timed into the self-profile's host synchronization row while a profile is
// active (the timer asks SelfProfile::active), a dropped event counted by
// its caller with intercept_stats.
__attribute__((noinline)) std::size_t releasedObserved(ValidatorRuntime &R, const void *Sync,
                                                       redundant_sync::LockKind Kind, const void *Caller) {
  ProfileTimer Timer(ProfileCallback::HostSync);
  return releasedUntimed<true>(R, Sync, Kind, Caller);
}
__attribute__((noinline)) void acquiredObserved(ValidatorRuntime &R, const void *Sync, redundant_sync::LockKind Kind,
                                                const void *Caller) {
  ProfileTimer Timer(ProfileCallback::HostSync);
  acquiredUntimed<true>(R, Sync, Kind, Caller);
}
// Observed only while a profile or intercept_stats is on. Off, no timer lives
// across the event's work (its state on the stack and its checks at the end
// cost every event a few instructions and a register), and nothing counts a
// dropped event: one load of the flag and a branch not taken.
__attribute__((always_inline)) inline std::size_t released(ValidatorRuntime &R, const void *Sync,
                                                           redundant_sync::LockKind Kind,
                                                           const void *Caller) {
  if (__builtin_expect(lockEventsObserved(), 0))
    return releasedObserved(R, Sync, Kind, Caller);
  return releasedUntimed(R, Sync, Kind, Caller);
}
__attribute__((always_inline)) inline void acquired(ValidatorRuntime &R, const void *Sync,
                                                    redundant_sync::LockKind Kind, const void *Caller) {
  if (__builtin_expect(lockEventsObserved(), 0))
    return acquiredObserved(R, Sync, Kind, Caller);
  acquiredUntimed(R, Sync, Kind, Caller);
}
/// The object's clock is forgotten (destroyed, or a thread token consumed).
void destroyed(ValidatorRuntime &R, SyncId Id) {
  ProfileTimer Timer(ProfileCallback::HostSync);
  queue(R, BlockEvent::Kind::SyncDestroyed, currentThread(), Id);
  redundant_sync::thisThread().destroyQueued(Id);
}
__attribute__((noinline, cold)) void drainLongQueue(ValidatorRuntime &R) {
  ProfileTimer Timer(ProfileCallback::HostSync);
  ValidatorCode Running;
  if (drainQueuedEventsOutsideCuda(R))
    R.LongQueueDrains.fetch_add(1, std::memory_order_relaxed);
}
/// After the real release: keeps a queue that CUDA calls do not drain
/// bounded (Unapplied: the events queued and not applied before it). The
/// check inline (every reported release asks it), the drain out of line.
__attribute__((always_inline)) inline void drainIfLong(ValidatorRuntime &R, std::size_t Unapplied) {
  if (__builtin_expect(Unapplied >= DrainBeyond, 0))
    drainLongQueue(R);
  else
    R.Replayer.nudge(Unapplied); // after the real release: never under the program's lock
}

/// A kept acquire's queueing, out of line: a dropped acquire (most of them)
/// then keeps only the interposer's arguments across the real call, not the
/// registers the queueing needs (3 saved registers instead of 6).
__attribute__((noinline)) void acquiredKept(ValidatorRuntime &R, const void *Sync, const void *Caller,
                                            redundant_sync::AcquireCheck Check) {
  auto Id = reinterpret_cast<SyncId>(Sync);
  queue(R, BlockEvent::Kind::HostAcquired, currentThread(), Id, Caller);
  redundant_sync::thisThread().acquireQueued(Id, Check);
}
/// Reports an acquire that the real call made (it returned 0): the filter's
/// question inline, the queueing of a kept acquire out of line.
__attribute__((always_inline)) inline void reportAcquired(const void *Caller, SyncPrimitive What,
                                                          const void *Sync, redundant_sync::LockKind Kind) {
  ValidatorRuntime *R = reportingChecked(Caller, What);
  if (!R)
    return;
  if (__builtin_expect(lockEventsObserved(), 0))
    return acquiredObserved(*R, Sync, Kind, Caller);
  redundant_sync::AcquireCheck Check = redundant_sync::thisThread().checkAcquire(reinterpret_cast<SyncId>(Sync), Kind);
  if (!Check.redundant())
    acquiredKept(*R, Sync, Caller, Check);
}
/// An acquiring interposer's whole body: the real call Real(A...), then the
/// acquire reported when it succeeded. Whether the call is ignored is decided
/// first (the answer cannot change during the real call: the validator's
/// depth is this thread's, and a cache slot, once written, keeps its kind),
/// so that an ignored call is a tail call of the real one: no frame.
/// The primitive and the lock kind are template arguments: constants in the
/// out-of-line reported path, which then keeps 3 registers across the real
/// call instead of 6.
template <SyncPrimitive What, redundant_sync::LockKind Kind, typename Fn, typename... Args>
__attribute__((noinline)) int acquiringReported(const void *Caller, const void *Sync, Fn Real, Args... A) {
  int Rc = Real(A...);
  if (Rc == 0)
    reportAcquired(Caller, What, Sync, Kind);
  return Rc;
}
template <SyncPrimitive What, redundant_sync::LockKind Kind, typename Fn, typename... Args>
__attribute__((always_inline)) inline int acquiring(const void *Caller, const void *Sync, Fn Real, Args... A) {
  if (ignoredAtOnce(Caller, What))
    return Real(A...);
  return acquiringReported<What, Kind>(Caller, Sync, Real, A...);
}

/// A releasing interposer's kept release (or an observed one, which the
/// filter may still drop: lockEventsObserved): the
/// release is queued before the real call (the next owner's acquire must
/// come after it in the queue), the queue kept short after it. Six
/// arguments at most for one-argument primitives, so that the reported path
/// reaches it by a tail call.
template <typename Fn, typename... Args>
__attribute__((noinline)) int releasingKept(ValidatorRuntime &R, const void *Caller, const void *Sync,
                                            redundant_sync::LockKind Kind, Fn Real, Args... A) {
  std::size_t Unapplied;
  if (__builtin_expect(lockEventsObserved(), 0)) {
    Unapplied = releasedObserved(R, Sync, Kind, Caller);
  } else {
    auto Id = reinterpret_cast<SyncId>(Sync);
    Unapplied = queue(R, BlockEvent::Kind::HostReleased, currentThread(), Id, Caller);
    redundant_sync::thisThread().releaseQueued(Id, Kind);
  }
  int Rc = Real(A...);
  drainIfLong(R, Unapplied);
  return Rc;
}
/// A dropped release when the queue has grown long: the real call, then the
/// drain.
template <typename Fn, typename... Args>
__attribute__((noinline, cold)) int releasingDroppedLongQueue(ValidatorRuntime &R, Fn Real, Args... A) {
  int Rc = Real(A...);
  drainLongQueue(R);
  return Rc;
}
/// A reported release: a release the filter drops (most of the program's: a
/// thread releasing a lock again with nothing learned since) ends in a tail
/// call of Real, a kept one (or an observed one) in a tail call of
/// releasingKept.
template <typename Fn, typename... Args>
__attribute__((always_inline)) inline int releasingCounted(ValidatorRuntime &R, const void *Caller, const void *Sync,
                                                           redundant_sync::LockKind Kind, Fn Real, Args... A) {
  if (__builtin_expect(!lockEventsObserved(), 1) &&
      redundant_sync::thisThread().releaseIsRedundant(reinterpret_cast<SyncId>(Sync))) {
    // The queue's length only at one in DroppedReleasesPerQueueCheck
    // (ThreadState.h says why).
    if (__builtin_expect(!detail::droppedReleaseChecksQueue(detail::ThisThreadState), 1) ||
        unappliedEvents(R) < DrainBeyond)
      return Real(A...);
    return releasingDroppedLongQueue(R, Real, A...);
  }
  return releasingKept(R, Caller, Sync, Kind, Real, A...);
}
/// The reported path of a caller not classified yet (its first call, or one
/// whose cache slot another address holds).
template <typename Fn, typename... Args>
__attribute__((noinline)) int releasingFirstSight(const void *Caller, SyncPrimitive What, const void *Sync,
                                                  redundant_sync::LockKind Kind, Fn Real, Args... A) {
  ValidatorRuntime *R = runtimeOnceCudaUsed();
  if (!R || !countsAsProgramSync(classifyFirstSight(Caller), What))
    return Real(A...);
  return releasingCounted(*R, Caller, Sync, Kind, Real, A...);
}
/// A releasing interposer's reported path: every exit a tail call (of Real,
/// releasingKept or releasingFirstSight), so that it needs no frame of its
/// own (the classification's call, which needed one, is out of line).
template <typename Fn, typename... Args>
__attribute__((noinline)) int releasingReported(const void *Caller, SyncPrimitive What, const void *Sync,
                                                redundant_sync::LockKind Kind,
                                                Fn Real, Args... A) {
  ValidatorRuntime *R = runtimeOnceCudaUsed();
  if (!R)
    return Real(A...);
  CallerKind Classified = cachedCallerKind(Caller);
  if (__builtin_expect(Classified == CallerKind::Unknown, 0))
    return releasingFirstSight(Caller, What, Sync, Kind, Real, A...);
  if (!countsAsProgramSync(Classified, What))
    return Real(A...);
  return releasingCounted(*R, Caller, Sync, Kind, Real, A...);
}
/// A releasing interposer's whole body (an ignored call: a tail call of Real).
template <typename Fn, typename... Args>
__attribute__((always_inline)) inline int releasing(const void *Caller, SyncPrimitive What, const void *Sync,
                                                    redundant_sync::LockKind Kind,
                                                    Fn Real, Args... A) {
  if (ignoredAtOnce(Caller, What))
    return Real(A...);
  return releasingReported(Caller, What, Sync, Kind, Real, A...);
}

/// A wait that unlocks Mutex and relocks it before returning (condition
/// variables, barriers on their own object).
template <typename Call> int waitedOn(const void *Caller, SyncPrimitive What, const void *Sync,
                                      redundant_sync::LockKind Kind,
                                      Call &&Real) {
  ValidatorRuntime *R = reporting(Caller, What);
  if (R)
    released(*R, Sync, Kind, Caller);
  int Rc = Real();
  if (R)
    acquired(*R, Sync, Kind, Caller);
  return Rc;
}

// --- thread start and end -------------------------------------------------------

struct ThreadStart {
  void *(*Routine)(void *);
  void *Arg;
};

/// Lives in the started thread's TLS: its destructor runs when the thread
/// ends (return or pthread_exit) and releases to the joiner.
struct ThreadEnd {
  bool Armed = false;
  ~ThreadEnd() {
    if (!Armed)
      return;
    if (ValidatorRuntime *R = runtime(); usedCuda(R)) {
      queue(*R, BlockEvent::Kind::HostReleased, currentThread(), threadEndId(pthread_self()));
      queue(*R, BlockEvent::Kind::HostFinished, currentThread(), 0);
    }
  }
};
thread_local ThreadEnd EndOfThisThread;

void *startThread(void *Raw) {
  ThreadStart Start = *static_cast<ThreadStart *>(Raw);
  if (ValidatorRuntime *R = runtime(); usedCuda(R)) {
    queue(*R, BlockEvent::Kind::HostAcquired, currentThread(), reinterpret_cast<SyncId>(Raw));
    destroyed(*R, reinterpret_cast<SyncId>(Raw));
  }
  delete static_cast<ThreadStart *>(Raw);
  EndOfThisThread.Armed = true;
  return Start.Routine(Start.Arg);
}

} // namespace
} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;
using streamlife::rt::redundant_sync::LockKind;

#define STREAMLIFE_INTERPOSE extern "C" __attribute__((visibility("default")))
#define CALLER __builtin_return_address(0)

// --- mutexes --------------------------------------------------------------------

STREAMLIFE_INTERPOSE int pthread_mutex_lock(pthread_mutex_t *M) {
  static constexpr RealSymbol Symbol{"pthread_mutex_lock"};
  auto Real = RealFunction<int (*)(pthread_mutex_t *), Symbol>::get();
  return acquiring<SyncPrimitive::Mutex, LockKind::Exclusive>(CALLER, M, Real, M);
}

STREAMLIFE_INTERPOSE int pthread_mutex_trylock(pthread_mutex_t *M) {
  static constexpr RealSymbol Symbol{"pthread_mutex_trylock"};
  auto Real = RealFunction<int (*)(pthread_mutex_t *), Symbol>::get();
  return acquiring<SyncPrimitive::Mutex, LockKind::Exclusive>(CALLER, M, Real, M);
}

STREAMLIFE_INTERPOSE int pthread_mutex_timedlock(pthread_mutex_t *M, const struct timespec *At) {
  static constexpr RealSymbol Symbol{"pthread_mutex_timedlock"};
  auto Real = RealFunction<int (*)(pthread_mutex_t *, const struct timespec *), Symbol>::get();
  return acquiring<SyncPrimitive::Mutex, LockKind::Exclusive>(CALLER, M, Real, M, At);
}

STREAMLIFE_INTERPOSE int pthread_mutex_unlock(pthread_mutex_t *M) {
  static constexpr RealSymbol Symbol{"pthread_mutex_unlock"};
  auto Real = RealFunction<int (*)(pthread_mutex_t *), Symbol>::get();
  return releasing(CALLER, SyncPrimitive::Mutex, M, LockKind::Exclusive, Real, M);
}

STREAMLIFE_INTERPOSE int pthread_mutex_destroy(pthread_mutex_t *M) {
  static constexpr RealSymbol Symbol{"pthread_mutex_destroy"};
  auto Real = RealFunction<int (*)(pthread_mutex_t *), Symbol>::get();
  if (ValidatorRuntime *R = reporting(CALLER, SyncPrimitive::Mutex))
    destroyed(*R, reinterpret_cast<SyncId>(M));
  return Real(M);
}

// --- reader-writer locks (readers are ordered with each other too: simpler, and
// only ever an ordering too many) ---------------------------------------------------

#define STREAMLIFE_RWLOCK_ACQUIRE(Name)                                   \
  STREAMLIFE_INTERPOSE int Name(pthread_rwlock_t *L) {                    \
    static constexpr RealSymbol Symbol{#Name};                            \
    auto Real = RealFunction<int (*)(pthread_rwlock_t *), Symbol>::get(); \
    return acquiring<SyncPrimitive::Mutex, LockKind::Shared>(CALLER, L, Real, L); \
  }
STREAMLIFE_RWLOCK_ACQUIRE(pthread_rwlock_rdlock)
STREAMLIFE_RWLOCK_ACQUIRE(pthread_rwlock_wrlock)
STREAMLIFE_RWLOCK_ACQUIRE(pthread_rwlock_tryrdlock)
STREAMLIFE_RWLOCK_ACQUIRE(pthread_rwlock_trywrlock)
#undef STREAMLIFE_RWLOCK_ACQUIRE

STREAMLIFE_INTERPOSE int pthread_rwlock_unlock(pthread_rwlock_t *L) {
  static constexpr RealSymbol Symbol{"pthread_rwlock_unlock"};
  auto Real = RealFunction<int (*)(pthread_rwlock_t *), Symbol>::get();
  return releasing(CALLER, SyncPrimitive::Mutex, L, LockKind::Shared, Real, L);
}

// --- condition variables: the wait unlocks and relocks the mutex ---------------------

STREAMLIFE_INTERPOSE int pthread_cond_wait(pthread_cond_t *C, pthread_mutex_t *M) {
  static constexpr RealSymbol Symbol{"pthread_cond_wait", CondVersion};
  auto Real = RealFunction<int (*)(pthread_cond_t *, pthread_mutex_t *), Symbol>::get();
  return waitedOn(CALLER, SyncPrimitive::Condition, M, LockKind::Exclusive, [&] { return Real(C, M); });
}

STREAMLIFE_INTERPOSE int pthread_cond_timedwait(pthread_cond_t *C, pthread_mutex_t *M,
                                                const struct timespec *At) {
  static constexpr RealSymbol Symbol{"pthread_cond_timedwait", CondVersion};
  using Fn = int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
  auto Real = RealFunction<Fn, Symbol>::get();
  // Relocked also on a timeout.
  return waitedOn(CALLER, SyncPrimitive::Condition, M, LockKind::Exclusive, [&] { return Real(C, M, At); });
}

STREAMLIFE_INTERPOSE int pthread_cond_clockwait(pthread_cond_t *C, pthread_mutex_t *M,
                                                clockid_t Clock, const struct timespec *At) {
  static constexpr RealSymbol Symbol{"pthread_cond_clockwait"};
  using Fn = int (*)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
  auto Real = RealFunction<Fn, Symbol>::get();
  return waitedOn(CALLER, SyncPrimitive::Condition, M, LockKind::Exclusive,
                  [&] { return Real(C, M, Clock, At); });
}

// --- semaphores (CPython's threading locks on Linux) ----------------------------------

STREAMLIFE_INTERPOSE int sem_post(sem_t *S) {
  static constexpr RealSymbol Symbol{"sem_post"};
  auto Real = RealFunction<int (*)(sem_t *), Symbol>::get();
  return releasing(CALLER, SyncPrimitive::Semaphore, S, LockKind::Shared, Real, S);
}

STREAMLIFE_INTERPOSE int sem_wait(sem_t *S) {
  static constexpr RealSymbol Symbol{"sem_wait"};
  auto Real = RealFunction<int (*)(sem_t *), Symbol>::get();
  return acquiring<SyncPrimitive::Semaphore, LockKind::Shared>(CALLER, S, Real, S);
}

STREAMLIFE_INTERPOSE int sem_trywait(sem_t *S) {
  static constexpr RealSymbol Symbol{"sem_trywait"};
  auto Real = RealFunction<int (*)(sem_t *), Symbol>::get();
  return acquiring<SyncPrimitive::Semaphore, LockKind::Shared>(CALLER, S, Real, S);
}

STREAMLIFE_INTERPOSE int sem_timedwait(sem_t *S, const struct timespec *At) {
  static constexpr RealSymbol Symbol{"sem_timedwait"};
  auto Real = RealFunction<int (*)(sem_t *, const struct timespec *), Symbol>::get();
  return acquiring<SyncPrimitive::Semaphore, LockKind::Shared>(CALLER, S, Real, S, At);
}

STREAMLIFE_INTERPOSE int sem_clockwait(sem_t *S, clockid_t Clock, const struct timespec *At) {
  static constexpr RealSymbol Symbol{"sem_clockwait"};
  auto Real = RealFunction<int (*)(sem_t *, clockid_t, const struct timespec *), Symbol>::get();
  return acquiring<SyncPrimitive::Semaphore, LockKind::Shared>(CALLER, S, Real, S, Clock, At);
}

STREAMLIFE_INTERPOSE int sem_destroy(sem_t *S) {
  static constexpr RealSymbol Symbol{"sem_destroy"};
  auto Real = RealFunction<int (*)(sem_t *), Symbol>::get();
  if (ValidatorRuntime *R = reporting(CALLER, SyncPrimitive::Semaphore))
    destroyed(*R, reinterpret_cast<SyncId>(S));
  return Real(S);
}

// --- barriers ---------------------------------------------------------------------------

STREAMLIFE_INTERPOSE int pthread_barrier_wait(pthread_barrier_t *B) {
  static constexpr RealSymbol Symbol{"pthread_barrier_wait"};
  auto Real = RealFunction<int (*)(pthread_barrier_t *), Symbol>::get();
  return waitedOn(CALLER, SyncPrimitive::Mutex, B, LockKind::Shared, [&] { return Real(B); });
}

// --- threads ------------------------------------------------------------------------------

STREAMLIFE_INTERPOSE int pthread_create(pthread_t *Thread, const pthread_attr_t *Attr,
                                        void *(*Routine)(void *), void *Arg) {
  static constexpr RealSymbol Symbol{"pthread_create"};
  using Fn = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  auto Real = RealFunction<Fn, Symbol>::get();
  // Wrapped whether or not the process used CUDA yet: the thread may outlive
  // that moment, and its end must still reach its joiner.
  if (ValidatorCode::running() || !runtime() || !countsAsProgramSync(classifyFirstSight(CALLER), SyncPrimitive::Thread))
    return Real(Thread, Attr, Routine, Arg);
  auto *Start = new ThreadStart{Routine, Arg};
  if (ValidatorRuntime *R = runtime(); usedCuda(R))
    queue(*R, BlockEvent::Kind::HostReleased, currentThread(), reinterpret_cast<SyncId>(Start));
  int Rc = Real(Thread, Attr, startThread, Start);
  if (Rc != 0)
    delete Start;
  return Rc;
}

STREAMLIFE_INTERPOSE int pthread_join(pthread_t Thread, void **Result) {
  static constexpr RealSymbol Symbol{"pthread_join"};
  auto Real = RealFunction<int (*)(pthread_t, void **), Symbol>::get();
  int Rc = Real(Thread, Result);
  if (Rc == 0)
    if (ValidatorRuntime *R = reporting(CALLER, SyncPrimitive::Thread)) {
      queue(*R, BlockEvent::Kind::HostAcquired, currentThread(), threadEndId(Thread));
      destroyed(*R, threadEndId(Thread));
    }
  return Rc;
}
