/*===- cpu_sampler.c - where a process's CPU time goes, without perf ------===//
 *
 * The GPU machines have no perf, gdb or strace, and the validator's
 * self-profile times only what the validator knows it does: its callbacks and
 * phases. What it cannot see (the interposed locks it ignores, CUPTI's and the
 * driver's dispatch around its callbacks, the program's own code running
 * slower because the validator's state took its caches) is the difference
 * between a plain run and a validated one, library by library. This library,
 * preloaded into both, samples the interrupted instruction of each thread
 * every STREAMLIFE_SAMPLER_US microseconds (default 500) of that thread's CPU
 * time, as gperftools' CPU profiler does with CPUPROFILE_PER_THREAD_TIMERS;
 * bench/runtime/cpu_samples.py attributes the samples to threads, libraries
 * and symbols and compares runs.
 *
 *   LD_PRELOAD=build/bench/runtime/libstreamlife_cpu_sampler.so \
 *   STREAMLIFE_SAMPLER_OUT=/tmp/run1 [STREAMLIFE_SAMPLER_ONLY=python3] CMD
 *
 * writes /tmp/run1.<pid> at the process's exit: its executable mappings (as
 * /proc/self/maps gives them), one line per sampled thread (its id and the
 * name it had at its last sample) and one line per sample (monotonic time in
 * ns, thread id, instruction address in hex, intervals it stands for, the
 * thread's CPU time in ns). STREAMLIFE_SAMPLER_ONLY samples only the
 * processes whose program name (argv[0]'s last component) is that word; the
 * others run untouched.
 *
 * Why POSIX CPU-time timers (timer_create) and not setitimer(ITIMER_PROF): an
 * itimer survives execve, so a process that execs another program (taskset,
 * env, a shell) would deliver SIGPROF to the new image before anything
 * handles it, and kill it; timer_create's timers are deleted at execve, and a
 * forked child has none (a child is armed again by the pthread_atfork
 * handler, with its own samples).
 *
 * Why one timer per thread (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID; the
 * main thread's at start-up, every other's by the pthread_create interposer
 * below, before its start routine): a process timer's expiry is noticed at
 * the tick of whichever thread runs, and its signal goes to one thread that
 * does not block it, sleeping or not. A thread that blocks every signal (the
 * validator's replay thread does) had its ticks' samples taken by the
 * program's threads, wherever they were, often asleep in libc; a thread that
 * runs in short bursts between sleeps (a training step's threads handing
 * work to each other) was sampled at its sleeps. A thread's own timer is
 * checked at a tick that finds that thread running, and its signal goes to
 * that thread alone. A thread that blocks SIGPROF takes no sample: its time
 * shows only in its last record (below).
 *
 * Why each sample carries its thread's CPU clock: cpu_samples.py gives each
 * sample its thread's CPU time since that thread's previous sample, so that a
 * thread's total is exact. A thread's last record (at its exit, or at the
 * process's for the thread that ends it) has address 0: its time since its
 * last sample, where it went unknown. A thread still running when the
 * process ends loses the time after its last sample. Where a thread's time
 * went is as good as its samples are many: a thread that runs in bursts
 * shorter than a tick between sleeps takes few, and one sample then stands
 * for several bursts.
 *
 * Why thread names: a validated run's work is not all on the program's
 * threads (the validator's replay thread, "streamlife-rpl", works beside
 * them), so what a step waits for is the CPU time of the program's threads,
 * not the process's; the name is read at every sample because a thread is
 * often named after it starts (pthread_setname_np from its creator).
 *
 * The signal handler only stores into memory mapped at start-up; nothing it
 * calls takes a lock (clock_gettime is the vDSO's or a system call, gettid
 * and prctl system calls).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

struct Sample {
  uint64_t TimeNs;
  uint64_t Address;
  /* The sampled thread's own CPU time (CLOCK_THREAD_CPUTIME_ID): what the
   * sample stands for is this thread's time since its previous sample. */
  uint64_t ThreadCpuNs;
  uint32_t Thread;
  /* Intervals this sample stands for: the kernel checks CPU-time timers at its
   * scheduler tick (every 1-4 ms), so at a shorter interval one signal comes
   * per tick and timer_getoverrun() says how many intervals it covered. */
  uint32_t Weight;
};

/* 2^20 samples: 35 minutes of one busy core at the default interval; the
 * pages are only touched as samples arrive. */
