//===--- FixItPlanner.cpp - streamlife ------------------------------------===//

#include "FixItPlanner.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace clang {
namespace tidy {
namespace streamlife {

using ir::Inst;


namespace {

/// One statement of a block, with the bytes it covers in its file (a macro
/// invocation counts as its whole expansion).
struct Slot {
  const CompoundStmt *Block = nullptr;
  unsigned Index = 0;
  unsigned Depth = 0;
  FileID File;
  unsigned Begin = 0; ///< First byte.
  unsigned End = 0;   ///< One past the last byte of the last token.
  unsigned LastToken = 0; ///< Where its last token starts.
  const Stmt *statement() const { return Block->body_begin()[Index]; }
};

/// An IR operation of the function, placed in the file.
struct PlacedInst {
  FileID File;
  unsigned Offset = 0;
  const Inst *Op = nullptr;
};

/// The identifier a name's spelling ends with (`done` for `this->done`,
/// `ev.done` or `done`); empty when it is not a plain path (`evs[i]`).
StringRef trailingIdentifier(StringRef Spelling) {
  size_t Arrow = Spelling.rfind("->");
  size_t Dot = Spelling.rfind('.');
  size_t Cut = StringRef::npos;
  if (Arrow != StringRef::npos)
    Cut = Arrow + 2;
  if (Dot != StringRef::npos && (Cut == StringRef::npos || Dot + 1 > Cut))
    Cut = Dot + 1;
  StringRef Tail = Cut == StringRef::npos ? Spelling : Spelling.substr(Cut);
  Tail.consume_front("*");
  if (Tail.empty() || !llvm::all_of(Tail, [](char C) {
        return isAsciiIdentifierContinue(static_cast<unsigned char>(C));
      }))
    return {};
  return Tail;
}

/// The expression refers to \p D itself (not to a part of it through a
/// call): `d`, `(d)`, `d` behind implicit casts.
bool refersTo(const Expr *E, const ValueDecl *D) {
  if (!E)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl() == D;
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return Member->getMemberDecl() == D;
  return false;
}

/// The variables and members a statement reads or writes.
class ReferencedDecls : public RecursiveASTVisitor<ReferencedDecls> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (!isa<FunctionDecl>(Ref->getDecl()) &&
        !isa<EnumConstantDecl>(Ref->getDecl()))
      Found.insert(Ref->getDecl());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *Member) {
    if (isa<FieldDecl>(Member->getMemberDecl()))
      Found.insert(Member->getMemberDecl());
    return true;
  }
  bool VisitVarDecl(VarDecl *Var) {
    Declared.insert(Var);
    return true;
  }
  /// What the statement reads from outside: the names it declares itself
  /// (an error-checking macro's `status`) move with it.
  llvm::SmallPtrSet<const ValueDecl *, 8> fromOutside() const {
    llvm::SmallPtrSet<const ValueDecl *, 8> Result;
    for (const ValueDecl *D : Found)
      if (!Declared.count(D))
        Result.insert(D);
    return Result;
  }
  llvm::SmallPtrSet<const ValueDecl *, 8> Found;
  llvm::SmallPtrSet<const ValueDecl *, 4> Declared;
};

/// Why statements between the moved one and its new place could observe
/// the move: a write to what it reads, a name that shadows one it uses, a
/// jump, a lambda (it may capture by reference and run later).
class MoveHazards : public RecursiveASTVisitor<MoveHazards> {
public:
  explicit MoveHazards(const llvm::SmallPtrSetImpl<const ValueDecl *> &Read)
      : Read(Read) {
    for (const ValueDecl *D : Read)
      Names.insert(D->getName());
  }

  bool Found = false;

