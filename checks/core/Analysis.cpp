//===--- Analysis.cpp - streamlife ----------------------------------------===//
//
// The fixpoint and the summary worklist.
//
// Termination of the fixpoint, without a round cap. Every component of a
// LifetimeState ranges over a finite set fixed by the function: names, sites,
// streams and events come from its IR; objects are at most two per
// allocation or call site plus one per name. Pending uses, racy releases,
// entry releases and name->object sets only grow along the iteration (joins
// are unions, and a block's transfer is a monotone function of its entry
// state), and the must-facts (orderings, covering events) can only shrink at
// joins. A block is re-visited only when a predecessor's exit state changed,
// and each change moves that state up a lattice of finite height, so the
// worklist empties. Part 1 capped the round-robin at 32 rounds and silently
// lost the findings of loop nests 32 deep or more (reliability sweep #114).
// The visit limit below only guards against a transfer bug, and hitting it
// is reported (a LimitNote), never silent.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Diagnose.h"
#include "Transfer.h"
#include "UseGroups.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>
#include <memory>
#include <set>

namespace streamlife {
namespace core {

using namespace ir;

namespace {

/// A function's blocks in reverse post-order, with their predecessors
/// (forward edges first) and which predecessor edges are loop back edges.
struct BlockOrder {
  std::vector<unsigned> Order;     ///< Reachable blocks, reverse post-order.
  std::vector<unsigned> Position;  ///< Block -> index in Order (or ~0u).
  std::vector<std::vector<unsigned>> Preds;

  explicit BlockOrder(const Function &F) {
    size_t N = F.Blocks.size();
    Position.assign(N, ~0u);
    Preds.resize(N);
    if (N == 0)
      return;
    assert(F.Entry < N && F.Exit < N && "entry/exit outside the blocks");
    // An explicit stack: no recursion proportional to the input.
    std::vector<char> Seen(N, 0);
    std::vector<std::pair<unsigned, size_t>> Stack;
    Seen[F.Entry] = 1;
    Stack.push_back({F.Entry, 0});
    while (!Stack.empty()) {
      auto &[Block, Next] = Stack.back();
      const std::vector<unsigned> &Succs = F.Blocks[Block].Succs;
      if (Next == Succs.size()) {
        Order.push_back(Block);
        Stack.pop_back();
        continue;
      }
      unsigned Succ = Succs[Next++];
      assert(Succ < N && "successor outside the blocks");
      if (!Seen[Succ]) {
        Seen[Succ] = 1;
        Stack.push_back({Succ, 0});
      }
    }
    std::reverse(Order.begin(), Order.end());
    for (unsigned I = 0; I < Order.size(); ++I)
      Position[Order[I]] = I;
    for (unsigned B : Order)
      for (unsigned Succ : F.Blocks[B].Succs)
        Preds[Succ].push_back(B);
  }

  bool reachable(unsigned B) const { return Position[B] != ~0u; }
  bool isBackEdge(unsigned From, unsigned To) const {
    return Position[From] >= Position[To];
  }
};

/// Marks every pending use as coming from an earlier loop iteration.
void markEarlierIteration(LifetimeState &State) {
  for (auto It = State.Objects.begin(); It != State.Objects.end(); ++It) {
    // Written only when something changes, so that objects without uses of
    // this iteration stay shared with the back edge's state.
    const auto &Uses = It->second.Uses;
    if (llvm::all_of(Uses, [](const UseGroup &G) {
          return G.Facts.FromEarlierIteration;
        }) && !normalizingChanges(Uses))
      continue;
    ObjectState &Object = State.Objects.mutableAt(It);
    for (UseGroup &G : Object.Uses)
      G.Facts.FromEarlierIteration = true;
    if (Object.Uses.size() > 1 && !normalizeGroups(Object.Uses))
      State.GroupsMerged = true;
  }
  // Deferred releases stay as they are: their uses are in the iteration of
  // the release, and only the reuse is in a later one.
}

class FixpointSolver {
public:
  FixpointSolver(const Function &F, const Transfer &T) : F(F), T(T), Graph(F) {
    Exit.assign(F.Blocks.size(), std::make_shared<const LifetimeState>());
  }