enum { Capacity = 1 << 20 };

/* The sampled threads' names, by thread id: open addressing, claimed by a
 * compare-and-swap from the handler (two threads' samples may arrive at once).
 * Names are prctl(PR_GET_NAME)'s 16 bytes. */
enum { ThreadSlots = 4096 };
struct ThreadName {
  atomic_uint Id;
  char Name[16];
};

static struct Sample *Samples;
static struct ThreadName *Threads;
static atomic_uint_fast64_t Taken;
static atomic_uint_fast64_t Lost;
/* The calling thread's timer; OwnArmed once it has one. */
static __thread __attribute__((tls_model("initial-exec"))) timer_t OwnTimer;
static __thread __attribute__((tls_model("initial-exec"))) int OwnArmed;
/* Deletes a thread's timer when the thread exits (a key's destructor runs in
 * the exiting thread). */
static pthread_key_t TimerKey;
/* Sampling: set once the buffers and the handler are in place; cleared at
 * exit, after which a late signal records nothing. */
static atomic_int Sampling;
static int Armed;
static long IntervalUs = 500;
static char OutPrefix[4096];

static uint64_t monotonicNs(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (uint64_t)T.tv_sec * 1000000000u + (uint64_t)T.tv_nsec;
}

/* The slot of thread Id, claimed if new; NULL when the table is full. */
static struct ThreadName *threadSlot(unsigned Id) {
  for (unsigned Probe = 0; Probe < ThreadSlots; ++Probe) {
    struct ThreadName *Slot = &Threads[(Id * 2654435761u + Probe) % ThreadSlots];
    unsigned Seen = atomic_load_explicit(&Slot->Id, memory_order_acquire);
    if (Seen == Id)
      return Slot;
    if (Seen == 0 &&
        (atomic_compare_exchange_strong_explicit(&Slot->Id, &Seen, Id, memory_order_acq_rel, memory_order_acquire) ||
         Seen == Id))
      return Slot;
  }
  return NULL;
}

/* Appends one sample of the calling thread: Address is where it ran, or 0
 * for a thread's last record (its exit, or the process's), which stands for
 * its CPU time since its last sample, wherever that went. */
static void record(uint64_t Address, uint32_t Weight) {
  uint64_t Slot = atomic_fetch_add_explicit(&Taken, 1, memory_order_relaxed);
  if (Slot >= Capacity) {
    atomic_fetch_add_explicit(&Lost, 1, memory_order_relaxed);
    return;
  }
  Samples[Slot].TimeNs = monotonicNs();
  Samples[Slot].Address = Address;
  Samples[Slot].Thread = (uint32_t)syscall(SYS_gettid);
  struct timespec Cpu;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Cpu);
  Samples[Slot].ThreadCpuNs = (uint64_t)Cpu.tv_sec * 1000000000u + (uint64_t)Cpu.tv_nsec;
  struct ThreadName *Named = threadSlot(Samples[Slot].Thread);
  if (Named)
    prctl(PR_GET_NAME, (unsigned long)Named->Name, 0, 0, 0);
  Samples[Slot].Weight = Weight;
}

static void onSample(int Signal, siginfo_t *Info, void *Context) {
  (void)Signal;
  (void)Info;
  if (!atomic_load_explicit(&Sampling, memory_order_acquire))
    return;
  int SavedErrno = errno;
  ucontext_t *Uc = (ucontext_t *)Context;
#if defined(__x86_64__)
  uint64_t Address = (uint64_t)Uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  uint64_t Address = (uint64_t)Uc->uc_mcontext.pc;
#else
  uint64_t Address = 0;
  (void)Uc;
#endif
  int Overrun = OwnArmed ? timer_getoverrun(OwnTimer) : 0;
  record(Address, 1 + (uint32_t)(Overrun > 0 ? Overrun : 0));
  errno = SavedErrno;
}

/* Arms the calling thread's timer: SIGPROF to this thread every interval of
 * its own CPU time. */
