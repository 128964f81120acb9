//===- KernelArguments.h - pointers in a launch's argument bytes -*- C++ -*-===//
//
// A kernel can touch every allocation that one of its arguments points into,
// including pointers inside by-value structs (cuBLAS passes one params struct,
// Triton 128-byte TMA descriptors). The driver tells each parameter's offset
// and size (KernelInfoCache asks once per function); which of those bytes are
// pointers the kernel uses is the business of the kernel's plan
// (kernels/KernelPlans.h), chosen here on first sight from the demangled name.
// The word helpers below (no driver calls) read a packed `extra` buffer and
// scan raw bytes; they are unit-tested on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_KERNELARGUMENTS_H
#define STREAMLIFE_RT_INTERCEPT_KERNELARGUMENTS_H

#include "engine/Engine.h"
#include "intercept/kernels/KernelPlans.h"
#include "callsites/CallSites.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

struct DriverApi;

/// Appends the aligned 8-byte words of one parameter's bytes.
void appendParamWords(const void *Bytes, std::size_t Size, std::vector<Addr> &Words);
/// Words of a launch given as kernelParams (one pointer per parameter).
void wordsFromKernelParams(void *const *KernelParams, const std::vector<ParamSlot> &Layout,
                           std::vector<Addr> &Words);
/// Words of a launch given as an `extra` list (CU_LAUNCH_PARAM_BUFFER_POINTER /
/// _SIZE / _END). The packed buffer is scanned at every 8-aligned offset. False
/// when the list is malformed (nothing is read then).
bool wordsFromExtra(void *const *Extra, std::vector<Addr> &Words);
/// The packed parameter buffer of an `extra` list; false when it is malformed.
bool packedArguments(void *const *Extra, const unsigned char *&Buffer, std::size_t &Size);

struct KernelInfo {
  NameId Name = 0;
  /// The same kernel, named for accesses found by the generic rule.
  NameId GenericName = 0;
  bool LayoutKnown = false;
  std::vector<ParamSlot> Layout;
  /// How its launches are decoded (KernelPlans.h); set when LayoutKnown.
  std::shared_ptr<const KernelPlan> Plan;
  /// Plan is the generic rule: decided at first sight, so that a launch with
  /// kernelParams reads its words straight into the engine's list
  /// (launchPointerWords) without the plan's virtual calls and a second list.
  bool GenericPlan = false;
  /// Where the generic rule reads a word (genericWordSlots), laid out at first sight.
  struct WordSlot {
    std::uint32_t Param;
    std::uint32_t Offset;
    bool FromGenericScan; ///< a word of a parameter larger than a pointer
  };
  std::vector<WordSlot> GenericWords;
};

/// The words genericScan reads in a launch of Layout, in its order: every
/// 8-byte word of a parameter of at least 8 bytes.
std::vector<KernelInfo::WordSlot> genericWordSlots(const std::vector<ParamSlot> &Layout);

namespace detail {
/// The kernel the calling thread launched last and its cache's serial: a
/// launch loop launches the same kernel again and again, so a hit skips the
/// shared lock. Defined here, constant-initialized, so that the hit is inline
/// in the launch path (one %fs-relative load, no call).
struct LastKernel {
  void *Function = nullptr;
  const KernelInfo *Info = nullptr;
  std::uint64_t Cache = 0;
};
inline thread_local LastKernel LastKernelOfThread;
/// The kernels the calling thread found before, by handle, direct-mapped: a
/// training step launches a few hundred kernels in turn, so the last kernel
/// seldom matches, and the shared map's lock is a line that every launching
/// thread writes (FSDP2 one rank: `findShared` and the read lock 0.11 ms of a
/// 27 ms step, bench/runtime/README.md, session 28). Two kernels of one slot
/// evict each other, which only costs the shared lookup.
constexpr std::size_t RecentKernelSlots = 256;
extern thread_local LastKernel RecentKernelsOfThread[RecentKernelSlots];
} // namespace detail

class KernelInfoCache {
public:
  explicit KernelInfoCache(const DriverApi &Driver);
  /// Info for f, asking the driver on first sight. SymbolName is CUPTI's name
  /// of the launched kernel (null: the driver is asked for it). The entry lives as long as the
  /// cache (entries are never erased), so the pointer can be kept.
  const KernelInfo *get(void *Function, const char *SymbolName, OpTable &Ops);
  /// Info for f when it was seen before, else null; never calls the driver.
  const KernelInfo *find(void *Function) const {
    if (const KernelInfo *Info = lastOfThread(Function))
      return Info;
    return findShared(Function);
  }
  /// find()'s answer when Function is the kernel the calling thread found
  /// last, else null: no lock and no call, for the launch path to inline.
  const KernelInfo *lastOfThread(void *Function) const {
    const detail::LastKernel &Last = detail::LastKernelOfThread;
    return Function == Last.Function && Last.Cache == Serial ? Last.Info : nullptr;
  }

  /// find()'s answer when the calling thread found Function in this cache
  /// before and its slot of the thread's recent kernels still holds it, else
  /// null: no lock.
  const KernelInfo *recentOfThread(void *Function) const;

private:
  /// find()'s miss of the last kernel: the thread's recent kernels, then the
  /// shared map; remembered as the thread's last kernel.
  __attribute__((noinline)) const KernelInfo *findShared(void *Function) const;

  const DriverApi &Driver;
  std::uint64_t Serial; ///< distinct per cache made (find()'s per-thread memory is keyed on it)
  mutable std::shared_mutex Lock; ///< never held across a driver call
  std::unordered_map<void *, KernelInfo> Infos;
};

} // namespace rt
} // namespace streamlife

#endif
