//===- KernelPlans.h - what a kernel's parameters mean ---------*- C++ -*-===//
//
// A launch's parameter bytes are not a list of pointers. PyTorch's
// multi_tensor_apply kernels take a 4 KB metadata struct by value whose slots
// beyond this launch's tensors keep stale pointers of earlier launches; the
// OffsetCalculators inside TensorIterator kernels leave every dimension past
// the tensor's own uninitialized (stack garbage, old pointers included);
// ReduceOp's second destination is garbage when there is one output. Reading
// every pointer-sized word as an access turned those into use-after-free
// reports on correct programs (issue 9).
//
// So each kernel gets a plan once, on first sight, from its demangled name and
// parameter layout (KernelPlanRegistry.cpp holds the table; one file per
// family). A plan decodes one launch into candidate pointers, each tagged with
// where it came from:
//   Decoded           a slot the family's layout says this launch reads or writes
//   PointerParameter  a parameter of exactly pointer size (an explicit argument,
//                     never stale storage)
//   GenericScan       a word inside a by-value struct of a kernel no plan knows
// The engine trusts the first two fully. A GenericScan word counts only when it
// points into a live allocation (engine: PointerWord::FromGenericScan): bytes
// that cannot be trusted may make the validator miss a dangling pointer, never
// report one that is not there. Findings name such accesses as found by a
// generic scan.
//
// Everything here reads host memory only (no driver): unit-tested on the CPU
// with synthetic parameter blocks.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_KERNELS_KERNELPLANS_H
#define STREAMLIFE_RT_INTERCEPT_KERNELS_KERNELPLANS_H

#include "engine/Engine.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace streamlife {
namespace rt {

struct ParamSlot {
  std::uint32_t Offset = 0; ///< in the device-side parameter buffer
  std::uint32_t Size = 0;
};

struct LaunchGrid {
  unsigned X = 1, Y = 1, Z = 1;
};

enum class AccessSource : std::uint8_t { Decoded, PointerParameter, GenericScan };

struct CandidatePointer {
  Addr Word = 0;
  AccessSource Source = AccessSource::GenericScan;
};

/// The bytes of one launch's parameters: either kernelParams (one pointer per
/// parameter) or a packed `extra` buffer laid out at the layout's offsets.
class LaunchParams {
public:
  LaunchParams(const std::vector<ParamSlot> &Layout, void *const *KernelParams)
      : Layout(Layout), KernelParams(KernelParams) {}
  LaunchParams(const std::vector<ParamSlot> &Layout, const unsigned char *Packed, std::size_t PackedSize)
      : Layout(Layout), Packed(Packed), PackedSize(PackedSize) {}

  std::size_t count() const { return Layout.size(); }
  std::size_t size(std::size_t I) const { return Layout[I].Size; }
  /// Bytes of parameter I, or null when they are not available. Inline: the
  /// decoders ask once per parameter of every launch.
  const unsigned char *bytes(std::size_t I) const {
    if (I >= Layout.size())
      return nullptr;
    if (KernelParams)
      return static_cast<const unsigned char *>(KernelParams[I]);
    if (Packed && static_cast<std::size_t>(Layout[I].Offset) + Layout[I].Size <= PackedSize)
      return Packed + Layout[I].Offset;
    return nullptr;
  }

private:
  const std::vector<ParamSlot> &Layout;
  void *const *KernelParams = nullptr;
  const unsigned char *Packed = nullptr;
  std::size_t PackedSize = 0;
};

/// How one kernel's launches are decoded; made once per kernel.
class KernelPlan {
public:
  virtual ~KernelPlan();
  /// Short family name for statistics ("multi_tensor_apply", "generic").
  virtual const char *family() const = 0;
  /// Appends this launch's candidate pointers. False when the bytes do not fit
  /// the family's layout (nothing is appended then; the caller falls back to
  /// the generic rule).
  virtual bool decode(const LaunchParams &P, LaunchGrid Grid, std::vector<CandidatePointer> &Out) const = 0;
  /// True for the generic rule's plan (genericScan, always fits): its
  /// launches may be read by genericScanWords instead (LaunchWords.cpp).
  virtual bool generic() const { return false; }
};

/// The plan for a kernel: the family whose name pattern matches and whose
/// layout check accepts this parameter layout, else the generic rule.
std::unique_ptr<KernelPlan> planFor(std::string_view DemangledName, const std::vector<ParamSlot> &Layout);

/// The rule for kernels without a family: a pointer-sized parameter is a
/// PointerParameter, the 8-byte words of a larger one are GenericScan words.
void genericScan(const LaunchParams &P, std::vector<CandidatePointer> &Out);

// --- helpers shared by the family files ---------------------------------------
/// Reads a T at Offset of Bytes (unaligned storage is fine).
template <typename T> T readAt(const unsigned char *Bytes, std::size_t Offset);
/// Appends the non-null 8-byte word at Offset.
inline void takeWord(const unsigned char *Bytes, std::size_t Offset, AccessSource Source,
                     std::vector<CandidatePointer> &Out) {
  Addr W;
  std::memcpy(&W, Bytes + Offset, sizeof(W));
  if (W)
    Out.push_back(CandidatePointer{W, Source});
}
/// The template argument list that starts after Name's first occurrence of
/// Open ("Foo<"), up to the matching '>', split at top-level commas. Empty
/// when Open does not occur.
std::vector<std::string_view> templateArguments(std::string_view Name, std::string_view Open);

// Family factories (one file each); null when the name does not match.
std::unique_ptr<KernelPlan> makeMultiTensorApplyPlan(std::string_view Name, const std::vector<ParamSlot> &Layout);
std::unique_ptr<KernelPlan> makeElementwisePlan(std::string_view Name, const std::vector<ParamSlot> &Layout);
std::unique_ptr<KernelPlan> makeReducePlan(std::string_view Name, const std::vector<ParamSlot> &Layout);
std::unique_ptr<KernelPlan> makeCatBatchedCopyPlan(std::string_view Name, const std::vector<ParamSlot> &Layout);

} // namespace rt
} // namespace streamlife

#endif
