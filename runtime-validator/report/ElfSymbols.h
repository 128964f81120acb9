//===- ElfSymbols.h - function names from a module's own symbol table -*- C++ -*-===//
//
// dladdr() only knows a module's dynamic (exported) symbols: for a static or
// internal function of an executable it returns the nearest exported symbol
// before it, which names the wrong function. The static symbol table (.symtab),
// present unless the module was stripped, has every function with its size, so
// a return address is named exactly. Read once per module: at report time, and
// for the callers of a lock in the few libraries intercept/PrivateLockFunctions.h
// lists, at their first sight.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_ELFSYMBOLS_H
#define STREAMLIFE_RT_REPORT_ELFSYMBOLS_H

#include <cstdint>
#include <string>

namespace streamlife {
namespace rt {

/// The (mangled) name of the function in the ELF file at ModulePath that holds
/// Address, where Address is an offset from the module's load base (shared
/// objects, PIE executables) or absolute (ET_EXEC executables, pass both).
/// Empty when the file has no .symtab or no function contains the address.
std::string elfFunctionAt(const std::string &ModulePath, std::uintptr_t ModuleOffset,
                          std::uintptr_t AbsoluteAddress);

} // namespace rt
} // namespace streamlife

#endif
