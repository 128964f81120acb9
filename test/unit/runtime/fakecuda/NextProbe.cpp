//===- NextProbe.cpp - another preloaded interposer of a driver function --===//
//
// A tool of someone else's preloaded beside the validator: it defines
// cuStreamWaitEvent, finds the definition after its own with
// dlsym(RTLD_NEXT), counts and forwards. RTLD_NEXT is relative to the object
// that calls dlsym, so this only works while the validator's interposed dlsym
// keeps the caller's return address (DriverEntryPoints.cpp): otherwise the
// lookup would be made "after the validator" and could return this very
// function. At exit it says where its calls went.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using WaitFn = CUresult (*)(CUstream, CUevent, unsigned);
std::atomic<unsigned long> Forwarded{0};
const char *NextLibrary = "nothing";

void report() {
  std::fprintf(stderr, "next-probe: %lu cuStreamWaitEvent call(s) forwarded to %s\n", Forwarded.load(),
               NextLibrary);
}

const bool Registered = std::atexit(report) == 0;

} // namespace

extern "C" CUresult cuStreamWaitEvent(CUstream Stream, CUevent Event, unsigned Flags) {
  static WaitFn Next = [] {
    auto F = reinterpret_cast<WaitFn>(dlsym(RTLD_NEXT, "cuStreamWaitEvent"));
    Dl_info Info, Own;
    // &cuStreamWaitEvent would name the first definition in the global
    // scope, not ours: compare objects instead.
    if (F && dladdr(reinterpret_cast<void *>(F), &Info) && Info.dli_fname &&
        dladdr(reinterpret_cast<void *>(&report), &Own)) {
      if (Info.dli_fbase == Own.dli_fbase)
        return WaitFn(nullptr);
      const char *Slash = std::strrchr(Info.dli_fname, '/');
      NextLibrary = Slash ? Slash + 1 : Info.dli_fname;
    }
    return F;
  }();
  if (!Next) {
    NextLibrary = "nothing, or itself";
    report();
    std::_Exit(3); // calling itself would recurse forever
  }
  Forwarded.fetch_add(1);
  return Next(Stream, Event, Flags);
}