  bool TraverseLambdaExpr(LambdaExpr *) { return hazard(); }
  bool TraverseBlockExpr(BlockExpr *) { return hazard(); }
  bool VisitReturnStmt(ReturnStmt *) { return hazard(); }
  bool VisitCoreturnStmt(CoreturnStmt *) { return hazard(); }
  bool VisitGotoStmt(GotoStmt *) { return hazard(); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return hazard(); }
  bool VisitLabelStmt(LabelStmt *) { return hazard(); }
  bool VisitCXXThrowExpr(CXXThrowExpr *) { return hazard(); }
  // A break or continue leaves the block unless a loop or switch inside the
  // statements owns it.
  bool TraverseForStmt(ForStmt *S) { return nested([&] { return Base::TraverseForStmt(S); }); }
  bool TraverseWhileStmt(WhileStmt *S) { return nested([&] { return Base::TraverseWhileStmt(S); }); }
  bool TraverseDoStmt(DoStmt *S) { return nested([&] { return Base::TraverseDoStmt(S); }); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return nested([&] { return Base::TraverseCXXForRangeStmt(S); });
  }
  bool TraverseSwitchStmt(SwitchStmt *S) { return nested([&] { return Base::TraverseSwitchStmt(S); }); }
  bool VisitBreakStmt(BreakStmt *) { return Loops ? true : hazard(); }
  bool VisitContinueStmt(ContinueStmt *) { return Loops ? true : hazard(); }

  bool VisitVarDecl(VarDecl *Var) {
    // A new name that hides one the moved statement uses, or a reference
    // that may write through later.
    if (Names.count(Var->getName()))
      return hazard();
    if (Var->getType()->isReferenceType() && Var->getInit())
      for (const ValueDecl *D : Read)
        if (refersTo(Var->getInit(), D))
          return hazard();
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *Op) {
    return Op->isAssignmentOp() ? checkWrite(Op->getLHS()) : true;
  }
  bool VisitUnaryOperator(UnaryOperator *Op) {
    if (Op->isIncrementDecrementOp() || Op->getOpcode() == UO_AddrOf)
      return checkWrite(Op->getSubExpr());
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    unsigned Shift = 0;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      if (const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Callee);
          Method && !Method->isStatic() && !Method->hasCXXExplicitFunctionObjectParameter()) {
        // The object of a member operator (`d = x`, `d += x`).
        if (!Method->isConst() && Op->getNumArgs() > 0 &&
            !checkWrite(Op->getArg(0)))
          return false;
        Shift = 1;
      }
    for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
      const Expr *Arg = Call->getArg(I)->IgnoreParens();
      // Bound to a reference (no lvalue-to-rvalue conversion, no copy):
      // a write unless the parameter is a reference to const.
      if (!isa<DeclRefExpr>(Arg) && !isa<MemberExpr>(Arg))
        continue;
      bool ConstRef = false;
      if (Callee && I - Shift < Callee->getNumParams()) {
        QualType Type = Callee->getParamDecl(I - Shift)->getType();
        ConstRef = !Type->isReferenceType() ||
                   Type->getPointeeType().isConstQualified();
      }
      if (!ConstRef && !checkWrite(Arg))
        return false;
    }
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (Method && Method->isConst())
      return true;
    return checkWrite(Call->getImplicitObjectArgument());
  }

private:
  using Base = RecursiveASTVisitor<MoveHazards>;
  bool hazard() {
    Found = true;
    return false;
  }
  template <typename F> bool nested(F Traverse) {
    ++Loops;
    bool Continue = Traverse();
    --Loops;
    return Continue;
  }
  bool checkWrite(const Expr *Target) {
    for (const ValueDecl *D : Read)
      if (refersTo(Target, D))
        return hazard();
    return true;
  }

  const llvm::SmallPtrSetImpl<const ValueDecl *> &Read;
  llvm::StringSet<> Names;
  unsigned Loops = 0;
};

/// Whether the function lets \p D be changed behind its back: its address
/// stored or bound to a reference anywhere (`&d` passed straight to a call,
/// as `cudaMallocAsync(&buf, ...)` does, is not stored), or a lambda that
/// captures it by reference.
class AddressEscape : public RecursiveASTVisitor<AddressEscape> {
public:
  explicit AddressEscape(const ValueDecl *D) : D(D) {}
  bool Escapes = false;

