//===--- PythonRecordStreamCalls.cpp - streamlife -------------------------===//
//
// streamlife-record-stream-in-loop through calls, on the lowered functions
// (core/RecordStreamReach.h has the rule): a call written inside a loop of
// the checked file whose callee reaches a record_stream call. Which
// function a call reaches is the lowering's, so a specialization whose
// decided `if` skips the record does not record (`keep_if(t, s, False)`).
//
//===----------------------------------------------------------------------===//

#include "PythonFunctionLowering.h"

namespace streamlife::python::lowering {

namespace {

/// The lowered functions as the search's call graph.
class LoweredCallGraph {
public:
  using Node = ir::FunctionId;
  using Site = SiteId;

  explicit LoweredCallGraph(const LoweringContext &Ctx) : Ctx(Ctx) {
    for (const LoweringContext::CallInLoop &Call : Ctx.CallsInLoops)
      InLoops.insert(Call.Call);
  }

  bool recordsInLoop(Node F) const { return Ctx.LoopRecorders.count(F); }

  const core::RecordStreamCall<Site> *record(Node F) const {
    auto Found = Ctx.StreamRecords.find(F);
    return Found == Ctx.StreamRecords.end() ? nullptr : &Found->second;
  }

  template <typename Visit> void forEachCall(Node F, Visit Fn) const {
    const ir::Module &M = Ctx.Out.Module;
    for (const ir::Block &B : M.Functions[F].Blocks)
      for (const ir::Inst &I : B.Insts)
        if (I.Kind == ir::OpKind::Call && I.Callee < M.Functions.size())
          Fn(I.Callee, I.Site, InLoops.count(I.Site) != 0);
  }

  std::string name(Node F) const { return Ctx.Out.Module.Functions[F].Name; }

private:
  const LoweringContext &Ctx;
  std::set<SiteId> InLoops;
};

} // namespace

void reportRecordStreamThroughCalls(LoweringContext &Ctx) {
  LoweredCallGraph Graph(Ctx);
  std::map<ir::FunctionId, std::optional<core::RecordStreamReach<SiteId>>>
      ByCallee;
  std::set<SiteId> Reported;
  for (const LoweringContext::CallInLoop &Call : Ctx.CallsInLoops) {
    if (!Call.Reported || Reported.count(Call.Call))
      continue;
    auto [It, Inserted] = ByCallee.try_emplace(Call.Callee);
    if (Inserted)
      It->second = core::reachRecordStream(Graph, Call.Callee);
    if (!It->second)
      continue;
    Reported.insert(Call.Call);
    Ctx.Out.RecordStreamInLoops.push_back({Call.Call, It->second->Buffer,
                                           Ctx.site(*Call.File, Call.Loop),
                                           It->second->Hops});
  }
}

} // namespace streamlife::python::lowering