  /// Runs to the fixpoint; false when the visit limit stopped it.
  bool solve(unsigned MaxVisitsPerBlock) {
    // Worklist ordered by reverse post-order position, so that a loop body
    // is finished before what follows the loop.
    std::set<unsigned> Work;
    for (unsigned I = 0; I < Graph.Order.size(); ++I)
      Work.insert(I);
    std::vector<unsigned> Visits(F.Blocks.size(), 0);
    while (!Work.empty()) {
      unsigned Block = Graph.Order[*Work.begin()];
      Work.erase(Work.begin());
      if (++Visits[Block] > MaxVisitsPerBlock)
        return false;
      std::shared_ptr<const LifetimeState> State = exitState(Block);
      if (State == Exit[Block] || *State == *Exit[Block])
        continue;
      Exit[Block] = std::move(State);
      for (unsigned Succ : F.Blocks[Block].Succs)
        Work.insert(Graph.Position[Succ]);
    }
    return true;
  }

  /// The diagnose pass: each reachable block once, from its fixpoint entry
  /// state, with the observer watching.
  void diagnose(Observer &Watcher) {
    Transfer Watching = T.withObserver(&Watcher);
    for (unsigned Block : Graph.Order) {
      LifetimeState State = entryState(Block);
      if (!State.Reachable)
        continue;
      for (const Inst &I : F.Blocks[Block].Insts)
        Watching.apply(I, State);
      if (Block == F.Exit)
        Watching.judgeAtReturn(State);
    }
  }

  /// Whether some state met use groups past MaxUseGroupsPerStream.
  bool groupsMerged() const {
    return std::any_of(Exit.begin(), Exit.end(),
                       [](const std::shared_ptr<const LifetimeState> &S) {
                         return S->GroupsMerged;
                       });
  }

  LifetimeState takeExit() {
    return F.Blocks.empty() ? LifetimeState() : *Exit[F.Exit];
  }

private:
  /// A block's exit state, from its predecessors' exit states. A block
  /// without instructions entered by one forward edge hands its
  /// predecessor's state on as it is, shared rather than copied: the
  /// lowering's join, loop and else blocks are most of a function's blocks,
  /// and copying a state of hundreds of objects into each of them on every
  /// visit was most of the analysis of a large function (a 485-block kernel
  /// of flashinfer: 2,551 of its 8,714 block visits).
  std::shared_ptr<const LifetimeState> exitState(unsigned Block) const {
    const std::vector<unsigned> &Preds = Graph.Preds[Block];
    if (Block != F.Entry && F.Blocks[Block].Insts.empty() && Preds.size() == 1 &&
        !Graph.isBackEdge(Preds.front(), Block))
      return Exit[Preds.front()];
    auto State = std::make_shared<LifetimeState>(entryState(Block));
    transferBlock(Block, *State, nullptr);
    return State;
  }

  LifetimeState entryState(unsigned Block) const {
    LifetimeState In;
    if (Block == F.Entry)
      In = T.entryState();
    // Forward edges first, so that the facts kept when paths disagree (such
    // as which allocation a note names) come from the first iteration.
    for (bool BackEdges : {false, true}) {
      for (unsigned Pred : Graph.Preds[Block]) {
        if (Graph.isBackEdge(Pred, Block) != BackEdges)
          continue;
        if (!BackEdges) {
          In.join(*Exit[Pred]);
          continue;
        }
        if (!Exit[Pred]->Reachable)
          continue;
        LifetimeState Carried = *Exit[Pred];
        markEarlierIteration(Carried);
        In.join(Carried);
      }
    }
    return In;
  }