  bool VisitUnaryOperator(UnaryOperator *Op) {
    if (Op->getOpcode() == UO_AddrOf && refersTo(Op->getSubExpr(), D) &&
        !PassedToCall.count(Op))
      Escapes = true;
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    for (const Expr *Arg : Call->arguments())
      if (const auto *Op = dyn_cast<UnaryOperator>(Arg->IgnoreParenImpCasts()))
        PassedToCall.insert(Op);
    return true;
  }
  bool VisitVarDecl(VarDecl *Var) {
    if (Var->getType()->isReferenceType() && refersTo(Var->getInit(), D))
      Escapes = true;
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable() && Capture.getCapturedVar() == D &&
          Capture.getCaptureKind() != LCK_ByCopy)
        Escapes = true;
    return true;
  }

private:
  const ValueDecl *D;
  llvm::SmallPtrSet<const UnaryOperator *, 4> PassedToCall;
};

/// An expression statement, or the `do { ... } while (0)` of a
/// statement-like macro (`CUDA_CHECK(cudaFreeAsync(p, s));`): what one call
/// of the API with its error check looks like.
bool isSimpleStatement(const Stmt *S) {
  if (isa<Expr>(S))
    return true;
  const auto *Do = dyn_cast<DoStmt>(S);
  if (!Do || !Do->getBeginLoc().isMacroID())
    return false;
  const Expr *Cond = Do->getCond()->IgnoreParenImpCasts();
  if (const auto *Int = dyn_cast<IntegerLiteral>(Cond))
    return Int->getValue() == 0;
  if (const auto *Bool = dyn_cast<CXXBoolLiteralExpr>(Cond))
    return !Bool->getValue();
  return false;
}

/// The streams of the IR and of the lattice name the same stream.
bool sameStream(const ir::StreamRef &Ref, const core::StreamKey &Key) {
  switch (Ref.Kind) {
  case ir::StreamRef::Named:
    return Key.Kind == core::StreamKey::Named && Key.Name == Ref.Name;
  case ir::StreamRef::LegacyDefault:
    return Key.Kind == core::StreamKey::LegacyDefault;
  case ir::StreamRef::PerThread:
    return Key.Kind == core::StreamKey::PerThread;
  case ir::StreamRef::Current: // which one depends on guards: not certain
  case ir::StreamRef::Unknown:
    return false;
  }
  return false;
}

/// The operation mentions the event \p Event (records it, waits on it,
/// syncs on it, copies it, passes it to a function).
bool mentionsEvent(const Inst &I, ir::NameId Event) {
  if (I.Event == Event)
    return true;
  if ((I.Kind == ir::OpKind::Bind || I.Kind == ir::OpKind::Move ||
       I.Kind == ir::OpKind::Kill) &&
      llvm::is_contained(I.Names, Event))
    return true;
  if (I.Kind == ir::OpKind::Call)
    for (const ir::CallArg &Arg : I.Args)
      if (Arg.Value == Event || Arg.AddressOf == Event)
        return true;
  return false;
}

/// The one operation of \p Kind among a statement's operations, when the
/// others only move names around (the `cudaError_t status = (call)` of an
/// error-checking macro); null otherwise.
const Inst *soleOperation(llvm::ArrayRef<const Inst *> Ops, ir::OpKind Kind) {
  const Inst *Found = nullptr;
  for (const Inst *I : Ops) {
    if (I->Kind == Kind && !Found) {
      Found = I;
      continue;
    }
    if (I->Kind != ir::OpKind::Bind && I->Kind != ir::OpKind::Move &&
        I->Kind != ir::OpKind::Kill)
      return nullptr;
  }
  return Found;
}

bool mentionsBuffer(const Inst &I, ir::NameId Buffer) {
  if (llvm::is_contained(I.Names, Buffer))
    return true;
  if (I.Kind == ir::OpKind::Call)
    for (const ir::CallArg &Arg : I.Args)
      if (Arg.Value == Buffer || Arg.AddressOf == Buffer)
        return true;
  return false;
}

} // namespace

