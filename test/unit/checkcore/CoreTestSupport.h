//===--- CoreTestSupport.h - streamlife -------------------------*- C++ -*-===//
//
// A small DSL to write IR programs for the analysis core's unit tests:
//
//   Program P;
//   auto F = P.function("f", {"a", "b"});      // parameters
//   F.alloc("p", "a");                         // cudaMallocAsync(&p, .., a)
//   SiteId Use = F.use("p", "b");              // k<<<.., b>>>(p)
//   SiteId Free = F.release("p", "a");         // cudaFreeAsync(p, a)
//   auto &R = P.findings(F);
//
// Streams are written by name; "0" is the legacy default stream, "@current"
// the current stream, "?" an unknown one. Each operation gets its own site
// (line = its position in the program), returned for assertions. Control
// flow: F.block() makes a block, F.to(B) continues in it, F.edge(A, B) adds
// an edge; branch()/loop() build the usual shapes.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_TEST_UNIT_CHECKCORE_CORETESTSUPPORT_H
#define STREAMLIFE_TEST_UNIT_CHECKCORE_CORETESTSUPPORT_H

#include "Analysis.h"
#include "CallerStreams.h"
#include "StreamIR.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace streamlife {
namespace core {
namespace test {

using namespace ir;

class Program;

class FunctionBuilder {
public:
  FunctionBuilder(Program &P, FunctionId Id) : P(&P), Id(Id) {}
  FunctionId id() const { return Id; }

  NameId name(const std::string &Spelling);
  /// `*Param`, the pointee of an out parameter.
  NameId pointee(const std::string &Param);
  StreamRef stream(const std::string &S);

  unsigned block();
  void to(unsigned Block) { Current = Block; }
  unsigned current() const { return Current; }
  void edge(unsigned From, unsigned To);
  /// Ends the function: the current block flows into the exit block.
  void finish();
  bool finished() const { return Finished; }

  SiteId alloc(const std::string &Buf, const std::string &S,
               Ownership Own = Ownership::Raw);
  /// A tensor of a caching allocator (owned, released when its last name
  /// goes, judged at the next reuse opportunity).
  SiteId allocCaching(const std::string &Buf, const std::string &S);
  /// The same, by a factory that enqueues nothing (`torch.empty`).
  SiteId allocEmpty(const std::string &Buf, const std::string &S);
  /// A call the front end cannot see, on \p S (ir::OpKind::UnseenWork).
  SiteId unseen(const std::string &S);
  SiteId use(const std::string &Buf, const std::string &S);
  SiteId record(const std::string &Event, const std::string &S);
  SiteId wait(const std::string &S, const std::string &Event);
  SiteId waitStream(const std::string &S, const std::string &Other);
  SiteId syncStream(const std::string &S);
  SiteId syncEvent(const std::string &Event);
  SiteId syncDevice();
  SiteId release(const std::string &Buf, const std::string &S);
  SiteId releaseSync(const std::string &Buf);
  SiteId recordStream(const std::string &Buf, const std::string &S);
  SiteId createStream(const std::string &S, bool NonBlocking);
  /// \p S is a stream the function made and hands to no one
  /// (NameInfo::PrivateStream, which the Python front end finds).
  void privateStream(const std::string &S);
  SiteId bind(const std::string &Dest, const std::string &Source,
              ValueKind Value = ValueKind::Buffer);
  SiteId move(const std::string &Dest, const std::string &Source);
  SiteId kill(const std::string &Name, ValueKind Value = ValueKind::Buffer);
  SiteId escape(const std::string &Buf);
  /// The branch where \p Name is known to hold nothing (`!t.defined()`).
  SiteId forget(const std::string &Name);
  /// `Container.append(Buf)`.
  SiteId store(const std::string &Container, const std::string &Buf);
  /// `Dest = Container.popleft()` (Oldest) or `Dest = Container.pop()`.
  SiteId take(const std::string &Dest, const std::string &Container,
              bool Oldest = true);
  SiteId push(const std::string &S);
  SiteId pop();
  SiteId setReleaseStream(const std::string &Buf, const std::string &S);
  /// A call; arguments are names (buffers, events, streams), "&x" for an
  /// address, "0" for the legacy stream, "@current" for the caller's
  /// current stream. \p Result receives the return.
  SiteId call(const FunctionBuilder &Callee,
              const std::vector<std::string> &Args,
              const std::string &Result = "");
  /// `return Name`.
  SiteId ret(const std::string &Name);