static int armThisThread(void) {
  struct sigevent Event;
  memset(&Event, 0, sizeof Event);
  Event.sigev_notify = SIGEV_THREAD_ID;
  Event.sigev_signo = SIGPROF;
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif
  Event.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
  timer_t Timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &Event, &Timer) != 0) {
    fprintf(stderr, "cpu_sampler: error: timer_create: %s\n", strerror(errno));
    return 0;
  }
  struct itimerspec Every;
  Every.it_interval.tv_sec = IntervalUs / 1000000;
  Every.it_interval.tv_nsec = (IntervalUs % 1000000) * 1000;
  Every.it_value = Every.it_interval;
  if (timer_settime(Timer, 0, &Every, NULL) != 0) {
    fprintf(stderr, "cpu_sampler: error: timer_settime: %s\n", strerror(errno));
    timer_delete(Timer);
    return 0;
  }
  OwnTimer = Timer;
  OwnArmed = 1;
  pthread_setspecific(TimerKey, (void *)1);
  return 1;
}

/* At a thread's exit (TimerKey's destructor) and the process's: the thread's
 * last record, so that its CPU after its last sample is counted. A thread
 * that runs in short bursts between sleeps takes few samples (the kernel
 * checks its timer at a tick that finds it running, and an idle core has no
 * tick), so that time can be much of its total. */
static void disarmThisThread(void *Unused) {
  (void)Unused;
  if (OwnArmed) {
    OwnArmed = 0;
    timer_delete(OwnTimer);
    if (atomic_load_explicit(&Sampling, memory_order_acquire))
      record(0, 0);
  }
}

/* A new thread gets its timer before its start routine runs. */
struct StartOf {
  void *(*Routine)(void *);
  void *Argument;
};

static void *sampledStart(void *Start) {
  struct StartOf Of = *(struct StartOf *)Start;
  free(Start);
  if (atomic_load_explicit(&Sampling, memory_order_acquire))
    armThisThread();
  return Of.Routine(Of.Argument);
}

