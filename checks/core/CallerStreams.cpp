//===--- CallerStreams.cpp - streamlife -----------------------------------===//

#include "CallerStreams.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace streamlife {
namespace core {

using namespace ir;

namespace {

/// What a caller's own stream parameter is worth as an argument: where the
/// caller is itself always handed its current stream there, passing the
/// parameter on passes that stream, provided nothing has changed what the
/// parameter or the current stream holds by the call.
struct PassThrough {
  /// Parameters the function rebinds or lets be written through an
  /// address: from the rebinding on they hold something else.
  std::set<NameId> Rebound;
  /// The function pushes a current stream somewhere. A front end that
  /// resolves the current stream at lowering (Python: CurrentStreamParam)
  /// says at each call which stream the callee starts on; one that leaves
  /// it to the flow (clang: StreamRef::Current) does not, and a call under
  /// a guard starts its callee on the guard's stream, not on the entry one
  /// the parameter holds.
  bool PushesCurrent = false;
};

PassThrough passThroughOf(const Function &F) {
  PassThrough P;
  for (const Block &B : F.Blocks)
    for (const Inst &I : B.Insts) {
      switch (I.Kind) {
      case OpKind::Bind:
      case OpKind::Move:
      case OpKind::TakeEntry:
        if (!I.Names.empty())
          P.Rebound.insert(I.Names[0]);
        break;
      case OpKind::PushCurrentStream:
        P.PushesCurrent = true;
        break;
      case OpKind::Call:
        for (const CallArg &A : I.Args)
          if (A.AddressOf != NoId)
            P.Rebound.insert(A.AddressOf);
        break;
      default:
        break;
      }
    }
  return P;
}

/// What one call passes at one of its callee's parameter positions.
struct PassedStream {
  /// The caller's current stream at the call, spelled out.
  bool Current = false;
  /// The position of the caller's parameter passed on unchanged, where the
  /// callee starts on the caller's entry current stream.
  std::optional<size_t> CallerParam;
};

/// Per function origin, per parameter position: a mark.
using Marks = std::map<FunctionId, std::vector<bool>>;

} // namespace

void markCurrentStreamParameters(
    Module &M, llvm::function_ref<FunctionId(FunctionId)> Origin,
    llvm::function_ref<bool(FunctionId)> AllCallsSeen) {
  std::vector<PassThrough> Through;
  Through.reserve(M.Functions.size());
  for (const Function &F : M.Functions)
    Through.push_back(passThroughOf(F));

  // Calls every argument of every call in the module with what it passes.
  auto ForEachArgument = [&](auto &&Visit) {
    for (FunctionId C = 0; C < M.Functions.size(); ++C) {
      const Function &Caller = M.Functions[C];
      std::map<NameId, size_t> CallerParamAt;
      for (size_t Q = 0; Q < Caller.Params.size(); ++Q)
        if (Caller.Params[Q] != NoId &&
            Caller.Params[Q] != Caller.CurrentStreamParam &&
            !Through[C].Rebound.count(Caller.Params[Q]))
          CallerParamAt.emplace(Caller.Params[Q], Q);
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
          // The callee starts on the caller's entry current stream where
          // the front end names it at the call (Python) and it is the one
          // passed, or where it leaves the current stream to the flow
          // (clang) and the caller pushes none.
          bool StartsOnCallersEntry =
              Caller.CurrentStreamParam != NoId
                  ? CallerCurrent &&
                        *CallerCurrent ==
                            StreamRef::named(Caller.CurrentStreamParam)
                  : !CallerCurrent && !Through[C].PushesCurrent;
          for (size_t P = 0; P < NumParams; ++P) {
            PassedStream Passed;
            if (P < I.Args.size()) {
              const StreamRef &S = I.Args[P].Stream;
              Passed.Current =
                  S.Kind == StreamRef::Current ||
                  (S.known() && CallerCurrent && S == *CallerCurrent);
              if (auto Found = CallerParamAt.find(S.Name);
                  S.Kind == StreamRef::Named && StartsOnCallersEntry &&
                  Found != CallerParamAt.end())
                Passed.CallerParam = Found->second;
            }
            Visit(C, I.Callee, P, NumParams, Passed);
          }
        }
    }
  };
  auto IsMarked = [&](const Marks &Set, FunctionId F, size_t P) {
    auto Found = Set.find(Origin(F));
    return AllCallsSeen(Origin(F)) && Found != Set.end() &&
           P < Found->second.size() && Found->second[P];
  };

  // The greatest marks every call agrees with: a parameter is marked while
  // every call passes the caller's current stream there, spelled out or as
  // a marked parameter of the caller's passed on. Every parameter of a
  // called function starts marked; fewer marks make fewer arguments
  // current, so each round keeps or takes away, and `outer(s)` calling
  // `inner(s)`, and recursion, settle in a few rounds.
  Marks Always;
  ForEachArgument([&](FunctionId, FunctionId Callee, size_t, size_t NumParams,
                      const PassedStream &) {
    std::vector<bool> &Start =
        Always.try_emplace(Origin(Callee), NumParams, true).first->second;
    Start.resize(std::min(Start.size(), NumParams));
  });
  for (bool Changed = true; Changed;) {
    Marks Next = Always;
    ForEachArgument([&](FunctionId Caller, FunctionId Callee, size_t P,
                        size_t, const PassedStream &Passed) {
      std::vector<bool> &Current = Next[Origin(Callee)];
      if (P < Current.size() && !Passed.Current &&
          !(Passed.CallerParam &&
            IsMarked(Always, Caller, *Passed.CallerParam)))
        Current[P] = false;
    });
    Changed = Next != Always;
    Always = std::move(Next);
  }
  // Of those, the marks some call grounds in a stream spelled out: a
  // helper that only passes its parameter back to itself (or around a
  // cycle of helpers) agrees with every call and is handed nothing.
  Marks Grounded;
  for (bool Changed = true; Changed;) {
    Changed = false;
    ForEachArgument([&](FunctionId Caller, FunctionId Callee, size_t P,
                        size_t NumParams, const PassedStream &Passed) {
      if (!IsMarked(Always, Callee, P))
        return;
      bool Grounds =
          Passed.Current ||
          (Passed.CallerParam &&
           IsMarked(Always, Caller, *Passed.CallerParam) &&
           IsMarked(Grounded, Caller, *Passed.CallerParam));
      std::vector<bool> &Set =
          Grounded.try_emplace(Origin(Callee), NumParams, false).first->second;
      if (Grounds && P < Set.size() && !Set[P]) {
        Set[P] = true;
        Changed = true;
      }
    });
  }

  for (FunctionId F = 0; F < M.Functions.size(); ++F) {
    Function &Fn = M.Functions[F];
    Fn.CurrentStreamParams.clear();
    for (size_t P = 0; P < Fn.Params.size(); ++P)
      if (IsMarked(Always, F, P) && IsMarked(Grounded, F, P) &&
          Fn.Params[P] != NoId && Fn.Params[P] != Fn.CurrentStreamParam)
        Fn.CurrentStreamParams.push_back(Fn.Params[P]);
  }
}

} // namespace core
} // namespace streamlife