  /// if (c) { Then } [else { Else }]: runs the bodies in new blocks and
  /// continues in the join block.
  template <typename ThenFn, typename ElseFn>
  void branch(ThenFn Then, ElseFn Else) {
    unsigned Cond = Current, ThenB = block(), ElseB = block(), Join = block();
    edge(Cond, ThenB);
    edge(Cond, ElseB);
    to(ThenB);
    Then();
    edge(Current, Join);
    to(ElseB);
    Else();
    edge(Current, Join);
    to(Join);
  }
  template <typename ThenFn> void branch(ThenFn Then) {
    branch(Then, [] {});
  }
  /// while (c) { Body }: header, body with a back edge, then the exit.
  template <typename BodyFn> void loop(BodyFn Body) {
    unsigned Head = block(), BodyB = block(), After = block();
    edge(Current, Head);
    edge(Head, BodyB);
    edge(Head, After);
    to(BodyB);
    Body();
    edge(Current, Head);
    to(After);
  }

  Function &fn();

private:
  SiteId add(Inst I, const std::string &Spelling);
  Program *P;
  FunctionId Id;
  unsigned Current = 0;
  bool Finished = false;
  std::map<std::string, NameId> Names;
};

class Program {
public:
  FunctionBuilder &function(const std::string &Name,
                            const std::vector<std::string> &Params = {});
  const FunctionFindings &findings(const FunctionBuilder &F,
                                   AnalysisOptions Options = {});
  /// \p F's exit state (its summary), after findings() ran.
  const LifetimeState *exitState(const FunctionBuilder &F) {
    return Engine ? Engine->summary(F.id()) : nullptr;
  }
  const Module &module() const { return M; }
  /// Runs the front ends' caller-streams pass (core/CallerStreams.h) over
  /// the program, each function its own origin; \p Unseen: a function some
  /// call of which the program does not hold.
  void markCallerStreams(const FunctionBuilder *Unseen = nullptr) {
    markCurrentStreamParameters(
        M, [](FunctionId F) { return F; },
        [&](FunctionId F) { return !Unseen || F != Unseen->id(); });
  }
  std::string spelling(NameId N) const { return M.Names.at(N).Spelling; }
  unsigned line(SiteId S) const { return M.Sites.at(S).Line; }

private:
  friend class FunctionBuilder;
  Module M;
  std::vector<std::unique_ptr<FunctionBuilder>> Builders;
  std::unique_ptr<Analyzer> Engine;
};

//===----------------------------------------------------------------------===//
// Implementation (header-only: one test binary)
//===----------------------------------------------------------------------===//

inline Function &FunctionBuilder::fn() { return P->M.Functions[Id]; }

inline NameId FunctionBuilder::name(const std::string &Spelling) {
  auto [It, Inserted] = Names.try_emplace(Spelling, NoId);
  if (Inserted)
    It->second = P->M.addName({Spelling, Id, NoId});
  return It->second;
}

inline NameId FunctionBuilder::pointee(const std::string &Param) {
  std::string Spelling = "*" + Param;
  auto [It, Inserted] = Names.try_emplace(Spelling, NoId);
  if (Inserted)
    It->second = P->M.addName({Spelling, Id, name(Param)});
  return It->second;
}

inline StreamRef FunctionBuilder::stream(const std::string &S) {
  if (S == "0")
    return StreamRef::legacy();
  if (S == "@current")
    return StreamRef::current();
  if (S == "@perthread")
    return StreamRef::perThread();
  if (S == "?")
    return StreamRef::unknown();
  return StreamRef::named(name(S));
}

inline unsigned FunctionBuilder::block() {
  fn().Blocks.emplace_back();
  return static_cast<unsigned>(fn().Blocks.size() - 1);
}

inline void FunctionBuilder::edge(unsigned From, unsigned To) {
  fn().Blocks[From].Succs.push_back(To);
}

inline void FunctionBuilder::finish() {
  unsigned Exit = block();
  edge(Current, Exit);
  fn().Exit = Exit;
  Current = Exit;
  Finished = true;
}

inline SiteId FunctionBuilder::add(Inst I, const std::string &Spelling) {
  unsigned Line = static_cast<unsigned>(P->M.Sites.size() + 1);
  I.Site = P->M.addSite({"test.cu", Line, 3, Spelling, Line});
  fn().Blocks[Current].Insts.push_back(std::move(I));
  return I.Site;
}

inline SiteId FunctionBuilder::alloc(const std::string &Buf,
                                     const std::string &S, Ownership Own) {
  Inst I{OpKind::Allocate};
  NameId Target = Buf.rfind("*", 0) == 0 ? pointee(Buf.substr(1)) : name(Buf);
  I.Names.push_back(Target);
  I.Stream = stream(S);
  I.Own = Own;
  return add(std::move(I), "alloc " + Buf);
}
inline SiteId FunctionBuilder::allocCaching(const std::string &Buf,
                                            const std::string &S) {
  Inst I{OpKind::Allocate};
  I.Names.push_back(name(Buf));
  I.Stream = stream(S);
  I.Own = Ownership::Owned;
  I.Caching = true;
  return add(std::move(I), "alloc " + Buf + " (caching)");
}
inline SiteId FunctionBuilder::allocEmpty(const std::string &Buf,
                                          const std::string &S) {
  SiteId Site = allocCaching(Buf, S);
  fn().Blocks[Current].Insts.back().EnqueuesNothing = true;
  return Site;
}
inline SiteId FunctionBuilder::unseen(const std::string &S) {
  Inst I{OpKind::UnseenWork};
  I.Stream = stream(S);
  return add(std::move(I), "unseen work");
}
inline SiteId FunctionBuilder::use(const std::string &Buf,
                                   const std::string &S) {
  Inst I{OpKind::Use};
  I.Names.push_back(Buf.rfind("*", 0) == 0 ? pointee(Buf.substr(1))
                                           : name(Buf));
  I.Stream = stream(S);
  return add(std::move(I), "use " + Buf);
}
inline SiteId FunctionBuilder::record(const std::string &Event,
                                      const std::string &S) {
  Inst I{OpKind::RecordEvent};
  I.Event = name(Event);
  I.Stream = stream(S);
  return add(std::move(I), "record " + Event);
}
inline SiteId FunctionBuilder::wait(const std::string &S,
                                    const std::string &Event) {
  Inst I{OpKind::WaitEvent};
  I.Event = Event == "?" ? NoId : name(Event);
  I.Stream = stream(S);
  return add(std::move(I), "wait " + Event);
}
inline SiteId FunctionBuilder::waitStream(const std::string &S,
                                          const std::string &Other) {
  Inst I{OpKind::WaitStream};
  I.Stream = stream(S);
  I.Stream2 = stream(Other);
  return add(std::move(I), "wait-stream " + Other);
}
inline SiteId FunctionBuilder::syncStream(const std::string &S) {
  Inst I{OpKind::SyncStream};
  I.Stream = stream(S);
  return add(std::move(I), "sync " + S);
}
inline SiteId FunctionBuilder::syncEvent(const std::string &Event) {
  Inst I{OpKind::SyncEvent};
  I.Event = name(Event);
  return add(std::move(I), "sync-event " + Event);
}
inline SiteId FunctionBuilder::syncDevice() {
  return add(Inst{OpKind::SyncDevice}, "sync-device");
}
inline SiteId FunctionBuilder::release(const std::string &Buf,
                                       const std::string &S) {
  Inst I{OpKind::Release};
  I.Names.push_back(name(Buf));
  I.Stream = stream(S);
  return add(std::move(I), "release " + Buf);
}
inline SiteId FunctionBuilder::releaseSync(const std::string &Buf) {
  Inst I{OpKind::ReleaseSync};
  I.Names.push_back(name(Buf));
  return add(std::move(I), "release-sync " + Buf);
}
inline SiteId FunctionBuilder::recordStream(const std::string &Buf,
                                            const std::string &S) {
  Inst I{OpKind::RecordStream};
  I.Names.push_back(name(Buf));
  I.Stream = stream(S);
  return add(std::move(I), "record-stream " + Buf);
}
inline void FunctionBuilder::privateStream(const std::string &S) {
  P->M.Names[name(S)].PrivateStream = true;
}
inline SiteId FunctionBuilder::createStream(const std::string &S,
                                            bool NonBlocking) {
  Inst I{OpKind::CreateStream};
  I.Stream = stream(S);
  I.NonBlocking = NonBlocking;
  return add(std::move(I), "create " + S);
}
inline SiteId FunctionBuilder::bind(const std::string &Dest,
                                    const std::string &Source,
                                    ValueKind Value) {
  Inst I{OpKind::Bind};
  I.Names.push_back(name(Dest));
  I.Names.push_back(Source.empty() ? NoId : name(Source));
  I.Value = Value;
  return add(std::move(I), Dest + " = " + Source);
}
inline SiteId FunctionBuilder::move(const std::string &Dest,
                                    const std::string &Source) {
  Inst I{OpKind::Move};
  I.Names.push_back(name(Dest));
  I.Names.push_back(name(Source));
  return add(std::move(I), Dest + " = move(" + Source + ")");
}
inline SiteId FunctionBuilder::kill(const std::string &Name,
                                    ValueKind Value) {
  Inst I{OpKind::Kill};
  I.Names.push_back(name(Name));
  I.Value = Value;
  return add(std::move(I), "kill " + Name);
}
inline SiteId FunctionBuilder::escape(const std::string &Buf) {
  Inst I{OpKind::Escape};
  I.Names.push_back(name(Buf));
  return add(std::move(I), "escape " + Buf);
}
inline SiteId FunctionBuilder::forget(const std::string &Name) {
  Inst I{OpKind::Forget};
  I.Names.push_back(name(Name));
  return add(std::move(I), "forget " + Name);
}
inline SiteId FunctionBuilder::store(const std::string &Container,
                                     const std::string &Buf) {
  Inst I{OpKind::Store};
  I.Names.push_back(name(Container));
  I.Names.push_back(name(Buf));
  return add(std::move(I), "store " + Container + " " + Buf);
}
inline SiteId FunctionBuilder::take(const std::string &Dest,
                                    const std::string &Container, bool Oldest) {
  Inst I{OpKind::TakeEntry};
  I.Names.push_back(name(Dest));
  I.Names.push_back(name(Container));
  I.Oldest = Oldest;
  return add(std::move(I), "take " + Dest + " " + Container);
}
inline SiteId FunctionBuilder::push(const std::string &S) {
  Inst I{OpKind::PushCurrentStream};
  I.Stream = stream(S);
  return add(std::move(I), "push " + S);
}
inline SiteId FunctionBuilder::pop() {
  return add(Inst{OpKind::PopCurrentStream}, "pop");
}
inline SiteId FunctionBuilder::setReleaseStream(const std::string &Buf,
                                                const std::string &S) {
  Inst I{OpKind::SetReleaseStream};
  I.Names.push_back(name(Buf));
  I.Stream = stream(S);
  return add(std::move(I), "set-stream " + Buf);
}
inline SiteId FunctionBuilder::call(const FunctionBuilder &Callee,
                                    const std::vector<std::string> &Args,
                                    const std::string &Result) {
  Inst I{OpKind::Call};
  I.Callee = Callee.id();
  for (const std::string &A : Args) {
    CallArg Arg;
    if (A.rfind("&", 0) == 0)
      Arg.AddressOf = name(A.substr(1));
    else if (A == "0")
      Arg.Stream = StreamRef::legacy();
    else if (A == "@current")
      Arg.Stream = StreamRef::current();
    else {
      Arg.Value = name(A);
      Arg.Stream = StreamRef::named(Arg.Value);
    }
    I.Args.push_back(Arg);
  }
  if (!Result.empty())
    I.Names.push_back(name(Result));
  return add(std::move(I), "call");
}
inline SiteId FunctionBuilder::ret(const std::string &Name) {
  if (fn().Return == NoId)
    fn().Return = name("<return>");
  Inst I{OpKind::Bind};
  I.Names.push_back(fn().Return);
  I.Names.push_back(name(Name));
  return add(std::move(I), "return " + Name);
}

inline FunctionBuilder &Program::function(const std::string &Name,
                                          const std::vector<std::string> &Params) {
  M.Functions.emplace_back();
  FunctionId Id = static_cast<FunctionId>(M.Functions.size() - 1);
  M.Functions[Id].Name = Name;
  Builders.push_back(std::make_unique<FunctionBuilder>(*this, Id));
  FunctionBuilder &B = *Builders.back();
  B.block(); // entry
  for (const std::string &P : Params)
    M.Functions[Id].Params.push_back(B.name(P));
  return B;
}

inline const FunctionFindings &Program::findings(const FunctionBuilder &F,
                                                 AnalysisOptions Options) {
  for (auto &B : Builders)
    if (!B->finished())
      B->finish();
  Engine = std::make_unique<Analyzer>(M, Options);
  return Engine->findings(F.id());
}

} // namespace test
} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_TEST_UNIT_CHECKCORE_CORETESTSUPPORT_H
