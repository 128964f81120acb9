//===--- CallerStreams.cpp - streamlife -----------------------------------===//

#include "CallerStreams.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace streamlife {
namespace core {

using namespace ir;

void markCurrentStreamParameters(
    Module &M, llvm::function_ref<FunctionId(FunctionId)> Origin,
    llvm::function_ref<bool(FunctionId)> AllCallsSeen) {
  // Per source function: per parameter position, whether every call seen
  // passes the caller's current stream there.
  std::map<FunctionId, std::vector<bool>> Always;
  for (const Function &Caller : M.Functions)
    for (const Block &B : Caller.Blocks)
      for (const Inst &I : B.Insts) {
        if (I.Kind != OpKind::Call || I.Callee >= M.Functions.size())
          continue;
        const Function &Callee = M.Functions[I.Callee];
        size_t NumParams = Callee.Params.size();
        // What the caller passes for the callee's current stream.
        std::optional<StreamRef> CallerCurrent;
        for (size_t Q = 0; Q < NumParams && Q < I.Args.size(); ++Q)
          if (Callee.Params[Q] != NoId &&
              Callee.Params[Q] == Callee.CurrentStreamParam)
            CallerCurrent = I.Args[Q].Stream;
        auto IsCurrent = [&](const StreamRef &S) {
          return S.Kind == StreamRef::Current ||
                 (S.known() && CallerCurrent && S == *CallerCurrent);
        };
        std::vector<bool> &Current =
            Always.try_emplace(Origin(I.Callee), NumParams, true).first->second;
        Current.resize(std::min(Current.size(), NumParams));
        for (size_t P = 0; P < Current.size(); ++P)
          Current[P] = Current[P] && P < I.Args.size() &&
                       IsCurrent(I.Args[P].Stream);
      }
  for (FunctionId F = 0; F < M.Functions.size(); ++F) {
    Function &Fn = M.Functions[F];
    Fn.CurrentStreamParams.clear();
    auto Found = Always.find(Origin(F));
    if (Found == Always.end())
      continue; // never called: its parameters may be any stream
    if (!AllCallsSeen(Origin(F)))
      continue; // a call not seen may pass any stream
    for (size_t P = 0; P < Found->second.size() && P < Fn.Params.size(); ++P)
      if (Found->second[P] && Fn.Params[P] != NoId &&
          Fn.Params[P] != Fn.CurrentStreamParam)
        Fn.CurrentStreamParams.push_back(Fn.Params[P]);
  }
}

} // namespace core
} // namespace streamlife
