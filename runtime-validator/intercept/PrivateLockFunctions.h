//===- PrivateLockFunctions.h - library functions whose lock is private -*- C++ -*-===//
//
// CallerLibraries.h's rule, per function: a lock that guards one object's
// private state (a lazily built field, a cache, a registry read) orders the
// threads that happen to take it in whatever order they arrive, and so would
// make the verdict depend on timing. A whole library cannot be called private
// for it: libtorch_cpu's autograd engine hands work between threads with its
// mutexes (Engine::evaluate_function, ReadyQueue, GraphTask), and
// AccumulateGrad's mutex guards the program's own .grad tensor. But some of
// its functions lock only their object's own state, and on PyTorch FSDP2 they
// were most of the lock events the validator kept and replayed
// (bench/runtime/README.md): AutogradMeta::fw_grad alone about half.
//
// The table (PrivateLockFunctions.cpp) names each such function by the exact
// base name of its library and a prefix of its demangled name, with why its
// lock is private, read from PyTorch's source. Only the exact PyTorch library
// names match, never a pattern that could match the program's own code.
// Dropping a lock's edge can only add findings, never hide one: the table
// errs towards keeping (whether FSDP2 stays at 0 findings is checked on the
// GPU, test/gpu/torch-workloads.test).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_PRIVATELOCKFUNCTIONS_H
#define STREAMLIFE_RT_INTERCEPT_PRIVATELOCKFUNCTIONS_H

#include <string_view>

namespace streamlife {
namespace rt {

struct PrivateLockFunction {
  const char *Library;        ///< the library's file name, exactly
  const char *FunctionPrefix; ///< a prefix of the demangled function name
  const char *Why;            ///< what its lock guards
};

/// True when the file at Path is one of the table's libraries (exact base
/// name): only their callers are worth symbolizing.
bool mayHavePrivateLockFunctions(std::string_view Path);

/// The table's entry for the function named Function (demangled) in the
/// library at LibraryPath; null when none.
const PrivateLockFunction *privateLockFunction(std::string_view LibraryPath, std::string_view Function);

} // namespace rt
} // namespace streamlife

#endif
