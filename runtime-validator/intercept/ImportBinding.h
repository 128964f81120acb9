//===- ImportBinding.h - an object's imports bound past the validator -*- C++ -*-===//
//
// The validator defines the pthread lock functions, so the dynamic linker
// binds every object's calls of them to its interposers
// (InterceptThreads.cpp). For the libraries whose locks order nothing
// (CallerLibraries.h: the CUDA driver, CUPTI, the CUDA libraries, PyTorch's
// CUDA allocator) the interposer only calls the real function, and the
// driver alone takes about 12 locks a launch-bound step (a probe whose
// interposers counted each lock measured 0.2 µs a step on the H200; the
// validator's own way of passing one on costs about 0.5 ns on the CPU:
// bench/runtime/README.md, sessions 15 and 16). So once such a library's lock
// call is first seen, its
// import slots for those functions (the GOT entries that its PLT stubs, or
// its -fno-plt calls, jump through) are written with the functions the
// interposers would have called: its later calls go straight there, as they
// would without the validator.
//
// The slots are found through the object's dynamic section: its PLT
// relocations (DT_JMPREL) and its other RELA relocations (DT_RELA, for the
// GLOB_DAT slots of -fno-plt code), matched by symbol name. A slot inside the
// object's RELRO range (read-only after relocation: BIND_NOW objects) is made
// writable for the store and read-only again, as the dynamic linker leaves
// it. A slot holds one aligned pointer, so a thread calling through it
// meanwhile jumps to either function, both correct.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_IMPORTBINDING_H
#define STREAMLIFE_RT_INTERCEPT_IMPORTBINDING_H

#include <cstddef>

namespace streamlife {
namespace rt {

/// An imported function by name, and the definition its slots are to hold.
struct ImportTarget {
  const char *Name;
  void *Definition;
};

/// What binding an object's imports found.
struct ImportBindingResult {
  bool Found = false;    ///< the object holding the address was found and read
  std::size_t Slots = 0; ///< slots that now hold their target's definition
  const char *Object = nullptr; ///< its path as the dynamic linker names it
                                ///< ("" for the executable)
};

/// Writes each target's definition into the import slots, of the object that
/// holds Address, that name the target. A target whose Definition is null is
/// left alone. Not thread-safe against itself (callers serialize); safe
/// against threads calling through the slots. Linux/ELF on x86-64 and
/// AArch64; elsewhere it finds nothing.
ImportBindingResult bindImports(const void *Address, const ImportTarget *Targets, std::size_t Count);

} // namespace rt
} // namespace streamlife

#endif
