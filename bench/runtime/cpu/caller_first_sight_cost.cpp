//===- caller_first_sight_cost.cpp - classifying a lock's caller at first sight ===//
//
// An interposed lock call from a return address not seen before is
// classified once (intercept/CallerLibraries.h): dladdr, and for a caller in
// one of the libraries of intercept/PrivateLockFunctions.h (libtorch_cpu.so,
// libtorch_cuda.so, libc10.so) the function's name from the library's own
// symbol table (report/CallSiteNames.h), which the first such caller reads
// whole. This runs inside the program's lock call. The bench loads LIBRARY
// (name it libtorch_cpu.so, e.g. a symbolic link to a large library with a
// .symtab, to take the naming path) and classifies COUNT return addresses
// spread over its executable segment, then LIBC_COUNT (default COUNT)
// addresses in libc (the dladdr-only path of every other library).
//
//   caller_first_sight_cost LIBRARY [COUNT [LIBC_COUNT]]
//
// Prints the first caller's time, the mean of the others, the libc callers'
// mean, and the resident memory the first naming added. Wall times on a
// loaded machine: run it under callgrind for instruction counts (the
// inclusive cost of classifyCaller at COUNT LIBC_COUNT 1 0, 21 0 and 1 20).
// Exit 0; 2 on bad usage.
//
//===----------------------------------------------------------------------===//
#include "intercept/CallerLibraries.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace streamlife::rt;

namespace {

/// The executable segment of the loaded object whose name ends with Name.
struct Segment {
  const char *Name;
  std::uintptr_t Begin = 0, End = 0;
};

int findSegment(dl_phdr_info *Info, std::size_t, void *Data) {
  auto *S = static_cast<Segment *>(Data);
  std::size_t Len = std::strlen(Info->dlpi_name), Want = std::strlen(S->Name);
  if (Len < Want || std::strcmp(Info->dlpi_name + Len - Want, S->Name) != 0)
    return 0;
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type == PT_LOAD && (P.p_flags & PF_X)) {
      S->Begin = Info->dlpi_addr + P.p_vaddr;
      S->End = S->Begin + P.p_memsz;
      return 1;
    }
  }
  return 0;
}

std::vector<const void *> spreadOver(const char *Name, std::size_t Count) {
  Segment S{Name};
  dl_iterate_phdr(findSegment, &S);
  std::vector<const void *> Addresses;
  if (!S.Begin)
    return Addresses;
  // The same first addresses at every count of at most 1000.
  std::uintptr_t Step = (S.End - S.Begin) / (std::max<std::size_t>(Count, 1000) + 1);
  for (std::size_t I = 1; I <= Count; ++I)
    Addresses.push_back(reinterpret_cast<const void *>(S.Begin + I * Step + 1));
  return Addresses;
}

long residentKiB() {
  std::ifstream Status("/proc/self/status");
  std::string Line;
  while (std::getline(Status, Line))
    if (Line.rfind("VmRSS:", 0) == 0)
      return std::atol(Line.c_str() + 6);
  return 0;
}

double secondsOf(const std::vector<const void *> &Callers, std::size_t From, std::size_t To, int Kinds[]) {
  auto Start = std::chrono::steady_clock::now();
  for (std::size_t I = From; I < To; ++I)
    ++Kinds[static_cast<int>(classifyCaller(Callers[I]))];
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr, "usage: caller_first_sight_cost LIBRARY [COUNT [LIBC_COUNT]]\n");
    return 2;
  }
  std::size_t Count = Argc > 2 ? std::strtoul(Argv[2], nullptr, 10) : 1000;
  std::size_t LibcCount = Argc > 3 ? std::strtoul(Argv[3], nullptr, 10) : Count;
  if (!dlopen(Argv[1], RTLD_NOW | RTLD_LOCAL)) {
    std::fprintf(stderr, "caller_first_sight_cost: %s\n", dlerror());
    return 2;
  }
  const char *Base = std::strrchr(Argv[1], '/') ? std::strrchr(Argv[1], '/') + 1 : Argv[1];
  std::vector<const void *> InLibrary = spreadOver(Base, Count);
  std::vector<const void *> InLibc = spreadOver("libc.so.6", LibcCount);
  if (InLibrary.empty() || (LibcCount && InLibc.empty())) {
    std::fprintf(stderr, "caller_first_sight_cost: no executable segment of %s or libc\n", Base);
    return 2;
  }
  int Kinds[8] = {};
  long Before = residentKiB();
  double First = secondsOf(InLibrary, 0, 1, Kinds);
  long After = residentKiB();
  double Others = secondsOf(InLibrary, 1, InLibrary.size(), Kinds);
  double Libc = secondsOf(InLibc, 0, InLibc.size(), Kinds);
  std::printf("first caller in %s: %.1f ms (resident memory +%ld KiB)\n", Base, First * 1e3, After - Before);
  if (InLibrary.size() > 1)
    std::printf("each further caller in it: %.2f us (%zu)\n", Others * 1e6 / (InLibrary.size() - 1),
                InLibrary.size() - 1);
  if (!InLibc.empty())
    std::printf("each caller in libc: %.2f us (%zu)\n", Libc * 1e6 / InLibc.size(), InLibc.size());
  std::printf("kinds: program %d, private %d, private function %d\n", Kinds[int(CallerKind::Program)],
              Kinds[int(CallerKind::Private)], Kinds[int(CallerKind::PrivateFunction)]);
  return 0;
}
