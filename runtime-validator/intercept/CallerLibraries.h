//===- CallerLibraries.h - whose synchronization orders the program -*- C++ -*-===//
//
// The host threads' order (engine/HostClocks.h) comes from the program's own
// synchronization: the mutexes, condition variables, semaphores and threads of
// the program and of the libraries that hand its work between threads
// (PyTorch's autograd engine, c10d's work queues, Python's threading module).
// Not every lock is that. A lock that guards a library's private state orders
// the threads that happen to take it, in whatever order they arrive, and so
// would make the verdict depend on timing again:
//   * the CUDA driver and runtime, CUPTI, NCCL and the math libraries lock
//     around every call;
//   * the allocators the validator models (PyTorch's caching allocator and its
//     cudaMallocAsync backend, both in libc10_cuda) lock around every
//     allocation and free: a block handed out after a release is the
//     allocator's business, judged by the reuse rule, not a synchronization
//     of the program;
//   * the Python interpreter's own lock (the GIL) is a pthread mutex and
//     condition variable taken by every Python thread all the time.
// So each intercepted call is classified by the library it was called from
// (its return address), once per call site. Python's threading locks are
// semaphores (CPython 3.11/3.12 on Linux), so the interpreter's semaphore
// calls still count while its mutex and condition calls (the GIL) do not.
//
// The rule applies per function too, where a library's own synchronization
// does order the program (libtorch's autograd engine) but some of its
// functions lock only one object's private state (AutogradMeta::fw_grad's
// lazily built forward grad, the environment's lock of c10::utils::get_env):
// a caller in one of the libraries that PrivateLockFunctions.h lists is named
// by its function (report/CallSiteNames.h: the module's symbol table, so
// internal functions resolve) and is private when the table names it. A
// caller the table cannot place for sure (no symbol that holds the address)
// stays the program's. Ignoring a lock can only add findings, never hide one.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_CALLERLIBRARIES_H
#define STREAMLIFE_RT_INTERCEPT_CALLERLIBRARIES_H

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace streamlife {
namespace rt {

enum class CallerKind : std::uint8_t {
  Unknown = 0,  ///< not classified yet (cache)
  Program,      ///< its synchronization orders threads
  Private,      ///< a library's own lock (CUDA, allocators, the validator)
  Interpreter,  ///< the Python interpreter: only its semaphores count
  PrivateFunction, ///< a library function's lock on its object's own state
                   ///< (PrivateLockFunctions.h)
};

/// Classifies a library by its path. IsInterpreter: the object holds the
/// Python interpreter (libpython, or a python executable that links it in).
CallerKind classifyLibrary(const char *Path, bool IsInterpreter);

/// Classifies a call from Function (demangled) in the library at Path that
/// classifyLibrary called the program's: PrivateFunction when the table of
/// PrivateLockFunctions.h names it, else Program. FunctionHoldsCall: whether
/// Function is known to hold the call (report/CallSiteNames.h); when not, the
/// name may be another function's, and the call stays the program's.
CallerKind classifyLibraryFunction(const char *Path, const char *Function, bool FunctionHoldsCall);

class KeptLockCallers;
/// With intercept_stats: counts the lock events of PrivateFunction callers in
/// Counts, by caller. Their addresses then stay out of the cache below (a hit
/// there is ignored without a count) and classifyCaller counts each call of
/// theirs; set before the first call is classified. Null: no counting.
void countPrivateFunctionLocks(KeptLockCallers *Counts);

/// Called with the return address of each call site classified Private or
/// Interpreter (whose mutex and reader-writer lock calls never count), at its
/// first sight, as validator code (PrivateLockImports.h binds the object's
/// lock imports past the interposers then). Null: nothing. Set before the
/// first call is classified.
void onPrivateCallerFirstSeen(void (*Hook)(const void *ReturnAddress));
/// The load base of the object that holds the validator (its own calls are
/// Private, and its imports are never rebound).
const void *validatorLibraryBase();
/// Whether a call of this kind of primitive from this caller orders threads.
enum class SyncPrimitive : std::uint8_t { Mutex, Condition, Semaphore, Thread };
inline bool countsAsProgramSync(CallerKind Caller, SyncPrimitive What) {
  switch (Caller) {
  case CallerKind::Program:
    return true;
  case CallerKind::Interpreter:
    return What == SyncPrimitive::Semaphore || What == SyncPrimitive::Thread;
  default:
    return false;
  }
}

/// The kind of the code at a return address (cached per address; dladdr on
/// the first sight, and for the libraries PrivateLockFunctions.h lists the
/// function's name). Lock-free on a hit, callable from any interposer; the
/// first sight must run as the validator's code (ValidatorCode), since
/// naming a function takes the symbol table's lock.
CallerKind classifyCaller(const void *ReturnAddress);

namespace detail {
/// classifyCaller's cache: open addressing over return addresses; a slot
/// holds (address << 8) | kind, written once with a compare-and-swap, so
/// readers need no lock.
constexpr std::size_t CallerCacheSlots = 1 << 13;
extern std::atomic<std::uint64_t> CallerCache[CallerCacheSlots];
inline std::size_t callerCacheHome(std::uint64_t Key) {
  return static_cast<std::size_t>((Key * 0x9E3779B97F4A7C15ull) >> 51);
}
} // namespace detail

/// classifyCaller's answer when the address sits in its home slot of the
/// cache (nearly every caller once seen), else Unknown: no call and no lock,
/// for the interposers that every lock of the driver passes (about 12 per
/// launch-bound step on an H200).
inline CallerKind cachedCallerKind(const void *ReturnAddress) {
  auto Key = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ReturnAddress));
  std::uint64_t Slot = detail::CallerCache[detail::callerCacheHome(Key)].load(std::memory_order_acquire);
  // An empty slot (0) matches only a null address, and its kind is Unknown.
  return (Slot >> 8) == Key ? static_cast<CallerKind>(Slot & 0xff) : CallerKind::Unknown;
}

} // namespace rt
} // namespace streamlife

#endif
