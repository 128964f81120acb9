//===- ReplayThread.cpp - the validator's own thread that replays the queue ---===//

#include "intercept/ReplayThread.h"

#include "intercept/DriverCallTable.h"
#include "intercept/InterceptContext.h"
#include "intercept/Runtime.h"

#include <linux/futex.h>
#include <sys/prctl.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace streamlife {
namespace rt {

namespace {
// While the queue grows the thread lets it, napping between looks: it
// replays once WakeAt events wait, or once a look finds no event queued
// since the last one (the burst is over). Taking each event as it came moved
// every event's lines, the queue's lock and its count between two cores: a
// launch-bound loop (a launch, a record and a wait every few µs) paid 0.5 µs
// a step more with the thread than without it on the H200. Looking again
// after a pause instead of a nap still replayed about one event at a time
// there: a pause loop is shorter than the gap between two CUDA calls, so
// every look found the burst "over" (bench/runtime/README.md, "the replay
// thread's batches"). Once the queue is empty the thread looks again a few
// times, close together (the rest of a burst: a step's launches and lock
// handovers come microseconds apart), then naps between looks (the gaps of
// a step), then sleeps on the futex until a queueing thread wakes it.
// Napping instead of spinning keeps the queue's head line with the queueing
// threads: a look reads it, and the next push then misses on it. Waking
// instead of napping costs the waker a system call. A nap is as long as the
// kernel makes it: NapNs asks for 20 µs, a guest's timer may give 50-60.
// The nap between looks at a growing queue is replay_thread_nap_ns (50 µs):
// on the H200 the naps cost a launch loop less than pauses did, and FSDP2
// measured both above and below the pauses in different device calls
// (bench/runtime/README.md, session 16), so the two can be set side by side.
// Naps of 50 µs rather than 5: each look reads the queue's head line, which
// the next push must then take back, and each nap is a system call (a timer
// exit in a guest); ten times fewer of both put the launch loop at +0.34 µs
// (90% interval +0.21 to +0.47) against +0.44 (+0.33 to +0.54) for 5 µs, in
// 100 interleaved rounds on the H200 (session 19). A thread that needs the
// engine meanwhile replays what the naps left queued: a few events, as FSDP2
// makes about 5 such calls a step (event queries, synchronizations).
constexpr unsigned QuickLooks = 8;
constexpr unsigned PausesBetweenQuickLooks = 32; // 0.1-4 µs: a pause takes 10-140 cycles, by CPU
constexpr unsigned Naps = 2500;                  // about 50-100 ms of looks, then sleep
constexpr long NapNs = 20000;

void nap(long Ns = NapNs) {
  timespec Nap{0, Ns};
  nanosleep(&Nap, nullptr);
}

void pauseBetweenLooks() {
  for (unsigned I = 0; I < PausesBetweenQuickLooks; ++I) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}
} // namespace

bool ReplayThread::start(std::size_t Wake, long GrowingNapNs) {
  // Two threads' first CUDA calls may both ask: one starts it.
  if (Claimed.exchange(true, std::memory_order_acq_rel))
    return true;
  WakeAt = Wake < 1 ? 1 : Wake;
  GrowingNap = GrowingNapNs < 0 ? 0 : GrowingNapNs;
  // The thread is the validator's: it takes none of the program's signals
  // (a process-wide timer's, a Ctrl-C meant for the interpreter's main
  // thread), and it is created with the validator's code marked, so that the
  // thread interposers pass its creation through.
  sigset_t All, Before;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Before);
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  pthread_attr_setdetachstate(&Attr, PTHREAD_CREATE_DETACHED);
  pthread_t Thread;
  int Rc;
  {
    ValidatorCode Running;
    Rc = pthread_create(&Thread, &Attr, threadMain, this);
  }
  pthread_attr_destroy(&Attr);
  pthread_sigmask(SIG_SETMASK, &Before, nullptr);
  if (Rc != 0) {
    WakeAt = ~std::size_t(0);
    return false;
  }
  pthread_setname_np(Thread, "streamlife-rpl");
  Started.store(true, std::memory_order_release);
  return true;
}