  void transferBlock(unsigned Block, LifetimeState &State,
                     Observer *Watcher) const {
    if (!State.Reachable)
      return;
    for (const Inst &I : F.Blocks[Block].Insts)
      T.apply(I, State);
  }

  const Function &F;
  const Transfer &T;
  BlockOrder Graph;
  /// Immutable once made, so that blocks can share one (see exitState).
  std::vector<std::shared_ptr<const LifetimeState>> Exit;
};

} // namespace

Analyzer::Result &Analyzer::result(FunctionId F) {
  assert(F < M.Functions.size() && "no such function");
  if (Results.size() < M.Functions.size())
    Results.resize(M.Functions.size());
  if (!Results[F])
    Results[F] = std::make_unique<Result>();
  return *Results[F];
}

const LifetimeState *Analyzer::summary(FunctionId F) {
  Result &R = result(F);
  return R.Status == Result::Done ? &R.Exit : nullptr;
}

const FunctionFindings &Analyzer::findings(FunctionId F) {
  ensure(F);
  return result(F).Findings;
}

void Analyzer::ensure(FunctionId Root) {
  if (result(Root).Status != Result::NotStarted)
    return;
  // Callees first, with an explicit stack (a call chain 100,000 deep must
  // not overflow the native stack). A callee still in progress is part of a
  // recursive cycle: its call does nothing (an empty summary).
  struct Frame {
    FunctionId F;
    std::vector<FunctionId> Callees;
    size_t Next = 0;
  };
  auto calleesOf = [&](FunctionId F) {
    std::vector<FunctionId> Callees;
    for (const Block &B : M.Functions[F].Blocks)
      for (const Inst &I : B.Insts)
        if (I.Kind == OpKind::Call && I.Callee != NoId &&
            I.Callee < M.Functions.size())
          Callees.push_back(I.Callee);
    std::sort(Callees.begin(), Callees.end());
    Callees.erase(std::unique(Callees.begin(), Callees.end()), Callees.end());
    return Callees;
  };
  std::vector<Frame> Stack;
  result(Root).Status = Result::InProgress;
  Stack.push_back({Root, calleesOf(Root)});
  while (!Stack.empty()) {
    Frame &Top = Stack.back();
    if (Top.Next < Top.Callees.size()) {
      FunctionId Callee = Top.Callees[Top.Next++];
      Result &R = result(Callee);
      if (R.Status != Result::NotStarted)
        continue;
      R.Status = Result::InProgress;
      std::vector<FunctionId> Callees = calleesOf(Callee);
      Stack.push_back({Callee, std::move(Callees)});
      continue;
    }
    FunctionId Done = Top.F;
    Stack.pop_back();
    run(Done);
  }
}

void Analyzer::run(FunctionId Id) {
  const Function &F = M.Functions[Id];
  Result &R = result(Id);
  if (!F.Lowered || F.Blocks.empty()) {
    R.Status = Result::Done;
    return;
  }
  Transfer T(M, F, [this](FunctionId Callee) { return summary(Callee); });
  T.setWaitBeforeFree(Options.WaitBeforeFree);
  FixpointSolver Solver(F, T);
  if (!Solver.solve(Options.MaxVisitsPerBlock))
    R.Findings.Limits.push_back(
        {F.Site, "the lifetime analysis of '" + F.Name +
                     "' stopped before its fixpoint (" +
                     std::to_string(Options.MaxVisitsPerBlock) +
                     " visits of one block); findings in it may be missing"});
  if (Solver.groupsMerged())
    R.Findings.Limits.push_back(
        {F.Site, "the lifetime analysis of '" + F.Name +
                     "' merged the ordering facts of more than " +
                     std::to_string(MaxUseGroupsPerStream) +
                     " groups of uses of one buffer on one stream; "
                     "warnings in it may be false alarms"});
  FindingCollector Collector(M, R.Findings);
  Solver.diagnose(Collector);
  Collector.finish();
  R.Exit = Solver.takeExit();
  R.Status = Result::Done;
}

} // namespace core
} // namespace streamlife
