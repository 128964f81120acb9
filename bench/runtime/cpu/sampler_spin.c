/*===- sampler_spin.c - a program whose CPU time is known, for the sampler --===//
 *
 * test/cli/cpu-sampler.test runs it under the CPU sampler (cpu_sampler.c):
 * MS_BEFORE milliseconds of CPU in spinBeforeWindow, then a timed window (as
 * the workloads print it) of MS_INSIDE milliseconds in spinInsideWindow; a
 * sampler and its reader that attribute the samples right name only the
 * second inside the window, with about MS_INSIDE milliseconds.
 *
 *   sampler_spin MS_BEFORE MS_INSIDE
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long nowNs(clockid_t Clock) {
  struct timespec T;
  clock_gettime(Clock, &T);
  return (long long)T.tv_sec * 1000000000LL + T.tv_nsec;
}

/* Arithmetic between rare clock reads, so that the samples land here rather
 * than in the clock's system call. */
static inline __attribute__((always_inline)) double spinFor(long long Ms) {
  volatile double X = 1.0;
  long long End = nowNs(CLOCK_PROCESS_CPUTIME_ID) + Ms * 1000000LL;
  while (nowNs(CLOCK_PROCESS_CPUTIME_ID) < End)
    for (int I = 0; I < 2000000; ++I)
      X = X * 1.0000001 + 1e-9;
  return X;
}

__attribute__((noinline)) double spinBeforeWindow(long long Ms) { return spinFor(Ms); }
__attribute__((noinline)) double spinInsideWindow(long long Ms) { return spinFor(Ms); }

int main(int Argc, char **Argv) {
  if (Argc != 3) {
    fprintf(stderr, "usage: sampler_spin MS_BEFORE MS_INSIDE\n");
    return 2;
  }
  double Sum = spinBeforeWindow(atoll(Argv[1]));
  long long Start = nowNs(CLOCK_MONOTONIC);
  Sum += spinInsideWindow(atoll(Argv[2]));
  printf("rank 0 timed window (monotonic ns): %lld %lld\n", Start, nowNs(CLOCK_MONOTONIC));
  return Sum > 0 ? 0 : 1;
}
