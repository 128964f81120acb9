//===- CallerLibraries.cpp - whose synchronization orders the program -----===//
#include "intercept/CallerLibraries.h"

#include "intercept/KeptLockCallers.h"
#include "intercept/PrivateLockFunctions.h"
#include "report/CallSiteNames.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace streamlife {
namespace rt {

namespace {

const char *baseName(const char *Path) {
  const char *Slash = std::strrchr(Path, '/');
  return Slash ? Slash + 1 : Path;
}

bool startsWith(const char *S, const char *Prefix) {
  return std::strncmp(S, Prefix, std::strlen(Prefix)) == 0;
}

/// Libraries whose locks guard their own state only. The PyTorch feed is
/// known by the name ld.so gives it (noteValidatorModule), never by its file's.
constexpr const char *PrivateLibraries[] = {
    "libcuda.so",      "libcudart.so",   "libcupti.so",     "libnccl.so",
    "libcublas.so",    "libcublasLt.so", "libcudnn",        "libcufft.so",
    "libcurand.so",    "libcusparse.so", "libcusolver.so",  "libnvrtc.so",
    "libnvJitLink.so", "libnvidia-",     "libnvToolsExt.so", "libcusparseLt.so",
    "libcufile.so",    "libnvshmem",     "libc10_cuda.so",  "libstreamlife_rt.so",
};

} // namespace

CallerKind classifyLibrary(const char *Path, bool IsInterpreter) {
  if (IsInterpreter)
    return CallerKind::Interpreter;
  if (!Path)
    return CallerKind::Program;
  const char *Name = baseName(Path);
  if (startsWith(Name, "libpython"))
    return CallerKind::Interpreter;
  for (const char *Prefix : PrivateLibraries)
    if (startsWith(Name, Prefix))
      return CallerKind::Private;
  return CallerKind::Program;
}

CallerKind classifyLibraryFunction(const char *Path, const char *Function, bool FunctionHoldsCall) {
  if (!Path || !Function || !FunctionHoldsCall)
    return CallerKind::Program;
  return privateLockFunction(Path, Function) ? CallerKind::PrivateFunction : CallerKind::Program;
}

namespace {

/// The object that holds the interpreter (libpython, or the executable), by
/// its load base; 0 when Python is not in the process (yet).
const void *interpreterBase() {
  void *Symbol = dlsym(RTLD_DEFAULT, "Py_IsInitialized");
  Dl_info Info;
  if (!Symbol || !dladdr(Symbol, &Info))
    return nullptr;
  return Info.dli_fbase;
}


CallerKind classifySlow(const void *Ret) {
  // The call instruction's object (it holds the byte before the return
  // address), asked once: dladdr's scan of a large library's dynamic symbols
  // is most of a first sight's cost, and symbolizeCall reuses its answer.
  void *CallPC = static_cast<char *>(const_cast<void *>(Ret)) - 1;
  Dl_info Info;
  void *SymbolEntry = nullptr;
  if (!dladdr1(CallPC, &Info, &SymbolEntry, RTLD_DL_SYMENT))
    return CallerKind::Program; // JIT code, or an object without symbols
  if (Info.dli_fbase == validatorLibraryBase() || (Info.dli_fname && isNotedValidatorModule(Info.dli_fname)))
    return CallerKind::Private;
  const void *Interpreter = interpreterBase();
  CallerKind Kind = classifyLibrary(Info.dli_fname, Interpreter && Info.dli_fbase == Interpreter);
  if (Kind != CallerKind::Program || !Info.dli_fname || !mayHavePrivateLockFunctions(Info.dli_fname))
    return Kind;
  // Named as the kept-lock-event line names it (KeptLockCallers.cpp).
  Frame F = symbolizeCall(const_cast<void *>(Ret), Info, SymbolEntry);
  return classifyLibraryFunction(F.Module.c_str(), F.Function.c_str(), F.FunctionHoldsCall);
}

std::atomic<KeptLockCallers *> PrivateFunctionCounts{nullptr};
std::atomic<void (*)(const void *)> PrivateCallerHook{nullptr};

constexpr std::size_t CacheSlots = detail::CallerCacheSlots;
constexpr int MaxProbes = 16;
using detail::CallerCache;

} // namespace

namespace detail {
std::atomic<std::uint64_t> CallerCache[CallerCacheSlots];
} // namespace detail

void countPrivateFunctionLocks(KeptLockCallers *Counts) {
  PrivateFunctionCounts.store(Counts, std::memory_order_release);
}

void onPrivateCallerFirstSeen(void (*Hook)(const void *ReturnAddress)) {
  PrivateCallerHook.store(Hook, std::memory_order_release);
}

const void *validatorLibraryBase() {
  static const void *Base = [] {
    Dl_info Info;
    return dladdr(reinterpret_cast<const void *>(&classifyLibrary), &Info) ? Info.dli_fbase
                                                                           : nullptr;
  }();
  return Base;
}

CallerKind classifyCaller(const void *ReturnAddress) {
  auto Key = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ReturnAddress));
  std::size_t Hash = detail::callerCacheHome(Key);
  for (int Probe = 0; Probe < MaxProbes; ++Probe) {
    std::uint64_t Slot = CallerCache[(Hash + Probe) & (CacheSlots - 1)].load(std::memory_order_acquire);
    if (Slot == 0)
      break;
    if ((Slot >> 8) == Key)
      return static_cast<CallerKind>(Slot & 0xff);
  }
  // Counted: the caller table itself remembers the PrivateFunction callers.
  KeptLockCallers *Counts = PrivateFunctionCounts.load(std::memory_order_acquire);
  if (Counts && Counts->countIfHeld(ReturnAddress))
    return CallerKind::PrivateFunction;
  CallerKind Kind = classifySlow(ReturnAddress);
  // The interpreter's mutexes are the GIL's and its own (its threading.Lock is
  // a semaphore): ignored as a private library's are, so bound past alike.
  // Not PrivateFunction: only some functions of that library lock privately.
  if (Kind == CallerKind::Private || Kind == CallerKind::Interpreter)
    if (void (*Hook)(const void *) = PrivateCallerHook.load(std::memory_order_acquire))
      Hook(ReturnAddress);
  if (Counts && Kind == CallerKind::PrivateFunction) {
    Counts->count(ReturnAddress);
    return Kind;
  }
  std::uint64_t Entry = (Key << 8) | static_cast<std::uint64_t>(Kind);
  for (int Probe = 0; Probe < MaxProbes; ++Probe) {
    std::uint64_t Expected = 0;
    std::atomic<std::uint64_t> &Slot = CallerCache[(Hash + Probe) & (CacheSlots - 1)];
    if (Slot.compare_exchange_strong(Expected, Entry, std::memory_order_acq_rel) ||
        (Expected >> 8) == Key)
      break;
  }
  return Kind;
}

} // namespace rt
} // namespace streamlife