void ReplayThread::stop() {
  Stopping.store(true, std::memory_order_release);
  if (Asleep.exchange(0, std::memory_order_acq_rel))
    syscall(SYS_futex, reinterpret_cast<int *>(&Asleep), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void ReplayThread::wake() {
  // The replay resolves a default stream in the context its waker runs in
  // (see the header); asked before the flag is cleared, so that the thread
  // reads it once awake. Not from inside our own driver calls.
  if (R.Driver.CtxGetCurrent && !DriverCallGuard::inside()) {
    DriverCallGuard Guard;
    CUcontext Ctx = nullptr;
    if (R.Driver.CtxGetCurrent(&Ctx) == CUDA_SUCCESS && Ctx)
      WakerContext.store(Ctx, std::memory_order_relaxed);
  }
  // Another nudge may have woken it since the caller looked.
  if (!Asleep.exchange(0, std::memory_order_acq_rel))
    return;
  Wakes.fetch_add(1, std::memory_order_relaxed);
  syscall(SYS_futex, reinterpret_cast<int *>(&Asleep), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void *ReplayThread::threadMain(void *Self) {
  static_cast<ReplayThread *>(Self)->loop();
  return nullptr;
}

void ReplayThread::loop() {
  ValidatorCode Running; // its locks are the validator's
  DriverCallGuard Guard; // its driver calls (stream resolution) are not the program's
  // Naps of NapNs, not the default 50 µs of slack on top.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  // Asleep first: the first nudge gives the thread its waker's context.
  unsigned Idle = QuickLooks + Naps;
  std::size_t SeenLastLook = 0;
  while (!Stopping.load(std::memory_order_acquire)) {
    std::size_t Pending = R.Annotated.unapplied();
    ReplayLook Next = afterLook(Pending, SeenLastLook, WakeAt);
    if (Next == ReplayLook::LookSoon) {
      SeenLastLook = Pending;
      Idle = 0;
      if (GrowingNap)
        nap(GrowingNap);
      else
        pauseBetweenLooks();
    } else if (Next == ReplayLook::Replay) {
      replayQueued();
      SeenLastLook = 0;
      Idle = 0;
    } else if (++Idle <= QuickLooks) {
      pauseBetweenLooks();
    } else if (Idle <= QuickLooks + Naps) {
      nap();
    } else {
      sleepUntilNudged();
      Idle = 0;
    }
  }
}

void ReplayThread::sleepUntilNudged() {
  // Asleep before the queue is looked at (a full barrier between), so that a
  // push after the look finds it set and wakes the thread.
  Asleep.store(1, std::memory_order_seq_cst);
  if (R.Annotated.unapplied() < WakeAt && !Stopping.load(std::memory_order_acquire))
    syscall(SYS_futex, reinterpret_cast<int *>(&Asleep), FUTEX_WAIT_PRIVATE, 1, nullptr, nullptr, 0);
  Asleep.store(0, std::memory_order_relaxed);
}

void ReplayThread::replayQueued() {
  CUcontext Ctx = WakerContext.load(std::memory_order_relaxed);
  if (Ctx != Current && R.Driver.CtxSetCurrent && R.Driver.CtxSetCurrent(Ctx) == CUDA_SUCCESS)
    Current = Ctx;
  ProfileTimer Timer(R.Profile, ProfileCallback::ReplayThread);
  const std::size_t Applied = R.Annotated.drain([this](ThreadId Owner, Handle H) {
    return R.Streams.resolve(Owner, reinterpret_cast<CUstream>(H), false, Current);
  });
  // Only this thread writes them: stores, no locked adds.
  Replays.store(Replays.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  EventsReplayed.store(EventsReplayed.load(std::memory_order_relaxed) + Applied, std::memory_order_relaxed);
}

} // namespace rt
} // namespace streamlife
