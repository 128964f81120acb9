//===- RealFunction.h - the definition after ours, for an interposer -*- C++ -*-===//
//
// The thread interposers (InterceptThreads.cpp) define pthread and semaphore
// entry points and call the definitions after theirs (dlsym(RTLD_NEXT)). Every
// lock operation of the driver, CUPTI and the program passes one (18 per step of
// a launch-bound loop), so the pointer to the real function is read as cheaply
// as a pointer can be: constant-initialized to a look-up stub, never tested.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_REALFUNCTION_H
#define STREAMLIFE_RT_INTERCEPT_REALFUNCTION_H

#include <dlfcn.h>

#include <atomic>

namespace streamlife {
namespace rt {

/// The definition of Name after the calling object's, of Version where that
/// version exists (glibc's condition functions have two), else the default.
template <typename Fn> Fn realFunction(const char *Name, const char *Version = nullptr) {
  void *F = Version ? dlvsym(RTLD_NEXT, Name, Version) : nullptr;
  if (!F)
    F = dlsym(RTLD_NEXT, Name);
  return reinterpret_cast<Fn>(F);
}

/// A symbol whose definition after ours an interposer calls.
struct RealSymbol {
  const char *Name;
  const char *Version = nullptr; ///< null: the default version
};

/// The definition after ours of Symbol (RealFunction<int (*)(sem_t *),
/// Symbol>::get()). Its pointer starts at a stub of the same signature that
/// looks the definition up, keeps it and calls it, so that an interposer
/// loads the pointer and jumps: no "looked up yet?" test and branch, and no
/// register saved around them. Constant-initialized (no guard variable), so
/// an interposer that ignores its call needs no frame. Two threads may both
/// look it up first; they store the same value.
template <typename Fn, const RealSymbol &Symbol> class RealFunction;
template <typename Ret, typename... Args, const RealSymbol &Symbol>
class RealFunction<Ret (*)(Args...), Symbol> {
public:
  using Fn = Ret (*)(Args...);
  /// The stub until the first call, the real definition after it.
  static Fn get() { return Ptr.load(std::memory_order_relaxed); }

private:
  static Ret lookUpAndCall(Args... A) {
    Fn F = realFunction<Fn>(Symbol.Name, Symbol.Version);
    Ptr.store(F, std::memory_order_relaxed);
    return F(A...);
  }
  static inline std::atomic<Fn> Ptr{&lookUpAndCall};
};

} // namespace rt
} // namespace streamlife

#endif
