//===- KernelArguments.cpp - parameter layout and argument words ----------===//
#include "intercept/KernelArguments.h"

#include "intercept/CudaLibraries.h"

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace streamlife {
namespace rt {

void appendParamWords(const void *Bytes, std::size_t Size, std::vector<Addr> &Words) {
  if (!Bytes)
    return;
  const unsigned char *P = static_cast<const unsigned char *>(Bytes);
  for (std::size_t Off = 0; Off + sizeof(Addr) <= Size; Off += sizeof(Addr)) {
    Addr W;
    std::memcpy(&W, P + Off, sizeof(W)); // argument storage need not be aligned
    if (W)
      Words.push_back(W);
  }
}

void wordsFromKernelParams(void *const *KernelParams, const std::vector<ParamSlot> &Layout,
                           std::vector<Addr> &Words) {
  if (!KernelParams)
    return;
  for (std::size_t I = 0; I < Layout.size(); ++I)
    if (Layout[I].Size >= sizeof(Addr))
      appendParamWords(KernelParams[I], Layout[I].Size, Words);
}

bool wordsFromExtra(void *const *Extra, std::vector<Addr> &Words) {
  const unsigned char *Buffer = nullptr;
  std::size_t Size = 0;
  if (!packedArguments(Extra, Buffer, Size))
    return false;
  appendParamWords(Buffer, Size, Words);
  return true;
}

bool packedArguments(void *const *Extra, const unsigned char *&Out, std::size_t &OutSize) {
  if (!Extra)
    return false;
  const void *Buffer = nullptr;
  std::size_t Size = 0;
  bool HaveSize = false;
  for (int I = 0; I < 64; I += 2) {
    void *Tag = Extra[I];
    if (Tag == CU_LAUNCH_PARAM_END)
      break;
    if (Tag == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      Buffer = Extra[I + 1];
    } else if (Tag == CU_LAUNCH_PARAM_BUFFER_SIZE) {
      if (!Extra[I + 1])
        return false;
      Size = *static_cast<const std::size_t *>(Extra[I + 1]);
      HaveSize = true;
    } else {
      return false; // an unknown tag: the rest of the list cannot be trusted
    }
  }
  if (!Buffer || !HaveSize)
    return false;
  Out = static_cast<const unsigned char *>(Buffer);
  OutSize = Size;
  return true;
}

KernelInfoCache::KernelInfoCache(const DriverApi &Driver) : Driver(Driver) {
  static std::atomic<std::uint64_t> Caches{0};
  Serial = ++Caches;
}

namespace detail {
thread_local LastKernel RecentKernelsOfThread[RecentKernelSlots];
} // namespace detail

namespace {
detail::LastKernel &recentKernelSlot(void *Function) {
  // Handles are aligned objects: the bits above the alignment pick the slot.
  auto Bits = reinterpret_cast<std::uintptr_t>(Function);
  return detail::RecentKernelsOfThread[((Bits >> 4) ^ (Bits >> 12)) % detail::RecentKernelSlots];
}
} // namespace

const KernelInfo *KernelInfoCache::recentOfThread(void *Function) const {
  const detail::LastKernel &Recent = recentKernelSlot(Function);
  return Recent.Function == Function && Recent.Cache == Serial ? Recent.Info : nullptr;
}

const KernelInfo *KernelInfoCache::findShared(void *Function) const {
  // Keyed on the cache's serial, not its address: a cache made where an
  // earlier one was destroyed must not find that one's entries. Entries are
  // never erased, so a pointer the thread remembers stays right.
  if (const KernelInfo *Recent = recentOfThread(Function)) {
    detail::LastKernelOfThread = detail::LastKernel{Function, Recent, Serial};
    return Recent;
  }
  const KernelInfo *Found = nullptr;
  {
    std::shared_lock<std::shared_mutex> Guard(Lock);
    auto It = Infos.find(Function);
    if (It != Infos.end())
      Found = &It->second;
  }
  if (Found) {
    detail::LastKernelOfThread = detail::LastKernel{Function, Found, Serial};
    recentKernelSlot(Function) = detail::LastKernelOfThread;
  }
  return Found;
}

const KernelInfo *KernelInfoCache::get(void *Function, const char *SymbolName, OpTable &Ops) {
  if (const KernelInfo *Known = find(Function))
    return Known;
  KernelInfo Info;
  // CUPTI names the kernel with each launch; the driver's entry points do
  // not, so the driver is asked here, once per kernel. The handle is a
  // CUkernel or a CUfunction, as for the parameter layout below.
  if (!SymbolName && Driver.KernelGetName &&
      Driver.KernelGetName(&SymbolName, reinterpret_cast<CUkernel>(Function)) != CUDA_SUCCESS)
    SymbolName = nullptr;
  if (!SymbolName && Driver.FuncGetName &&
      Driver.FuncGetName(&SymbolName, reinterpret_cast<CUfunction>(Function)) != CUDA_SUCCESS)
    SymbolName = nullptr;
  std::string Name = SymbolName ? SymbolName : "<unnamed>";
  int Status = 0;
  if (char *Demangled = abi::__cxa_demangle(Name.c_str(), nullptr, nullptr, &Status)) {
    if (Status == 0)
      Name = Demangled;
    std::free(Demangled);
  }
  Info.Name = Ops.internName("kernel '" + Name + "'");
  Info.GenericName = Ops.internName("kernel '" + Name + "' (pointer found by a generic scan of its parameters)");
  // The handle in cuLaunchKernel(Ex) is in practice a CUkernel (library-based
  // loading since CUDA 12): cuFuncGetParamInfo rejects it with 400, while
  // cuKernelGetParamInfo works (measured, runtime-notes section 8). Modules
  // loaded with cuModuleLoad* still give CUfunctions, hence the fallback.
  // CUDA 13.0 has no parameter-count call: ask until the index is rejected.
  // A kernel without parameters answers index 0 with CUDA_ERROR_INVALID_VALUE,
  // a handle of the wrong kind with CUDA_ERROR_INVALID_HANDLE.
  auto Query = [&](auto Fn, auto Handle) {
    std::vector<ParamSlot> Layout;
    for (std::size_t I = 0; I < 4096; ++I) {
      size_t Off = 0, Sz = 0;
      CUresult Rc = Fn(Handle, I, &Off, &Sz);
      if (Rc != CUDA_SUCCESS) {
        bool Known = I > 0 || Rc == CUDA_ERROR_INVALID_VALUE;
        return std::make_pair(Known, Layout);
      }
      Layout.push_back(ParamSlot{static_cast<std::uint32_t>(Off), static_cast<std::uint32_t>(Sz)});
    }
    return std::make_pair(true, Layout);
  };
  if (Driver.KernelGetParamInfo) {
    auto [Ok, Layout] = Query(Driver.KernelGetParamInfo, reinterpret_cast<CUkernel>(Function));
    if (Ok) {
      Info.LayoutKnown = true;
      Info.Layout = std::move(Layout);
    }
  }
  if (!Info.LayoutKnown && Driver.FuncGetParamInfo) {
    auto [Ok, Layout] = Query(Driver.FuncGetParamInfo, reinterpret_cast<CUfunction>(Function));
    if (Ok) {
      Info.LayoutKnown = true;
      Info.Layout = std::move(Layout);
    }
  }
  if (Info.LayoutKnown) {
    Info.Plan = planFor(Name, Info.Layout);
    Info.GenericPlan = Info.Plan->generic();
    if (Info.GenericPlan)
      Info.GenericWords = genericWordSlots(Info.Layout);
  }
  {
    std::unique_lock<std::shared_mutex> Guard(Lock);
    // Another thread may have inserted it meanwhile; emplace keeps the first.
    Infos.emplace(Function, std::move(Info));
  }
  return find(Function);
}

std::vector<KernelInfo::WordSlot> genericWordSlots(const std::vector<ParamSlot> &Layout) {
  std::vector<KernelInfo::WordSlot> Slots;
  for (std::size_t I = 0; I < Layout.size(); ++I) {
    std::size_t Size = Layout[I].Size;
    for (std::size_t Off = 0; Off + sizeof(Addr) <= Size; Off += sizeof(Addr))
      Slots.push_back(KernelInfo::WordSlot{static_cast<std::uint32_t>(I), static_cast<std::uint32_t>(Off),
                                           Size != sizeof(Addr)});
  }
  return Slots;
}

} // namespace rt
} // namespace streamlife
