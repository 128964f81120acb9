//===- InterceptAbort.cpp - the findings queued when a program aborts ------===//
//
// Findings are printed when they are found, and the JSON report rewritten, so
// that a program that dies early loses none (report/Reporter.h). With deferred
// CUDA operations (allocators/AnnotatedAllocators.h) and the replay thread
// (ReplayThread.h) a call's findings may still be queued when the program
// calls abort() right after it (a CUDA error check's abort, an assertion in
// the program): abort runs no exit handler, so the final replay never comes.
// Here the queue is replayed and its findings printed first; the summary is
// not (the program did not finish), and abort then runs as ever.
//
// Only the program's own aborts: one from inside the validator (its locks
// may be held) and one from a process that never used CUDA pass straight on.
//
//===----------------------------------------------------------------------===//

#include "intercept/DriverCallTable.h"
#include "intercept/InterceptContext.h"
#include "intercept/RealFunction.h"
#include "intercept/Runtime.h"

namespace streamlife {
namespace rt {
namespace {
constexpr RealSymbol AbortSymbol{"abort"};

void printQueuedFindings(ValidatorRuntime &R) {
  if (DriverCallGuard::inside())
    return;
  DriverCallGuard Guard; // stream resolution may call the driver
  ValidatorCode Running;
  InterceptContext(R).replayBlockEvents();
  R.Report.drain(R);
}
} // namespace
} // namespace rt
} // namespace streamlife

extern "C" __attribute__((visibility("default"), noreturn)) void abort() noexcept {
  using namespace streamlife::rt;
  if (!ValidatorCode::running())
    if (ValidatorRuntime *R = runtime(); R && R->UsedCuda.load(std::memory_order_acquire))
      printQueuedFindings(*R);
  RealFunction<void (*)(), AbortSymbol>::get()();
  __builtin_unreachable();
}
