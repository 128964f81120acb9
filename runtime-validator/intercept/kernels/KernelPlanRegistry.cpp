//===- KernelPlanRegistry.cpp - the table of kernel families --------------===//
//
// One row per family, tried in order on a kernel's demangled name. A family's
// factory checks its name pattern and that the parameter layout the driver
// reported fits what the family's source says; a kernel no row accepts gets
// the generic rule. Adding a family is one file and one row here.
//
//===----------------------------------------------------------------------===//
#include "intercept/kernels/KernelPlans.h"

#include <cstring>

namespace streamlife {
namespace rt {

KernelPlan::~KernelPlan() = default;

template <typename T> T readAt(const unsigned char *Bytes, std::size_t Offset) {
  T V;
  std::memcpy(&V, Bytes + Offset, sizeof(T));
  return V;
}
template std::int32_t readAt<std::int32_t>(const unsigned char *, std::size_t);
template std::uint32_t readAt<std::uint32_t>(const unsigned char *, std::size_t);
template std::int64_t readAt<std::int64_t>(const unsigned char *, std::size_t);
template std::uint64_t readAt<std::uint64_t>(const unsigned char *, std::size_t);
template std::uint8_t readAt<std::uint8_t>(const unsigned char *, std::size_t);

std::vector<std::string_view> templateArguments(std::string_view Name, std::string_view Open) {
  std::vector<std::string_view> Args;
  std::size_t At = Name.find(Open);
  if (At == std::string_view::npos)
    return Args;
  std::size_t Start = At + Open.size();
  int Depth = 0;
  for (std::size_t I = Start; I < Name.size(); ++I) {
    char C = Name[I];
    if (C == '<' || C == '(' || C == '[' || C == '{') {
      ++Depth;
    } else if (C == '>' || C == ')' || C == ']' || C == '}') {
      if (Depth == 0) {
        Args.push_back(Name.substr(Start, I - Start));
        return Args;
      }
      --Depth;
    } else if (C == ',' && Depth == 0) {
      Args.push_back(Name.substr(Start, I - Start));
      Start = I + 1;
      while (Start < Name.size() && Name[Start] == ' ')
        ++Start;
    }
  }
  return {}; // unbalanced: no arguments
}

void genericScan(const LaunchParams &P, std::vector<CandidatePointer> &Out) {
  for (std::size_t I = 0; I < P.count(); ++I) {
    const unsigned char *B = P.bytes(I);
    std::size_t Size = P.size(I);
    if (!B || Size < sizeof(Addr))
      continue;
    AccessSource Source = Size == sizeof(Addr) ? AccessSource::PointerParameter : AccessSource::GenericScan;
    for (std::size_t Off = 0; Off + sizeof(Addr) <= Size; Off += sizeof(Addr))
      takeWord(B, Off, Source, Out);
  }
}

namespace {

class GenericPlan final : public KernelPlan {
public:
  const char *family() const override { return "generic"; }
  bool decode(const LaunchParams &P, LaunchGrid, std::vector<CandidatePointer> &Out) const override {
    genericScan(P, Out);
    return true;
  }
  bool generic() const override { return true; }
};

using Factory = std::unique_ptr<KernelPlan> (*)(std::string_view, const std::vector<ParamSlot> &);

// The table. Order matters only where patterns overlap (none do today).
constexpr Factory Families[] = {
    makeMultiTensorApplyPlan,
    makeElementwisePlan,
    makeReducePlan,
    makeCatBatchedCopyPlan,
};

} // namespace

std::unique_ptr<KernelPlan> planFor(std::string_view DemangledName, const std::vector<ParamSlot> &Layout) {
  for (Factory Make : Families)
    if (std::unique_ptr<KernelPlan> Plan = Make(DemangledName, Layout))
      return Plan;
  return std::make_unique<GenericPlan>();
}

} // namespace rt
} // namespace streamlife
