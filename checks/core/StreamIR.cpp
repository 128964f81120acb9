//===--- StreamIR.cpp - streamlife ----------------------------------------===//
//
// Text forms of the IR, for dumps and unit-test failure messages.
//
//===----------------------------------------------------------------------===//

#include "StreamIR.h"
#include "llvm/Support/raw_ostream.h"

namespace streamlife {
namespace ir {

llvm::StringRef kindName(OpKind Kind) {
  switch (Kind) {
  case OpKind::Allocate: return "allocate";
  case OpKind::Use: return "use";
  case OpKind::RecordEvent: return "record";
  case OpKind::WaitEvent: return "wait";
  case OpKind::WaitStream: return "wait-stream";
  case OpKind::SyncStream: return "sync-stream";
  case OpKind::SyncEvent: return "sync-event";
  case OpKind::SyncDevice: return "sync-device";
  case OpKind::Release: return "release";
  case OpKind::ReleaseSync: return "release-sync";
  case OpKind::RecordStream: return "record-stream";
  case OpKind::CreateStream: return "create-stream";
  case OpKind::SetReleaseStream: return "set-release-stream";
  case OpKind::Bind: return "bind";
  case OpKind::Move: return "move";
  case OpKind::Kill: return "kill";
  case OpKind::Escape: return "escape";
  case OpKind::Store: return "store";
  case OpKind::TakeEntry: return "take-entry";
  case OpKind::Forget: return "forget";
  case OpKind::PushCurrentStream: return "push-current";
  case OpKind::PopCurrentStream: return "pop-current";
  case OpKind::Call: return "call";
  case OpKind::UnseenWork: return "unseen-work";
  }
  return "?";
}

namespace {

std::string nameText(const Module &M, NameId N) {
  if (N == NoId || N >= M.Names.size())
    return "?";
  return M.Names[N].Spelling;
}

std::string streamText(const Module &M, const StreamRef &S) {
  switch (S.Kind) {
  case StreamRef::Named: return nameText(M, S.Name);
  case StreamRef::LegacyDefault: return "<legacy>";
  case StreamRef::PerThread: return "<per-thread>";
  case StreamRef::Current: return "<current>";
  case StreamRef::Unknown: return "<unknown>";
  }
  return "?";
}

} // namespace

std::string describe(const Module &M, const Inst &I) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << kindName(I.Kind);
  for (NameId N : I.Names)
    OS << ' ' << nameText(M, N);
  if (I.Stream.known())
    OS << " on " << streamText(M, I.Stream);
  if (I.Kind == OpKind::WaitStream)
    OS << " for " << streamText(M, I.Stream2);
  if (I.Event != NoId)
    OS << " event " << nameText(M, I.Event);
  if (I.Kind == OpKind::Allocate && I.Own == Ownership::Owned)
    OS << " owned";
  if (I.Kind == OpKind::Allocate && !I.Fresh)
    OS << " unknown-origin";
  if (I.Kind == OpKind::Allocate && I.EnqueuesNothing)
    OS << " enqueues-nothing";
  if (I.Kind == OpKind::TakeEntry)
    OS << (I.Oldest ? " oldest" : " newest");
  if (I.OnOperandDevice)
    OS << " on-operand-device";
  if (I.Kind == OpKind::Call) {
    OS << " fn#" << I.Callee << '(';
    for (size_t A = 0; A < I.Args.size(); ++A) {
      if (A)
        OS << ", ";
      const CallArg &Arg = I.Args[A];
      if (Arg.AddressOf != NoId)
        OS << '&' << nameText(M, Arg.AddressOf);
      else if (Arg.Value != NoId) {
        OS << nameText(M, Arg.Value);
        // The stream the front end resolved the name to, where it is not
        // the name itself (a local holding the current stream's handle).
        if (Arg.Stream.known() && !(Arg.Stream.Kind == StreamRef::Named &&
                                    Arg.Stream.Name == Arg.Value))
          OS << '=' << streamText(M, Arg.Stream);
      } else
        OS << streamText(M, Arg.Stream);
    }
    OS << ')';
  }
  if (I.Site != NoId && I.Site < M.Sites.size())
    OS << " @" << M.Sites[I.Site].Line << ':' << M.Sites[I.Site].Column;
  return Text;
}

std::string dump(const Module &M, const Function &F) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << "function " << F.Name << " entry=" << F.Entry << " exit=" << F.Exit
     << '\n';
  for (size_t B = 0; B < F.Blocks.size(); ++B) {
    OS << "  block " << B << " ->";
    for (unsigned S : F.Blocks[B].Succs)
      OS << ' ' << S;
    OS << '\n';
    for (const Inst &I : F.Blocks[B].Insts)
      OS << "    " << describe(M, I) << '\n';
  }
  return Text;
}

} // namespace ir
} // namespace streamlife
