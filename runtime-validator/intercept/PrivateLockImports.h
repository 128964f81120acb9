//===- PrivateLockImports.h - private libraries' locks past the interposers -*- C++ -*-===//
//
// The lock calls of a library whose locks order nothing (CallerLibraries.h's
// Private kind: the CUDA driver, CUPTI, the CUDA libraries, PyTorch's CUDA
// allocator) reach the thread interposers only to be passed on, about 12 of
// the driver's in a launch-bound step. The first time an interposer meets
// one of such a library's calls, its imports of the pthread mutex and
// reader-writer lock functions are bound to the definitions the interposers
// call (ImportBinding.h), so its later lock calls no longer pass them.
// The Python interpreter's object is bound alike: its mutexes are the GIL's,
// which PyTorch drops and takes again around every op (four mutex calls and
// a condition signal each time), and they never count (CallerLibraries.h);
// its threading.Lock is a semaphore, which keeps the interposers.
// Condition variables, semaphores, barriers and threads keep the interposers
// (their versions and thread bookkeeping are not worth the risk), and so do
// the validator's own library and every caller that is neither Private nor
// the interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_PRIVATELOCKIMPORTS_H
#define STREAMLIFE_RT_INTERCEPT_PRIVATELOCKIMPORTS_H

#include <cstddef>
#include <string>

namespace streamlife {
namespace rt {

/// Once per library: binds the lock imports of the library that holds Caller
/// (a return address CallerLibraries classified Private or Interpreter) past the
/// interposers. Call as validator code (it reads the dynamic linker's maps).
void bindPrivateLockImports(const void *Caller);

/// What was bound (intercept_stats): slots, libraries, and the libraries'
/// file names, comma separated.
struct PrivateLockImportsBound {
  std::size_t Slots = 0;
  std::size_t Libraries = 0;
  std::string Names;
};
PrivateLockImportsBound privateLockImportsBound();

} // namespace rt
} // namespace streamlife

#endif