class FixItPlanner::Impl {
public:
  Impl(const FunctionDecl &Function, const TranslationUnitIR &Unit)
      : Unit(Unit), Ctx(Unit.context()), SM(Ctx.getSourceManager()),
        LO(Ctx.getLangOpts()), Body(Function.getBody()) {
    if (!Body)
      return;
    collectSlots(Body, 0);
    std::optional<std::pair<FileID, std::pair<unsigned, unsigned>>> BodyRange =
        fileRange(Body);
    if (!BodyRange)
      return;
    BodyFile = BodyRange->first;
    BodyBegin = BodyRange->second.first;
    BodyEnd = BodyRange->second.second;
    for (const ir::Function &F : Unit.module().Functions)
      for (const ir::Block &B : F.Blocks)
        for (const Inst &I : B.Insts) {
          std::optional<std::pair<FileID, unsigned>> At = place(I.Site);
          if (At && At->first == BodyRange->first &&
              At->second >= BodyRange->second.first &&
              At->second < BodyRange->second.second)
            Insts.push_back({At->first, At->second, &I});
        }
  }

  std::optional<FixItPlan>
  moveReleaseAfterWait(const core::FreeBeforeWaitFinding &Finding) const;
  std::optional<FixItPlan> moveRecordAfterLastUse(
      const core::MissingConsumerEventFinding &Finding,
      llvm::ArrayRef<core::MissingConsumerEventFinding> Siblings) const;

private:
  // --- Where things are -------------------------------------------------

  std::optional<std::pair<FileID, std::pair<unsigned, unsigned>>>
  fileRange(const Stmt *S) const {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
    if (Range.isInvalid())
      return std::nullopt;
    auto [BeginFile, Begin] = SM.getDecomposedLoc(Range.getBegin());
    auto [EndFile, End] = SM.getDecomposedLoc(Range.getEnd());
    if (BeginFile != EndFile || End < Begin)
      return std::nullopt;
    return std::make_pair(BeginFile, std::make_pair(Begin, End));
  }

  std::optional<std::pair<FileID, unsigned>> place(ir::SiteId Site) const {
    SourceLocation Loc = Unit.location(Site);
    if (Loc.isInvalid())
      return std::nullopt;
    Loc = SM.getExpansionLoc(Loc);
    return SM.getDecomposedLoc(Loc);
  }

