//===- ImportBinding.cpp - an object's imports bound past the validator ---===//
#include "intercept/ImportBinding.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace streamlife {
namespace rt {

#if defined(__x86_64__) || defined(__aarch64__)
namespace {

#if defined(__x86_64__)
constexpr unsigned JumpSlot = R_X86_64_JUMP_SLOT;
constexpr unsigned GlobDat = R_X86_64_GLOB_DAT;
#else
constexpr unsigned JumpSlot = R_AARCH64_JUMP_SLOT;
constexpr unsigned GlobDat = R_AARCH64_GLOB_DAT;
#endif

/// The object's RELRO pages, as the dynamic linker protected them: from the
/// segment's first page to the last page it covers whole (_dl_protect_relro).
struct RelroRange {
  std::uintptr_t Begin = 0, End = 0;
  const link_map *Object = nullptr;
};

int findRelro(dl_phdr_info *Info, std::size_t, void *Data) {
  auto *Range = static_cast<RelroRange *>(Data);
  const char *Name = Info->dlpi_name ? Info->dlpi_name : "";
  const char *Wanted = Range->Object->l_name ? Range->Object->l_name : "";
  if (Info->dlpi_addr != Range->Object->l_addr || std::strcmp(Name, Wanted) != 0)
    return 0;
  const std::uintptr_t Page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  for (ElfW(Half) I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &Segment = Info->dlpi_phdr[I];
    if (Segment.p_type != PT_GNU_RELRO)
      continue;
    const std::uintptr_t Start = Info->dlpi_addr + Segment.p_vaddr;
    Range->Begin = Start & ~(Page - 1);
    Range->End = (Start + Segment.p_memsz) & ~(Page - 1);
  }
  return 1;
}

/// A dynamic-section address: the dynamic linker has added the load bias to
/// most of them in place on these targets; one it has not is still relative.
std::uintptr_t absolute(const link_map *Object, ElfW(Addr) Value) {
  return Value < Object->l_addr ? Object->l_addr + Value : Value;
}

/// The object's symbol and string tables and its two RELA tables.
struct DynamicTables {
  const ElfW(Sym) *Symbols = nullptr;
  const char *Strings = nullptr;
  const ElfW(Rela) *Plt = nullptr;
  std::size_t PltBytes = 0;
  bool PltIsRela = true;
  const ElfW(Rela) *Rela = nullptr;
  std::size_t RelaBytes = 0;
};

DynamicTables readDynamic(const link_map *Object) {
  DynamicTables T;
  for (const ElfW(Dyn) *D = Object->l_ld; D && D->d_tag != DT_NULL; ++D) {
    switch (D->d_tag) {
    case DT_SYMTAB:
      T.Symbols = reinterpret_cast<const ElfW(Sym) *>(absolute(Object, D->d_un.d_ptr));
      break;
    case DT_STRTAB:
      T.Strings = reinterpret_cast<const char *>(absolute(Object, D->d_un.d_ptr));
      break;
    case DT_JMPREL:
      T.Plt = reinterpret_cast<const ElfW(Rela) *>(absolute(Object, D->d_un.d_ptr));
      break;
    case DT_PLTRELSZ:
      T.PltBytes = D->d_un.d_val;
      break;
    case DT_PLTREL:
      T.PltIsRela = D->d_un.d_val == DT_RELA;
      break;
    case DT_RELA:
      T.Rela = reinterpret_cast<const ElfW(Rela) *>(absolute(Object, D->d_un.d_ptr));
      break;
    case DT_RELASZ:
      T.RelaBytes = D->d_un.d_val;
      break;
    default:
      break;
    }
  }
  return T;
}

/// Stores Definition into Slot, making a RELRO page writable for the store.
bool store(void **Slot, void *Definition, const RelroRange &Relro) {
  if (__atomic_load_n(Slot, __ATOMIC_RELAXED) == Definition)
    return true;
  const auto Address = reinterpret_cast<std::uintptr_t>(Slot);
  if (Address < Relro.Begin || Address >= Relro.End) {
    __atomic_store_n(Slot, Definition, __ATOMIC_RELEASE);
    return true;
  }
  const std::uintptr_t Page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  void *PageStart = reinterpret_cast<void *>(Address & ~(Page - 1));
  if (mprotect(PageStart, Page, PROT_READ | PROT_WRITE) != 0)
    return false;
  __atomic_store_n(Slot, Definition, __ATOMIC_RELEASE);
  mprotect(PageStart, Page, PROT_READ);
  return true;
}

std::size_t bindTable(const link_map *Object, const DynamicTables &T, const ElfW(Rela) *Table, std::size_t Bytes,
                      const RelroRange &Relro, const ImportTarget *Targets, std::size_t Count) {
  std::size_t Bound = 0;
  for (std::size_t I = 0; I < Bytes / sizeof(ElfW(Rela)); ++I) {
    const ElfW(Rela) &R = Table[I];
    const unsigned Type = static_cast<unsigned>(ELF64_R_TYPE(R.r_info));
    const std::size_t Symbol = ELF64_R_SYM(R.r_info);
    if ((Type != JumpSlot && Type != GlobDat) || Symbol == 0)
      continue;
    const char *Name = T.Strings + T.Symbols[Symbol].st_name;
    for (std::size_t K = 0; K < Count; ++K) {
      if (!Targets[K].Definition || std::strcmp(Name, Targets[K].Name) != 0)
        continue;
      if (store(reinterpret_cast<void **>(Object->l_addr + R.r_offset), Targets[K].Definition, Relro))
        ++Bound;
      break;
    }
  }
  return Bound;
}

} // namespace

ImportBindingResult bindImports(const void *Address, const ImportTarget *Targets, std::size_t Count) {
  ImportBindingResult Result;
  Dl_info Info;
  link_map *Object = nullptr;
  if (!dladdr1(Address, &Info, reinterpret_cast<void **>(&Object), RTLD_DL_LINKMAP) || !Object)
    return Result;
  const DynamicTables T = readDynamic(Object);
  if (!T.Symbols || !T.Strings)
    return Result;
  RelroRange Relro;
  Relro.Object = Object;
  dl_iterate_phdr(findRelro, &Relro);
  Result.Found = true;
  Result.Object = Object->l_name ? Object->l_name : "";
  if (T.Plt && T.PltIsRela)
    Result.Slots += bindTable(Object, T, T.Plt, T.PltBytes, Relro, Targets, Count);
  if (T.Rela)
    Result.Slots += bindTable(Object, T, T.Rela, T.RelaBytes, Relro, Targets, Count);
  return Result;
}

#else

ImportBindingResult bindImports(const void *, const ImportTarget *, std::size_t) { return {}; }

#endif

} // namespace rt
} // namespace streamlife
