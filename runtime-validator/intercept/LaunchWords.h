//===- LaunchWords.h - the candidate pointers of one launch -----*- C++ -*-===//
//
// What InterceptLaunches hands the engine for one kernel launch: the words its
// parameters point with, each marked whether only the generic rule found it
// (KernelPlans.h), read from kernelParams or a packed `extra` buffer through
// the kernel's plan. Host memory only, no driver and no lock: the CPU
// benchmark (bench/runtime/cpu/launch_decode_cost.cpp) and the unit tests
// call the very code a launch runs.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_LAUNCHWORDS_H
#define STREAMLIFE_RT_INTERCEPT_LAUNCHWORDS_H

#include "intercept/KernelArguments.h"

#include <vector>

namespace streamlife {
namespace rt {

/// How one launch's parameters were read.
struct LaunchDecoding {
  /// False when they could not be read (a malformed `extra` list, or
  /// kernelParams of a kernel whose layout the driver did not give).
  bool Analysed = true;
  /// The plan family that decoded them ("generic" for the generic rule), for
  /// intercept_stats; null when no plan ran (nothing to read, or an opaque
  /// `extra` blob of unknown layout, scanned word by word).
  const char *Family = nullptr;
};

/// Replaces Words with the candidate pointers of one launch of Info's kernel.
LaunchDecoding launchPointerWords(const KernelInfo &Info, void *const *KernelParams, void *const *Extra,
                                  LaunchGrid Grid, std::vector<PointerWord> &Words);

/// genericScan's words of a kernelParams launch of Info's kernel, written
/// straight as the engine's PointerWords at the slots laid out at first sight
/// (KernelInfo::GenericWords): what launchPointerWords does for a kernel
/// whose plan is the generic rule (KernelInfo::GenericPlan), without the
/// plan's two virtual calls, the per-parameter size checks and the candidate
/// list it copies from. Appends to Words.
void genericScanWords(const KernelInfo &Info, void *const *KernelParams, std::vector<PointerWord> &Words);

} // namespace rt
} // namespace streamlife

#endif