  void collectSlots(const Stmt *S, unsigned Depth) {
    if (!S || isa<LambdaExpr>(S) || isa<BlockExpr>(S))
      return; // their bodies are functions of their own
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
      unsigned Index = 0;
      for (const Stmt *Child : Block->body()) {
        if (auto Range = fileRange(Child)) {
          SourceLocation Last = Lexer::GetBeginningOfToken(
              SM.getComposedLoc(Range->first, Range->second.second - 1), SM,
              LO);
          Slots.push_back({Block, Index, Depth, Range->first,
                           Range->second.first, Range->second.second,
                           SM.getFileOffset(Last)});
        }
        ++Index;
        collectSlots(Child, Depth + 1);
      }
      return;
    }
    for (const Stmt *Child : S->children())
      collectSlots(Child, Depth);
  }

  /// The innermost block statement holding the site.
  const Slot *slotOf(ir::SiteId Site) const {
    std::optional<std::pair<FileID, unsigned>> At = place(Site);
    if (!At)
      return nullptr;
    const Slot *Best = nullptr;
    for (const Slot &S : Slots)
      if (S.File == At->first && S.Begin <= At->second && At->second < S.End &&
          (!Best || S.Depth > Best->Depth))
        Best = &S;
    return Best;
  }

  /// The statement of \p Block that holds the site (the site may be nested
  /// deeper inside it).
  const Slot *slotIn(const CompoundStmt *Block, ir::SiteId Site) const {
    std::optional<std::pair<FileID, unsigned>> At = place(Site);
    if (!At)
      return nullptr;
    for (const Slot &S : Slots)
      if (S.Block == Block && S.File == At->first && S.Begin <= At->second &&
          At->second < S.End)
        return &S;
    return nullptr;
  }

  const Slot *slotAt(const CompoundStmt *Block, unsigned Index) const {
    for (const Slot &S : Slots)
      if (S.Block == Block && S.Index == Index)
        return &S;
    return nullptr;
  }

  std::vector<const Inst *> instsIn(const Slot &S) const {
    std::vector<const Inst *> Result;
    for (const PlacedInst &P : Insts)
      if (P.File == S.File && S.Begin <= P.Offset && P.Offset < S.End)
        Result.push_back(P.Op);
    return Result;
  }

  /// The operation of kind \p Kind at \p Site.
  const Inst *instAt(ir::SiteId Site, ir::OpKind Kind) const {
    for (const PlacedInst &P : Insts)
      if (P.Op->Site == Site && P.Op->Kind == Kind)
        return P.Op;
    return nullptr;
  }

  /// Statement \p Index of \p Block lies before it: a use before the block
  /// (in the same file) precedes every statement of the block.
  bool precedes(ir::SiteId Site, const Slot &S) const {
    if (const Slot *In = slotIn(S.Block, Site))
      return In->Index < S.Index;
    // A site of this function's body (not of a callee defined above it).
    std::optional<std::pair<FileID, unsigned>> At = place(Site);
    const Slot *First = slotAt(S.Block, 0);
    return At && First && At->first == S.File && At->first == BodyFile &&
           BodyBegin <= At->second && At->second < First->Begin;
  }

  // --- Is the move certain ---------------------------------------------

  /// The statement can be moved textually: an expression statement whose
  /// text (with its semicolon) lies in one file.
  std::optional<unsigned> semicolonEnd(const Slot &S) const {
    if (!isSimpleStatement(S.statement()))
      return std::nullopt;
    SourceLocation After = Lexer::findLocationAfterToken(
        SM.getComposedLoc(S.File, S.LastToken), tok::semi, SM, LO,
        /*SkipTrailingWhitespaceAndNewLine=*/false);
    if (After.isInvalid() || !After.isFileID())
      return std::nullopt;
    auto [File, Offset] = SM.getDecomposedLoc(After);
    if (File != S.File)
      return std::nullopt;
    return Offset;
  }

  /// Where the statement's text ends: after its `;` or `}`.
  std::optional<unsigned> statementEnd(const Slot &S) const {
    Token Last;
    if (!Lexer::getRawToken(SM.getComposedLoc(S.File, S.LastToken), Last, SM, LO,
                            /*IgnoreWhiteSpace=*/false) &&
        (Last.is(tok::r_brace) || Last.is(tok::semi)) &&
        !isSimpleStatement(S.statement()))
      return S.End;
    SourceLocation After = Lexer::findLocationAfterToken(
        SM.getComposedLoc(S.File, S.LastToken), tok::semi, SM, LO, false);
    if (After.isInvalid() || !After.isFileID() ||
        SM.getFileID(After) != S.File)
      return std::nullopt;
    return SM.getFileOffset(After);
  }

  /// The declarations the moved statement reads, when all of them are
  /// locals or by-value parameters of this function whose address does not
  /// escape; nullopt otherwise (a member or global may change under any
  /// call in between).
  std::optional<llvm::SmallPtrSet<const ValueDecl *, 8>>
  movableReads(const Slot &Moved, const ValueDecl *Exempt) const {
    ReferencedDecls Refs;
    Refs.TraverseStmt(const_cast<Stmt *>(Moved.statement()));
    llvm::SmallPtrSet<const ValueDecl *, 8> Reads = Refs.fromOutside();
    for (const ValueDecl *D : Reads) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var || !Var->hasLocalStorage() || Var->getType()->isReferenceType())
        return std::nullopt;
      if (D == Exempt)
        continue;
      AddressEscape Escape(D);
      Escape.TraverseStmt(const_cast<Stmt *>(Body));
      if (Escape.Escapes)
        return std::nullopt;
    }
    return Reads;
  }

  /// The declaration among \p Reads that the IR name \p Name denotes.
  const ValueDecl *
  declFor(const llvm::SmallPtrSetImpl<const ValueDecl *> &Reads,
          ir::NameId Name) const {
    if (Name == ir::NoId || Name >= Unit.module().Names.size())
      return nullptr;
    StringRef Id = trailingIdentifier(Unit.module().Names[Name].Spelling);
    const ValueDecl *Found = nullptr;
    for (const ValueDecl *D : Reads)
      if (!Id.empty() && D->getName() == Id) {
        if (Found)
          return nullptr;
        Found = D;
      }
    return Found;
  }

  /// Statements (From, To] of the block: none may jump, declare a name the
  /// moved statement uses, write what it reads or mention \p Untouchable.
  bool quietBetween(const Slot &From, const Slot &To,
                    const llvm::SmallPtrSetImpl<const ValueDecl *> &Reads,
                    const ValueDecl *Untouchable) const {
    for (unsigned Index = From.Index + 1; Index <= To.Index; ++Index) {
      const Slot *S = slotAt(From.Block, Index);
      if (!S || isa<SwitchCase>(S->statement()))
        return false;
      MoveHazards Hazards(Reads);
      Hazards.TraverseStmt(const_cast<Stmt *>(S->statement()));
      if (Hazards.Found)
        return false;
      ReferencedDecls Refs;
      Refs.TraverseStmt(const_cast<Stmt *>(S->statement()));
      if (Untouchable && Refs.Found.count(Untouchable))
        return false;
    }
    return true;
  }

  // --- The edit -----------------------------------------------------------

  /// Moves the text of \p Moved (ending at \p MovedEnd) to right after
  /// \p Target (ending at \p TargetEnd): whole lines when the statement has
  /// its line(s) to itself, with its indentation and trailing comment. One
  /// replacement from the moved statement to the target, which repeats the
  /// text in between: clang's fix-it merging widens a pure removal of a
  /// line by the next line's first blank (EditedSource's adjustRemoval).
  std::optional<FixItPlan> move(const Slot &Moved, unsigned MovedEnd,
                                const Slot &Target, unsigned TargetEnd) const {
    if (Moved.File != Target.File || MovedEnd > Target.Begin)
      return std::nullopt;
    bool Invalid = false;
    StringRef Text = SM.getBufferData(Moved.File, &Invalid);
    if (Invalid)
      return std::nullopt;
    auto lineStart = [&](unsigned Offset) {
      while (Offset > 0 && Text[Offset - 1] != '\n')
        --Offset;
      return Offset;
    };
    // The end of the line's content (before "\r\n" or "\n") when only
    // blanks or a // comment follow \p Offset on it.
    auto restOfLine = [&](unsigned Offset) -> std::optional<unsigned> {
      unsigned I = Offset;
      while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
        ++I;
      if (Text.substr(I).starts_with("//"))
        I = std::min(Text.size(), Text.find('\n', I));
      if (I < Text.size() && Text[I] == '\r' && I + 1 < Text.size() &&
          Text[I + 1] == '\n')
        return I;
      if (I == Text.size() || Text[I] == '\n')
        return I;
      return std::nullopt;
    };
    auto location = [&](unsigned Offset) {
      return SM.getComposedLoc(Moved.File, Offset);
    };
    // A preprocessor line in between (`#ifdef SYNC` around the wait, `#endif`
    // of a block around the release): the moved text would change which
    // builds release the buffer, and the other builds were never analysed.
    for (unsigned Line = lineStart(Moved.Begin); Line < TargetEnd;) {
      if (Text.substr(Line).ltrim(" \t").starts_with("#"))
        return std::nullopt;
      size_t Eol = Text.find('\n', Line);
      if (Eol == StringRef::npos)
        break;
      Line = Eol + 1;
    }

    FixItPlan Plan;
    Plan.After = location(Target.Begin);
    unsigned LineBegin = lineStart(Moved.Begin);
    std::optional<unsigned> MovedEol = restOfLine(MovedEnd);
    std::optional<unsigned> TargetEol = restOfLine(TargetEnd);
    bool OwnLine = MovedEol && TargetEol &&
                   Text.slice(LineBegin, Moved.Begin).trim(" \t").empty();
    if (OwnLine) {
      StringRef Newline = Text.substr(*MovedEol).starts_with("\r\n") ? "\r\n" : "\n";
      unsigned NextLine = std::min<unsigned>(Text.size(), *MovedEol + Newline.size());
      if (NextLine > Target.Begin)
        return std::nullopt;
      StringRef Lines = Text.slice(LineBegin, *MovedEol);
      Plan.Hints.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getCharRange(location(LineBegin),
                                        location(*TargetEol)),
          (Text.slice(NextLine, *TargetEol) + Newline + Lines).str()));
      return Plan;
    }
    Plan.Hints.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(location(Moved.Begin),
                                      location(TargetEnd)),
        (Text.slice(MovedEnd, TargetEnd).ltrim(" \t") + " " +
         Text.slice(Moved.Begin, MovedEnd))
            .str()));
    return Plan;
  }

  const TranslationUnitIR &Unit;
  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  const Stmt *Body;
  FileID BodyFile;
  unsigned BodyBegin = 0, BodyEnd = 0;
  std::vector<Slot> Slots;
  std::vector<PlacedInst> Insts;
};

