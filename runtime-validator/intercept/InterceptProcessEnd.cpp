//===- InterceptProcessEnd.cpp - the findings queued when a process ends abruptly -===//
//
// Findings are printed when they are found, and the JSON report and the
// findings tally rewritten, so that a program that dies early loses none
// (report/Reporter.h). With deferred CUDA operations (allocators/
// AnnotatedAllocators.h) and the replay thread (ReplayThread.h), a call's
// findings may still be queued when the program ends right after it without
// exit handlers: abort() (a CUDA error check, an assertion), _exit() (a
// forked server's worker, a launcher's "exit now"), or exec() of another
// image. Each of those replays the queue and prints its findings first; the
// summary is not printed (the program did not finish), and the call then runs
// as ever.
//
// Only the program's own calls in the process the runtime attached to: one
// from inside the validator (its locks may be held: a signal handler that
// interrupted a push, an interposer or a CUDA call on the same thread), one from a vfork()'d
// child (it shares the parent's memory while the parent's threads run; exec
// there is how Python starts a subprocess) and one from a process that never
// used CUDA pass straight on. A crash (a fatal signal) is not covered: the
// program's signal handlers stay its own.
//
//===----------------------------------------------------------------------===//

#include "intercept/InterceptContext.h"
#include "intercept/RealFunction.h"
#include "intercept/Runtime.h"

#include <cstdarg>
#include <unistd.h>
#include <alloca.h>

namespace streamlife {
namespace rt {
namespace {
constexpr RealSymbol AbortSymbol{"abort"};
constexpr RealSymbol ExitSymbol{"_exit"};
constexpr RealSymbol CapitalExitSymbol{"_Exit"};
constexpr RealSymbol ExecveSymbol{"execve"};
constexpr RealSymbol ExecvSymbol{"execv"};
constexpr RealSymbol ExecvpSymbol{"execvp"};
constexpr RealSymbol ExecvpeSymbol{"execvpe"};

/// The queue replayed and its findings printed, when the caller is the
/// program in the attached process.
void printQueuedFindings() {
  if (ValidatorCode::running())
    return;
  ValidatorRuntime *R = runtime();
  if (!R || !R->UsedCuda.load(std::memory_order_acquire) || getpid() != R->AttachedPid)
    return;
  ValidatorCode Running;
  drainQueuedEventsOutsideCuda(*R);
}

/// Calls Exec with an execl-style list's arguments, First to the null, as an
/// argv on the stack (exec may follow a fork() of a threaded program, where
/// only async-signal-safe work belongs: no allocation); Rest is left after
/// the null (execle's environment comes next).
template <typename Fn> int withArgumentVector(const char *First, va_list &Rest, Fn &&Exec) {
  va_list Counting;
  va_copy(Counting, Rest);
  std::size_t N = 2; // First and the null
  if (First)
    while (va_arg(Counting, const char *))
      ++N;
  va_end(Counting);
  auto **Args = static_cast<char **>(alloca(N * sizeof(char *)));
  std::size_t I = 0;
  for (const char *Arg = First; Arg; Arg = va_arg(Rest, const char *))
    Args[I++] = const_cast<char *>(Arg);
  Args[I] = nullptr;
  return Exec(Args);
}
} // namespace
} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;
#define STREAMLIFE_INTERPOSE extern "C" __attribute__((visibility("default")))

STREAMLIFE_INTERPOSE __attribute__((noreturn)) void abort() noexcept {
  printQueuedFindings();
  RealFunction<void (*)(), AbortSymbol>::get()();
  __builtin_unreachable();
}

STREAMLIFE_INTERPOSE __attribute__((noreturn)) void _exit(int Status) {
  printQueuedFindings();
  RealFunction<void (*)(int), ExitSymbol>::get()(Status);
  __builtin_unreachable();
}

STREAMLIFE_INTERPOSE __attribute__((noreturn)) void _Exit(int Status) noexcept {
  printQueuedFindings();
  RealFunction<void (*)(int), CapitalExitSymbol>::get()(Status);
  __builtin_unreachable();
}

STREAMLIFE_INTERPOSE int execve(const char *Path, char *const Argv[], char *const Envp[]) noexcept {
  printQueuedFindings();
  return RealFunction<int (*)(const char *, char *const *, char *const *), ExecveSymbol>::get()(Path, Argv, Envp);
}

STREAMLIFE_INTERPOSE int execv(const char *Path, char *const Argv[]) noexcept {
  printQueuedFindings();
  return RealFunction<int (*)(const char *, char *const *), ExecvSymbol>::get()(Path, Argv);
}

STREAMLIFE_INTERPOSE int execvp(const char *File, char *const Argv[]) noexcept {
  printQueuedFindings();
  return RealFunction<int (*)(const char *, char *const *), ExecvpSymbol>::get()(File, Argv);
}

STREAMLIFE_INTERPOSE int execvpe(const char *File, char *const Argv[], char *const Envp[]) noexcept {
  printQueuedFindings();
  return RealFunction<int (*)(const char *, char *const *, char *const *), ExecvpeSymbol>::get()(File, Argv,
                                                                                                   Envp);
}

// The list forms: glibc's own call execve inside libc, past the interposers
// above, so they are interposed themselves and end in the vector forms.
STREAMLIFE_INTERPOSE int execl(const char *Path, const char *Arg, ...) noexcept {
  va_list Rest;
  va_start(Rest, Arg);
  int Rc = withArgumentVector(Arg, Rest, [&](char **Args) { return execv(Path, Args); });
  va_end(Rest);
  return Rc;
}

STREAMLIFE_INTERPOSE int execlp(const char *File, const char *Arg, ...) noexcept {
  va_list Rest;
  va_start(Rest, Arg);
  int Rc = withArgumentVector(Arg, Rest, [&](char **Args) { return execvp(File, Args); });
  va_end(Rest);
  return Rc;
}

STREAMLIFE_INTERPOSE int execle(const char *Path, const char *Arg, ...) noexcept {
  va_list Rest;
  va_start(Rest, Arg);
  int Rc = withArgumentVector(Arg, Rest, [&](char **Args) {
    char *const *Envp = va_arg(Rest, char *const *);
    return execve(Path, Args, Envp);
  });
  va_end(Rest);
  return Rc;
}
