/*===- sampler_spin.c - a program whose CPU time is known, for the sampler --===//
 *
 * test/cli/cpu-sampler.test runs it under the CPU sampler (cpu_sampler.c):
 * MS_BEFORE milliseconds of CPU in spinBeforeWindow, then a timed window (as
 * the workloads print it) of MS_INSIDE milliseconds in spinInsideWindow; a
 * sampler and its reader that attribute the samples right name only the
 * second inside the window, with about MS_INSIDE milliseconds. With
 * MS_HELPER, a second thread spends that much in spinInHelper inside the
 * window, named "spin-helper" by the main thread after it starts (as the
 * validator names its replay thread), so the reader's table by thread must
 * give each thread its own time under its last name. With MS_BLOCKED, a third
 * thread, "spin-blocked", spends that much in spinBlocked with every signal
 * blocked, as the validator's replay thread runs: it takes no sample, and its
 * time must not be read as the others'. With MS_BURSTS, a fourth thread,
 * "spin-bursts", spends that much in spinInBursts, 0.2 ms at a time with a
 * 1 ms sleep between (as a training step's threads hand work to each other):
 * its time must be read where it ran, not where it slept.
 *
 *   sampler_spin MS_BEFORE MS_INSIDE [MS_HELPER [MS_BLOCKED [MS_BURSTS]]]
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long nowNs(clockid_t Clock) {
  struct timespec T;
  clock_gettime(Clock, &T);
  return (long long)T.tv_sec * 1000000000LL + T.tv_nsec;
}

/* Arithmetic between rare clock reads, so that the samples land here rather
 * than in the clock's system call. The thread's own CPU time: a helper thread
 * spins beside the main one. */
static inline __attribute__((always_inline)) double spinFor(long long Ms) {
  volatile double X = 1.0;
  long long End = nowNs(CLOCK_THREAD_CPUTIME_ID) + Ms * 1000000LL;
  while (nowNs(CLOCK_THREAD_CPUTIME_ID) < End)
    for (int I = 0; I < 2000000; ++I)
      X = X * 1.0000001 + 1e-9;
  return X;
}

__attribute__((noinline)) double spinBeforeWindow(long long Ms) { return spinFor(Ms); }
__attribute__((noinline)) double spinInsideWindow(long long Ms) { return spinFor(Ms); }
__attribute__((noinline)) double spinInHelper(long long Ms) { return spinFor(Ms); }
__attribute__((noinline)) double spinBlocked(long long Ms) { return spinFor(Ms); }

/* Spins in 200 µs bursts of its own CPU time, sleeping 1 ms after each. */
__attribute__((noinline)) double spinInBursts(long long Ms) {
  volatile double X = 1.0;
  long long Start = nowNs(CLOCK_THREAD_CPUTIME_ID);
  while (nowNs(CLOCK_THREAD_CPUTIME_ID) - Start < Ms * 1000000LL) {
    long long BurstEnd = nowNs(CLOCK_THREAD_CPUTIME_ID) + 200000;
    while (nowNs(CLOCK_THREAD_CPUTIME_ID) < BurstEnd)
      for (int I = 0; I < 20000; ++I)
        X = X * 1.0000001 + 1e-9;
    struct timespec Sleep = {0, 1000000};
    nanosleep(&Sleep, NULL);
  }
  return X;
}

/* A thread's work: which spin, for how long (each spin its own function, so
 * that the samples name the thread's work). */
struct Spinner {
  double (*Spin)(long long Ms);
  long long Ms;
};

static volatile double ThreadsSum;

static void *spinThread(void *Work) {
  const struct Spinner *W = Work;
  ThreadsSum = W->Spin(W->Ms);
  return NULL;
}

static int start(pthread_t *Thread, struct Spinner *Work, const char *Name, int BlockSignals) {
  sigset_t All, Before;
  sigfillset(&All);
  if (BlockSignals)
    pthread_sigmask(SIG_SETMASK, &All, &Before);
  int Rc = pthread_create(Thread, NULL, spinThread, Work);
  if (BlockSignals)
    pthread_sigmask(SIG_SETMASK, &Before, NULL);
  if (Rc != 0) {
    fprintf(stderr, "sampler_spin: cannot start the %s thread\n", Name);
    return 0;
  }
  pthread_setname_np(*Thread, Name);
  return 1;
}

int main(int Argc, char **Argv) {
  if (Argc < 3 || Argc > 6) {
    fprintf(stderr, "usage: sampler_spin MS_BEFORE MS_INSIDE [MS_HELPER [MS_BLOCKED [MS_BURSTS]]]\n");
    return 2;
  }
  double Sum = spinBeforeWindow(atoll(Argv[1]));
  long long Start = nowNs(CLOCK_MONOTONIC);
  /* The optional threads, in the order of their arguments. */
  struct Spinner Work[] = {{spinInHelper, 0}, {spinBlocked, 0}, {spinInBursts, 0}};
  const char *Names[] = {"spin-helper", "spin-blocked", "spin-bursts"};
  const int BlocksSignals[] = {0, 1, 0};
  pthread_t Threads[3];
  const int Started = Argc - 3;
  for (int I = 0; I < Started; ++I) {
    Work[I].Ms = atoll(Argv[3 + I]);
    if (!start(&Threads[I], &Work[I], Names[I], BlocksSignals[I]))
      return 1;
  }
  Sum += spinInsideWindow(atoll(Argv[2]));
  for (int I = 0; I < Started; ++I)
    pthread_join(Threads[I], NULL);
  printf("rank 0 timed window (monotonic ns): %lld %lld\n", Start, nowNs(CLOCK_MONOTONIC));
  return Sum > 0 ? 0 : 1;
}
