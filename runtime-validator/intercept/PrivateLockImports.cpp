//===- PrivateLockImports.cpp - private libraries' locks past the interposers -===//
#include "intercept/PrivateLockImports.h"

#include "intercept/CallerLibraries.h"
#include "intercept/ImportBinding.h"
#include "intercept/RealFunction.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace streamlife {
namespace rt {

namespace {

/// The interposed functions whose imports are bound: the locks a library
/// takes around every call. Their definitions are the ones the interposers
/// call (the next after the validator's).
constexpr const char *LockFunctions[] = {
    "pthread_mutex_lock",     "pthread_mutex_trylock",    "pthread_mutex_timedlock",
    "pthread_mutex_unlock",   "pthread_rwlock_rdlock",    "pthread_rwlock_wrlock",
    "pthread_rwlock_tryrdlock", "pthread_rwlock_trywrlock", "pthread_rwlock_unlock",
};
constexpr std::size_t LockFunctionCount = sizeof(LockFunctions) / sizeof(LockFunctions[0]);

/// The libraries seen so far, by load base: a process loads a few dozen.
constexpr std::size_t MaxLibraries = 256;

struct Bindings {
  std::mutex Lock; // validator code: its own lock calls pass the interposers
  const void *Seen[MaxLibraries] = {};
  std::size_t SeenCount = 0;
  std::size_t Slots = 0;
  std::size_t Libraries = 0;
  std::string Names;
  ImportTarget Targets[LockFunctionCount] = {};
  bool TargetsKnown = false;
};

Bindings &bindings() {
  static Bindings *B = new Bindings; // never destroyed: exit-time lock calls may still come
  return *B;
}

const char *fileName(const char *Path) {
  const char *Slash = std::strrchr(Path, '/');
  return Slash ? Slash + 1 : Path;
}

} // namespace

void bindPrivateLockImports(const void *Caller) {
  Dl_info Info;
  if (!dladdr(static_cast<const char *>(Caller) - 1, &Info) || !Info.dli_fbase ||
      Info.dli_fbase == validatorLibraryBase())
    return;
  Bindings &B = bindings();
  std::lock_guard<std::mutex> Guard(B.Lock);
  for (std::size_t I = 0; I < B.SeenCount; ++I)
    if (B.Seen[I] == Info.dli_fbase)
      return;
  if (B.SeenCount == MaxLibraries)
    return;
  B.Seen[B.SeenCount++] = Info.dli_fbase;
  if (!B.TargetsKnown) {
    for (std::size_t I = 0; I < LockFunctionCount; ++I)
      B.Targets[I] = {LockFunctions[I], realFunction<void *>(LockFunctions[I])};
    B.TargetsKnown = true;
  }
  ImportBindingResult Bound = bindImports(static_cast<const char *>(Caller) - 1, B.Targets, LockFunctionCount);
  if (!Bound.Found || !Bound.Slots)
    return;
  B.Slots += Bound.Slots;
  ++B.Libraries;
  if (!B.Names.empty())
    B.Names += ", ";
  // The executable has no name of its own in the linker's maps (a Python
  // whose interpreter is linked in): dladdr's, its argv[0].
  const char *Name = Bound.Object && *Bound.Object ? Bound.Object
                     : Info.dli_fname                 ? Info.dli_fname
                                                      : "the executable";
  B.Names += fileName(Name);
}

PrivateLockImportsBound privateLockImportsBound() {
  Bindings &B = bindings();
  std::lock_guard<std::mutex> Guard(B.Lock);
  return {B.Slots, B.Libraries, B.Names};
}

} // namespace rt
} // namespace streamlife