std::optional<FixItPlan> FixItPlanner::Impl::moveReleaseAfterWait(
    const core::FreeBeforeWaitFinding &Finding) const {
  if (Finding.LateWaits.empty() || Finding.Uses.empty())
    return std::nullopt;
  // The release: an expression statement doing nothing but releasing
  // (`cudaFreeAsync(buf, s);`, `t.reset();`, `t = at::Tensor();`). A
  // release by the last owner at a scope's end has no statement of its own:
  // its site is the closing brace, whose slot is the block, not an
  // expression.
  const Slot *Release = slotOf(Finding.ReleaseSite);
  if (!Release)
    return std::nullopt;
  std::optional<unsigned> ReleaseEnd = semicolonEnd(*Release);
  if (!ReleaseEnd)
    return std::nullopt;
  for (const Inst *I : instsIn(*Release))
    if (I->Kind != ir::OpKind::Release && I->Kind != ir::OpKind::ReleaseSync &&
        I->Kind != ir::OpKind::Kill && I->Kind != ir::OpKind::Bind &&
        I->Kind != ir::OpKind::Move)
      return std::nullopt;

  // Each racing use needs a late wait of the release stream, in this block,
  // on an event recorded on the use's stream after the use, with nothing in
  // between that records, waits on or syncs that event again.
  const Slot *Latest = nullptr;
  const llvm::SmallPtrSet<const ValueDecl *, 1> NoReads;
  for (const core::FreeBeforeWaitFinding::RacingUse &Use : Finding.Uses) {
    if (Use.FromEarlierIteration || !Use.StaleWaits.empty() ||
        !Use.WrongStreamWaits.empty())
      return std::nullopt;
    const Slot *Covering = nullptr;
    for (const auto &[WaitSite, Waiter, Consumer] : Finding.LateWaits) {
      if (Waiter != Finding.ReleaseStream)
        continue;
      const Inst *Wait = instAt(WaitSite, ir::OpKind::WaitEvent);
      const Slot *WaitSlot = slotIn(Release->Block, WaitSite);
      if (!Wait || Wait->Event == ir::NoId || !WaitSlot ||
          WaitSlot->Index <= Release->Index)
        continue;
      // The last statement before the wait that mentions the event must
      // be its record on the use's stream, after the use.
      bool Covers = false;
      for (unsigned Index = WaitSlot->Index; Index-- > 0;) {
        const Slot *S = slotAt(Release->Block, Index);
        if (!S)
          break;
        std::vector<const Inst *> Ops = instsIn(*S);
        bool Mentions = llvm::any_of(
            Ops, [&](const Inst *I) { return mentionsEvent(*I, Wait->Event); });
        if (!Mentions)
          continue;
        // The record is this statement itself, not one nested in a
        // branch or loop of it (which may not run).
        const Inst *Record = soleOperation(Ops, ir::OpKind::RecordEvent);
        Covers = Record && Record->Event == Wait->Event &&
                 isSimpleStatement(S->statement()) && slotOf(Record->Site) == S &&
                 sameStream(Record->Stream, Use.Stream) &&
                 precedes(Use.Site, *S) &&
                 quietBetween(*S, *WaitSlot, NoReads, nullptr);
        break;
      }
      if (Covers && (!Covering || WaitSlot->Index < Covering->Index))
        Covering = WaitSlot;
    }
    if (!Covering)
      return std::nullopt;
    if (!Latest || Covering->Index > Latest->Index)
      Latest = Covering;
  }
  std::optional<unsigned> WaitEnd = semicolonEnd(*Latest);
  if (!WaitEnd)
    return std::nullopt;

  // Nothing between the release and the wait may touch the buffer, write
  // what the release reads, or jump.
  ReferencedDecls Probe;
  Probe.TraverseStmt(const_cast<Stmt *>(Release->statement()));
  const ValueDecl *Buffer = declFor(Probe.fromOutside(), Finding.Buffer);
  if (!Buffer)
    return std::nullopt;
  std::optional<llvm::SmallPtrSet<const ValueDecl *, 8>> Reads =
      movableReads(*Release, Buffer);
  if (!Reads || !quietBetween(*Release, *Latest, *Reads, Buffer))
    return std::nullopt;
  for (unsigned Index = Release->Index + 1; Index <= Latest->Index; ++Index)
    if (const Slot *S = slotAt(Release->Block, Index))
      for (const Inst *I : instsIn(*S))
        if (mentionsBuffer(*I, Finding.Buffer))
          return std::nullopt;
  return move(*Release, *ReleaseEnd, *Latest, *WaitEnd);
}

