//===- ElfSymbols.cpp - .symtab lookup -------------------------------------===//
#include "report/ElfSymbols.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace streamlife {
namespace rt {

namespace {

struct FunctionSymbol {
  std::uint64_t Begin = 0;
  std::uint64_t Size = 0;
  const char *Name = nullptr; ///< in the file's mapping, ends before StringsEnd
};

/// The file stays mapped (never unmapped: the cache lives as long as the
/// process) and names point into its string table: a library's symbol
/// table is read without a copy of every name (libtorch_cpu.so's hold
/// hundreds of thousands; the first caller named in it, inside a lock call
/// of the program, paid for their copies, CallerLibraries.h). A file whose
/// mapping goes away under it would take the process's own mapping of the
/// library with it.
struct ModuleSymbols {
  bool Executable = false; ///< ET_EXEC: symbol values are absolute addresses
  std::vector<FunctionSymbol> Functions; ///< sorted by Begin
  /// The end of the string table, which a name's length is bounded by:
  /// measured only when looked up, so that the table's pages are read only
  /// for the names asked.
  const char *StringsEnd = nullptr;
};

std::unique_ptr<ModuleSymbols> readSymbols(const std::string &Path) {
  auto Result = std::make_unique<ModuleSymbols>();
  int Fd = open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return Result;
  struct stat St;
  if (fstat(Fd, &St) != 0 || St.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    close(Fd);
    return Result;
  }
  std::size_t Size = static_cast<std::size_t>(St.st_size);
  void *Map = mmap(nullptr, Size, PROT_READ, MAP_PRIVATE, Fd, 0);
  close(Fd);
  if (Map == MAP_FAILED)
    return Result;
  const auto *Base = static_cast<const unsigned char *>(Map);
  const auto *Eh = reinterpret_cast<const Elf64_Ehdr *>(Base);
  auto InFile = [&](std::uint64_t Off, std::uint64_t Len) { return Off <= Size && Len <= Size - Off; };
  if (std::equal(Eh->e_ident, Eh->e_ident + SELFMAG, ELFMAG) && Eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      InFile(Eh->e_shoff, std::uint64_t(Eh->e_shnum) * sizeof(Elf64_Shdr))) {
    Result->Executable = Eh->e_type == ET_EXEC;
    const auto *Sections = reinterpret_cast<const Elf64_Shdr *>(Base + Eh->e_shoff);
    for (unsigned I = 0; I < Eh->e_shnum; ++I) {
      const Elf64_Shdr &Sym = Sections[I];
      if (Sym.sh_type != SHT_SYMTAB || Sym.sh_link >= Eh->e_shnum || !InFile(Sym.sh_offset, Sym.sh_size))
        continue;
      const Elf64_Shdr &Str = Sections[Sym.sh_link];
      if (!InFile(Str.sh_offset, Str.sh_size))
        continue;
      const auto *Syms = reinterpret_cast<const Elf64_Sym *>(Base + Sym.sh_offset);
      const char *Strings = reinterpret_cast<const char *>(Base + Str.sh_offset);
      Result->StringsEnd = Strings + Str.sh_size;
      for (std::size_t J = 0; J < Sym.sh_size / sizeof(Elf64_Sym); ++J) {
        const Elf64_Sym &S = Syms[J];
        if (ELF64_ST_TYPE(S.st_info) != STT_FUNC || !S.st_value || S.st_name >= Str.sh_size)
          continue;
        Result->Functions.push_back(FunctionSymbol{S.st_value, S.st_size, Strings + S.st_name});
      }
      break; // a file has one SHT_SYMTAB, and StringsEnd bounds its names
    }
  }
  if (Result->Functions.empty())
    munmap(Map, Size);
  std::sort(Result->Functions.begin(), Result->Functions.end(),
            [](const FunctionSymbol &A, const FunctionSymbol &B) { return A.Begin < B.Begin; });
  return Result;
}

} // namespace

std::string elfFunctionAt(const std::string &ModulePath, std::uintptr_t ModuleOffset,
                          std::uintptr_t AbsoluteAddress) {
  // Never destroyed: the summary at exit symbolizes (allocation sites) after
  // static destructors registered later than our exit handler have run.
  static auto &Lock = *new std::mutex;
  static auto &Cache = *new std::map<std::string, std::unique_ptr<ModuleSymbols>>;
  std::lock_guard<std::mutex> Guard(Lock);
  std::unique_ptr<ModuleSymbols> &Module = Cache[ModulePath];
  if (!Module)
    Module = readSymbols(ModulePath);
  std::uint64_t Address = Module->Executable ? AbsoluteAddress : ModuleOffset;
  const std::vector<FunctionSymbol> &Fns = Module->Functions;
  auto It = std::upper_bound(Fns.begin(), Fns.end(), Address,
                             [](std::uint64_t A, const FunctionSymbol &F) { return A < F.Begin; });
  if (It == Fns.begin())
    return "";
  --It;
  if (Address >= It->Begin + std::max<std::uint64_t>(It->Size, 1))
    return "";
  return std::string(It->Name, strnlen(It->Name, static_cast<std::size_t>(Module->StringsEnd - It->Name)));
}

} // namespace rt
} // namespace streamlife
