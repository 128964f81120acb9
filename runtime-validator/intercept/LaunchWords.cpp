//===- LaunchWords.cpp - the candidate pointers of one launch -------------===//
#include "intercept/LaunchWords.h"

#include <cstring>

namespace streamlife {
namespace rt {

namespace {

/// The kernel's plan where the bytes fit it, else the generic rule.
const char *candidates(const KernelInfo &Info, const LaunchParams &P, LaunchGrid Grid,
                       std::vector<CandidatePointer> &Out) {
  if (Info.Plan && Info.Plan->decode(P, Grid, Out))
    return Info.Plan->family();
  genericScan(P, Out);
  return "generic";
}

} // namespace

void genericScanWords(const KernelInfo &Info, void *const *KernelParams, std::vector<PointerWord> &Words) {
  for (const KernelInfo::WordSlot &Slot : Info.GenericWords) {
    const auto *B = static_cast<const unsigned char *>(KernelParams[Slot.Param]);
    if (!B)
      continue;
    Addr W;
    std::memcpy(&W, B + Slot.Offset, sizeof(W));
    if (W)
      Words.push_back(PointerWord{W, Slot.FromGenericScan});
  }
}

/// launchPointerWords through the kernel's plan (out of line: its state gave
/// the generic rule's common case a frame).
static __attribute__((noinline)) LaunchDecoding launchPointerWordsByPlan(const KernelInfo &Info,
                                                                  void *const *KernelParams,
                                                                  void *const *Extra, LaunchGrid Grid,
                                                                  std::vector<PointerWord> &Words);

LaunchDecoding launchPointerWords(const KernelInfo &Info, void *const *KernelParams, void *const *Extra,
                                  LaunchGrid Grid, std::vector<PointerWord> &Words) {
  // The common case of a kernel without a family: read straight into Words.
  if (Info.GenericPlan && KernelParams && !Extra) {
    Words.clear();
    genericScanWords(Info, KernelParams, Words);
    LaunchDecoding Result;
    Result.Family = "generic";
    return Result;
  }
  return launchPointerWordsByPlan(Info, KernelParams, Extra, Grid, Words);
}

static LaunchDecoding launchPointerWordsByPlan(const KernelInfo &Info, void *const *KernelParams,
                                        void *const *Extra, LaunchGrid Grid,
                                        std::vector<PointerWord> &Words) {
  static thread_local std::vector<CandidatePointer> Found;
  Found.clear();
  LaunchDecoding Result;
  if (Extra) {
    const unsigned char *Packed = nullptr;
    std::size_t Size = 0;
    if (!packedArguments(Extra, Packed, Size)) {
      Result.Analysed = false;
    } else if (Info.LayoutKnown) {
      Result.Family = candidates(Info, LaunchParams(Info.Layout, Packed, Size), Grid, Found);
    } else { // one opaque blob: nothing in it can be trusted
      std::vector<ParamSlot> Whole{ParamSlot{0, static_cast<std::uint32_t>(Size)}};
      genericScan(LaunchParams(Whole, Packed, Size), Found);
    }
  } else if (KernelParams) {
    if (Info.LayoutKnown)
      Result.Family = candidates(Info, LaunchParams(Info.Layout, KernelParams), Grid, Found);
    else
      Result.Analysed = false;
  }
  Words.clear();
  for (const CandidatePointer &P : Found)
    Words.push_back(PointerWord{P.Word, P.Source == AccessSource::GenericScan});
  return Result;
}

} // namespace rt
} // namespace streamlife
