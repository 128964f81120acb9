//===- CallSiteNames.cpp - symbolization and the frames a report prints ---===//
#include "report/CallSiteNames.h"

#include "report/ElfSymbols.h"
#include "report/SourceLocations.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace streamlife {
namespace rt {

Frame symbolize(void *ReturnAddress) {
  // Symbolize the call instruction, not the one after it.
  void *CallPC = static_cast<char *>(ReturnAddress) - 1;
  Dl_info Info;
  void *SymbolEntry = nullptr; // dladdr's symbol (ElfW(Sym)), for its size
  if (!dladdr1(CallPC, &Info, &SymbolEntry, RTLD_DL_SYMENT)) {
    Frame F;
    F.PC = ReturnAddress;
    return F;
  }
  return symbolizeCall(ReturnAddress, Info, SymbolEntry);
}

Frame symbolizeCall(void *ReturnAddress, const Dl_info &Info, const void *SymbolEntry) {
  Frame F;
  F.PC = ReturnAddress;
  void *CallPC = static_cast<char *>(ReturnAddress) - 1;
  const auto *Symbol = static_cast<const ElfW(Sym) *>(SymbolEntry);
  if (Info.dli_fname)
    F.Module = Info.dli_fname;
  F.ModuleOffset = reinterpret_cast<std::uintptr_t>(CallPC) -
                   reinterpret_cast<std::uintptr_t>(Info.dli_fbase);
  // The module's own symbol table names static functions exactly; dladdr's
  // nearest exported symbol is only a fallback (it may be another function).
  // dladdr names the main executable by its argv[0], which may be relative
  // to a directory the program has left; /proc/self/exe is always right.
  std::string Name;
  if (!F.Module.empty() && !isRuntimeModule(F.Module)) {
    bool MainProgram = program_invocation_name && F.Module == program_invocation_name;
    Name = elfFunctionAt(MainProgram ? std::string("/proc/self/exe") : F.Module, F.ModuleOffset,
                         reinterpret_cast<std::uintptr_t>(CallPC));
  }
  F.FunctionHoldsCall = !Name.empty();
  if (Name.empty() && Info.dli_sname) {
    Name = Info.dli_sname;
    auto Start = reinterpret_cast<std::uintptr_t>(Info.dli_saddr);
    auto Call = reinterpret_cast<std::uintptr_t>(CallPC);
    F.FunctionHoldsCall = Symbol && Call >= Start && Call - Start < Symbol->st_size;
  }
  if (!Name.empty()) {
    int Status = 0;
    char *Demangled = abi::__cxa_demangle(Name.c_str(), nullptr, nullptr, &Status);
    F.Function = Status == 0 && Demangled ? Demangled : Name;
    std::free(Demangled);
  }
  return F;
}

namespace {
/// noteValidatorModule's paths: one per feed loaded (a process loads one),
/// read at report time and at a lock caller's first sight only.
struct NotedModules {
  std::mutex Lock;
  std::vector<std::string> Paths;
};
NotedModules &notedModules() {
  static auto *Noted = new NotedModules; // never destroyed: the summary is printed at exit
  return *Noted;
}
} // namespace

void noteValidatorModule(const std::string &Path) {
  NotedModules &Noted = notedModules();
  std::lock_guard<std::mutex> Guard(Noted.Lock);
  if (std::find(Noted.Paths.begin(), Noted.Paths.end(), Path) == Noted.Paths.end())
    Noted.Paths.push_back(Path);
}

bool isNotedValidatorModule(std::string_view ModulePath) {
  NotedModules &Noted = notedModules();
  std::lock_guard<std::mutex> Guard(Noted.Lock);
  return std::find(Noted.Paths.begin(), Noted.Paths.end(), ModulePath) != Noted.Paths.end();
}

bool isRuntimeModule(std::string_view ModulePath) {
  if (isNotedValidatorModule(ModulePath))
    return true;
  std::size_t Slash = ModulePath.rfind('/');
  std::string_view Base = Slash == std::string_view::npos ? ModulePath : ModulePath.substr(Slash + 1);
  for (std::string_view Prefix :
       {"libcuda.so", "libcudart.so", "libcupti.so", "libstreamlife_rt.so", "libcudart_static"})
    if (Base.substr(0, Prefix.size()) == Prefix)
      return true;
  return false;
}

std::vector<Frame> userFrames(const std::vector<void *> &Frames, int Keep) {
  std::vector<Frame> Out;
  bool InUserCode = false;
  for (void *PC : Frames) {
    if (static_cast<int>(Out.size()) >= Keep)
      break;
    Frame F = symbolize(PC);
    if (!InUserCode && (F.Module.empty() || isRuntimeModule(F.Module)))
      continue;
    InUserCode = true;
    Out.push_back(std::move(F));
  }
  return Out;
}

std::string formatFrame(const Frame &F, const std::string &SourceLocation) {
  char Offset[32];
  std::snprintf(Offset, sizeof(Offset), "+0x%zx", static_cast<std::size_t>(F.ModuleOffset));
  std::string Where = "(" + (F.Module.empty() ? std::string("<unknown module>") : F.Module) + Offset + ")";
  if (!SourceLocation.empty())
    Where = SourceLocation + " " + Where;
  return F.Function.empty() ? Where : F.Function + " " + Where;
}

namespace {

/// Index of the innermost Python frame in user code (or 0 when all are library frames).
std::size_t firstUserPythonFrame(const std::vector<PyFrameRef> &Python) {
  for (std::size_t I = 0; I < Python.size(); ++I)
    if (!isLibraryPythonFile(describePythonFrame(Python[I]).File))
      return I;
  return 0;
}

/// Source locations of native frames, one symbolizer run per module.
std::vector<std::string> sourceLocationsOf(const std::vector<Frame> &Frames,
                                           const std::string &Symbolizer) {
  if (Symbolizer.empty())
    return std::vector<std::string>(Frames.size());
  // dladdr names the main executable by argv[0], which may be relative to a
  // directory the program has left; the symbolizer needs the file itself.
  // Never destroyed: reports are still printed from the library's destructor.
  static const std::string &Self = *[] {
    char Path[4096];
    ssize_t N = readlink("/proc/self/exe", Path, sizeof(Path) - 1);
    return new std::string(N > 0 ? std::string(Path, static_cast<std::size_t>(N)) : std::string());
  }();
  std::vector<CodeAddress> Addresses;
  for (const Frame &F : Frames) {
    CodeAddress A;
    bool MainProgram = program_invocation_name && F.Module == program_invocation_name;
    A.Module = MainProgram && !Self.empty() ? Self : F.Module;
    A.ModuleOffset = F.ModuleOffset;
    A.Absolute = reinterpret_cast<std::uintptr_t>(F.PC) - 1; // the call, not the return
    Addresses.push_back(std::move(A));
  }
  return sourceLocations(Addresses, Symbolizer);
}

} // namespace

std::vector<std::string> reportFrames(const OpRecord &R, int Keep, const std::string &Symbolizer) {
  std::vector<std::string> Out;
  if (!R.Python.empty()) {
    for (std::size_t I = firstUserPythonFrame(R.Python);
         I < R.Python.size() && static_cast<int>(Out.size()) < Keep; ++I)
      Out.push_back(formatPythonFrame(R.Python[I]));
    return Out;
  }
  std::vector<Frame> Frames = userFrames(R.Frames, Keep);
  std::vector<std::string> Where = sourceLocationsOf(Frames, Symbolizer);
  for (std::size_t I = 0; I < Frames.size(); ++I)
    Out.push_back(formatFrame(Frames[I], Where[I]));
  return Out;
}

void prefetchSourceLocations(const std::vector<OpRecord> &Records, int Keep,
                             const std::string &Symbolizer) {
  if (Symbolizer.empty())
    return;
  std::vector<Frame> All;
  for (const OpRecord &R : Records)
    if (R.Python.empty())
      for (Frame &F : userFrames(R.Frames, Keep))
        All.push_back(std::move(F));
  sourceLocationsOf(All, Symbolizer); // fills the cache of report/SourceLocations
}

std::uint64_t callSiteKey(const OpRecord &R) {
  std::uint64_t Where = 0;
  if (!R.Python.empty()) {
    const PyFrameRef &F = R.Python[firstUserPythonFrame(R.Python)];
    Where = (std::uint64_t(1) << 63) | std::uint64_t(F.Code) << 32 | F.Line;
  } else {
    std::vector<Frame> User = userFrames(R.Frames, 1);
    Where = User.empty() ? 0 : reinterpret_cast<std::uintptr_t>(User.front().PC);
  }
  return Where * 1099511628211ull ^ R.Name;
}

} // namespace rt
} // namespace streamlife