std::optional<FixItPlan> FixItPlanner::Impl::moveRecordAfterLastUse(
    const core::MissingConsumerEventFinding &Finding,
    llvm::ArrayRef<core::MissingConsumerEventFinding> Siblings) const {
  if (Finding.RecordSite == ir::NoId || Finding.Event == ir::NoId)
    return std::nullopt;
  const Slot *Record = slotOf(Finding.RecordSite);
  if (!Record)
    return std::nullopt;
  std::optional<unsigned> RecordEnd = semicolonEnd(*Record);
  if (!RecordEnd)
    return std::nullopt;
  const Inst *RecordOp = soleOperation(instsIn(*Record), ir::OpKind::RecordEvent);
  if (!RecordOp || RecordOp->Event != Finding.Event ||
      !sameStream(RecordOp->Stream, Finding.EventStream))
    return std::nullopt;
  // The wait sees this record: same block, later, nothing in between that
  // mentions the event.
  const Slot *Wait = slotIn(Record->Block, Finding.WaitSite);
  if (!Wait || Wait->Index <= Record->Index)
    return std::nullopt;
  // The record moves after the latest last use of every buffer whose
  // finding names this record and wait; each such use lies between them.
  const Slot *Target = nullptr;
  for (const core::MissingConsumerEventFinding &Other : Siblings) {
    if (Other.WaitSite != Finding.WaitSite ||
        Other.RecordSite != Finding.RecordSite)
      continue;
    const Slot *Use = slotIn(Record->Block, Other.LastUseSite);
    if (!Use || Use->Index <= Record->Index || Use->Index >= Wait->Index)
      return std::nullopt;
    if (!Target || Use->Index > Target->Index)
      Target = Use;
  }
  if (!Target)
    return std::nullopt;
  std::optional<unsigned> TargetEnd = statementEnd(*Target);
  if (!TargetEnd)
    return std::nullopt;
  for (unsigned Index = Record->Index + 1; Index < Wait->Index; ++Index)
    if (const Slot *S = slotAt(Record->Block, Index))
      for (const Inst *I : instsIn(*S))
        if (mentionsEvent(*I, Finding.Event))
          return std::nullopt;
  ReferencedDecls Probe;
  Probe.TraverseStmt(const_cast<Stmt *>(Record->statement()));
  const ValueDecl *Event = declFor(Probe.fromOutside(), Finding.Event);
  if (!Event)
    return std::nullopt;
  std::optional<llvm::SmallPtrSet<const ValueDecl *, 8>> Reads =
      movableReads(*Record, nullptr);
  if (!Reads || !quietBetween(*Record, *Target, *Reads, Event))
    return std::nullopt;
  return move(*Record, *RecordEnd, *Target, *TargetEnd);
}

FixItPlanner::FixItPlanner(const FunctionDecl &Function,
                           const TranslationUnitIR &Unit)
    : P(std::make_unique<Impl>(Function, Unit)) {}
FixItPlanner::~FixItPlanner() = default;

std::optional<FixItPlan> FixItPlanner::moveReleaseAfterWait(
    const core::FreeBeforeWaitFinding &Finding) const {
  return P->moveReleaseAfterWait(Finding);
}

std::optional<FixItPlan> FixItPlanner::moveRecordAfterLastUse(
    const core::MissingConsumerEventFinding &Finding,
    llvm::ArrayRef<core::MissingConsumerEventFinding> Siblings) const {
  return P->moveRecordAfterLastUse(Finding, Siblings);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