int pthread_create(pthread_t *Thread, const pthread_attr_t *Attr, void *(*Routine)(void *), void *Argument) {
  typedef int (*CreateFn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  /* Two threads' first calls may both look it up: the same answer. */
  static _Atomic(CreateFn) Next;
  CreateFn Real = atomic_load_explicit(&Next, memory_order_acquire);
  if (!Real) {
    Real = (CreateFn)dlsym(RTLD_NEXT, "pthread_create");
    if (!Real)
      return EAGAIN; /* no definition after ours: nothing can start a thread */
    atomic_store_explicit(&Next, Real, memory_order_release);
  }
  if (!atomic_load_explicit(&Sampling, memory_order_acquire))
    return Real(Thread, Attr, Routine, Argument);
  struct StartOf *Start = malloc(sizeof *Start);
  if (!Start)
    return Real(Thread, Attr, Routine, Argument);
  Start->Routine = Routine;
  Start->Argument = Argument;
  int Rc = Real(Thread, Attr, sampledStart, Start);
  if (Rc != 0)
    free(Start);
  return Rc;
}

/* A forked child starts with no timer and its parent's samples: it keeps
 * none of them and is sampled afresh. */
static void inChild(void) {
  atomic_store(&Taken, 0);
  atomic_store(&Lost, 0);
  memset(Threads, 0, sizeof(struct ThreadName) * ThreadSlots);
  /* The forking thread's timer was the parent's: the child has none. */
  OwnArmed = 0;
  Armed = armThisThread();
}

static void writeAll(int Fd, const char *Text, size_t Size) {
  while (Size) {
    ssize_t N = write(Fd, Text, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Text += N;
    Size -= (size_t)N;
  }
}

/* The executable mappings, as /proc/self/maps gives them ("map " before
 * each), then the samples; written to PREFIX.<pid>.tmp and renamed, so that a
 * reader never sees half a file. */
static void writeSamples(void) {
  char Path[4200], Temporary[4300];
  snprintf(Path, sizeof Path, "%s.%d", OutPrefix, (int)getpid());
  snprintf(Temporary, sizeof Temporary, "%s.tmp", Path);
  int Fd = open(Temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    fprintf(stderr, "cpu_sampler: error: cannot write %s: %s\n", Temporary, strerror(errno));
    return;
  }
  char Line[8192];
  int N = snprintf(Line, sizeof Line, "cpu_sampler 1 interval_us %ld pid %d\n", IntervalUs, (int)getpid());
  writeAll(Fd, Line, (size_t)N);
  FILE *Maps = fopen("/proc/self/maps", "r");
  if (Maps) {
    char Map[4096 + 128];
    while (fgets(Map, sizeof Map, Maps)) {
      /* "start-end perms offset dev inode path": keep the executable ones. */
      char Perms[8];
      if (sscanf(Map, "%*s %7s", Perms) == 1 && Perms[2] == 'x') {
        N = snprintf(Line, sizeof Line, "map %s", Map);
        writeAll(Fd, Line, (size_t)N);
      }
    }
    fclose(Maps);
  }
  for (unsigned I = 0; I < ThreadSlots; ++I) {
    unsigned Id = atomic_load(&Threads[I].Id);
    if (!Id)
      continue;
    char Name[17];
    memcpy(Name, Threads[I].Name, 16);
    Name[16] = 0;
    /* A name is printed as given, one line; a newline in it (prctl allows
     * one) would split the line, so it becomes a space. */
    for (char *C = Name; *C; ++C)
      if (*C == '\n')
        *C = ' ';
    N = snprintf(Line, sizeof Line, "thread %u %s\n", Id, Name);
    writeAll(Fd, Line, (size_t)N);
  }
  uint64_t Count = atomic_load(&Taken);
  if (Count > Capacity)
    Count = Capacity;
  for (uint64_t I = 0; I < Count; ++I) {
    N = snprintf(Line, sizeof Line, "sample %llu %u %llx %u %llu\n", (unsigned long long)Samples[I].TimeNs,
                 Samples[I].Thread, (unsigned long long)Samples[I].Address, Samples[I].Weight,
                 (unsigned long long)Samples[I].ThreadCpuNs);
    writeAll(Fd, Line, (size_t)N);
  }
  N = snprintf(Line, sizeof Line, "lost %llu\n", (unsigned long long)atomic_load(&Lost));
  writeAll(Fd, Line, (size_t)N);
  if (close(Fd) != 0 || rename(Temporary, Path) != 0)
    fprintf(stderr, "cpu_sampler: error: cannot write %s: %s\n", Path, strerror(errno));
}

static int selected(void) {
  const char *Only = getenv("STREAMLIFE_SAMPLER_ONLY");
  if (!Only || !*Only)
    return 1;
  return strcmp(program_invocation_short_name, Only) == 0;
}

__attribute__((constructor)) static void startSampling(void) {
  const char *Out = getenv("STREAMLIFE_SAMPLER_OUT");
  if (!Out || !*Out || !selected())
    return;
  if (strlen(Out) >= sizeof OutPrefix) {
    fprintf(stderr, "cpu_sampler: error: STREAMLIFE_SAMPLER_OUT is longer than %zu bytes\n",
            sizeof OutPrefix - 1);
    return;
  }
  strcpy(OutPrefix, Out);
  const char *Us = getenv("STREAMLIFE_SAMPLER_US");
  if (Us && *Us) {
    char *End;
    long Value = strtol(Us, &End, 10);
    if (*End || Value < 10 || Value > 1000000) {
      fprintf(stderr, "cpu_sampler: error: STREAMLIFE_SAMPLER_US must be 10-1000000 microseconds, not '%s'\n",
              Us);
      return;
    }
    IntervalUs = Value;
  }
  Samples = mmap(NULL, sizeof(struct Sample) * Capacity, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  Threads = mmap(NULL, sizeof(struct ThreadName) * ThreadSlots, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (Samples == MAP_FAILED || Threads == MAP_FAILED) {
    fprintf(stderr, "cpu_sampler: error: cannot map the sample buffer: %s\n", strerror(errno));
    return;
  }
  struct sigaction Action;
  memset(&Action, 0, sizeof Action);
  Action.sa_sigaction = onSample;
  Action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&Action.sa_mask);
  if (sigaction(SIGPROF, &Action, NULL) != 0) {
    fprintf(stderr, "cpu_sampler: error: sigaction: %s\n", strerror(errno));
    return;
  }
  if (pthread_key_create(&TimerKey, disarmThisThread) != 0) {
    fprintf(stderr, "cpu_sampler: error: pthread_key_create failed\n");
    return;
  }
  atomic_store(&Sampling, 1);
  Armed = armThisThread();
  if (Armed)
    pthread_atfork(NULL, NULL, inChild);
  else
    atomic_store(&Sampling, 0);
}

__attribute__((destructor)) static void stopSampling(void) {
  if (!Armed)
    return;
  Armed = 0;
  /* Other threads' timers may still fire while the file is written: their
   * signals find Sampling cleared (the handler stays: SIGPROF's default
   * action would end the process). */
  disarmThisThread(NULL);
  atomic_store(&Sampling, 0);
  writeSamples();
}
