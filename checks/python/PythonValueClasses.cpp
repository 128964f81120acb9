//===--- PythonValueClasses.cpp - streamlife ------------------------------===//
//
// The value classes of the parameters a function tests against constants,
// and the tests they decide (see PythonValueClasses.h).
//
//===----------------------------------------------------------------------===//

#include "PythonValueClasses.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>

namespace streamlife::python::lowering {

namespace {

PyNode unparenthesized(PyNode N) {
  while (N.is("parenthesized_expression") && N.namedChildren().size() == 1)
    N = N.namedChildren().front();
  return N;
}

/// The operator between the two operands of a binary node (`not in`, `is
/// not` are two tokens, so the text between the operands is read).
llvm::StringRef operatorBetween(PyNode Whole, PyNode Left, PyNode Right) {
  return Whole.text()
      .slice(Left.endByte() - Whole.startByte(),
             Right.startByte() - Whole.startByte())
      .trim();
}

/// A literal: a number, a plain string, True/False (the numbers 1 and 0 to
/// `==`, as in Python), None.
std::optional<ClassValue> literal(PyNode N) {
  N = unparenthesized(N);
  ClassValue V;
  if (N.is("true") || N.is("false")) {
    V.K = ClassValue::Number;
    V.Num = N.is("true") ? 1 : 0;
    return V;
  }
  if (N.is("none")) {
    V.K = ClassValue::None;
    return V;
  }
  if (N.is("integer") || N.is("float")) {
    std::string Digits;
    for (char C : N.text())
      if (C != '_')
        Digits += C;
    // 0o17 and 0b101 are not strtod's; they are rare enough to leave out.
    llvm::StringRef D(Digits);
    if (D.starts_with_insensitive("0o") || D.starts_with_insensitive("0b") ||
        D.ends_with_insensitive("j"))
      return std::nullopt;
    char *End = nullptr;
    V.Num = std::strtod(Digits.c_str(), &End);
    if (End != Digits.c_str() + Digits.size())
      return std::nullopt;
    V.K = ClassValue::Number;
    return V;
  }
  if (N.is("unary_operator")) {
    std::optional<ClassValue> A = literal(N.field("argument"));
    llvm::StringRef Op = N.text().take_front(1);
    if (!A || A->K != ClassValue::Number || (Op != "-" && Op != "+"))
      return std::nullopt;
    if (Op == "-")
      A->Num = -A->Num;
    return A;
  }
  if (N.is("string")) {
    // Plain strings only: no prefix (f, b, r), no escapes, no interpolation.
    std::string Content;
    for (PyNode Part : N.namedChildren()) {
      if (Part.is("string_start")) {
        llvm::StringRef Quote = Part.text();
        if (Quote != "'" && Quote != "\"" && Quote != "'''" &&
            Quote != "\"\"\"")
          return std::nullopt;
      } else if (Part.is("string_content")) {
        if (!Part.namedChildren().empty())
          return std::nullopt;
        Content += Part.text().str();
      } else if (!Part.is("string_end")) {
        return std::nullopt;
      }
    }
    V.K = ClassValue::String;
    V.Str = std::move(Content);
    V.Truthy = !V.Str.empty();
    return V;
  }
  return std::nullopt;
}

/// One test of a variable: `v == c`, `c < v`, `v in (a, b)`, `v is None`,
/// `v` (its truth).
struct Atom {
  enum Op { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot, Truth } Kind = Truth;
  std::string Var;
  std::vector<ClassValue> Constants;
};

template <typename IsVariable>
std::optional<Atom> atom(PyNode Test, IsVariable &&IsVar) {
  Test = unparenthesized(Test);
  Atom A;
  if (Test.is("identifier")) {
    if (!IsVar(Test.text()))
      return std::nullopt;
    A.Var = Test.text().str();
    return A;
  }
  if (!Test.is("comparison_operator"))
    return std::nullopt;
  auto Operands = Test.namedChildren();
  if (Operands.size() != 2)
    return std::nullopt; // `0 < v < 3`: not one test
  llvm::StringRef Op = operatorBetween(Test, Operands[0], Operands[1]);
  PyNode L = unparenthesized(Operands[0]), R = unparenthesized(Operands[1]);
  bool Flipped = false;
  if (!(L.is("identifier") && IsVar(L.text()))) {
    if (!(R.is("identifier") && IsVar(R.text())) || Op == "in" ||
        Op == "not in")
      return std::nullopt;
    std::swap(L, R);
    Flipped = true;
  }
  A.Var = L.text().str();
  static const std::pair<llvm::StringRef, Atom::Op> Ops[] = {
      {"==", Atom::Eq}, {"!=", Atom::Ne},      {"<", Atom::Lt},
      {"<=", Atom::Le}, {">", Atom::Gt},       {">=", Atom::Ge},
      {"in", Atom::In}, {"not in", Atom::NotIn}, {"is", Atom::Is},
      {"is not", Atom::IsNot}};
  auto Found = std::find_if(std::begin(Ops), std::end(Ops),
                            [&](const auto &P) { return P.first == Op; });
  if (Found == std::end(Ops))
    return std::nullopt;
  A.Kind = Found->second;
  if (Flipped) {
    static const std::map<Atom::Op, Atom::Op> Mirror = {
        {Atom::Lt, Atom::Gt}, {Atom::Gt, Atom::Lt},
        {Atom::Le, Atom::Ge}, {Atom::Ge, Atom::Le}};
    if (auto M = Mirror.find(A.Kind); M != Mirror.end())
      A.Kind = M->second;
  }
  if (A.Kind == Atom::In || A.Kind == Atom::NotIn) {
    if (!R.is("tuple") && !R.is("list") && !R.is("set"))
      return std::nullopt;
    for (PyNode E : R.namedChildren()) {
      std::optional<ClassValue> C = literal(E);
      if (!C)
        return std::nullopt;
      A.Constants.push_back(*C);
    }
    return A;
  }
  std::optional<ClassValue> C = literal(R);
  if (!C)
    return std::nullopt;
  // `v is 1` is about identity, which a class of equal values does not
  // decide; `v is None` is (None is one object).
  if ((A.Kind == Atom::Is || A.Kind == Atom::IsNot) && C->K != ClassValue::None)
    return std::nullopt;
  A.Constants.push_back(*C);
  return A;
}

bool equal(const ClassValue &V, const ClassValue &C) {
  if (V.K != C.K || V.K == ClassValue::Opaque)
    return false;
  switch (V.K) {
  case ClassValue::Number:
    return V.Num == C.Num;
  case ClassValue::String:
    return V.Str == C.Str;
  default:
    return true; // None is None
  }
}

std::optional<bool> evaluate(const Atom &A, const ClassValue &V) {
  auto anyEqual = [&] {
    return std::any_of(A.Constants.begin(), A.Constants.end(),
                       [&](const ClassValue &C) { return equal(V, C); });
  };
  switch (A.Kind) {
  case Atom::Eq:
  case Atom::In:
  case Atom::Is:
    return anyEqual();
  case Atom::Ne:
  case Atom::NotIn:
  case Atom::IsNot:
    return !anyEqual();
  case Atom::Truth:
    switch (V.K) {
    case ClassValue::Number:
      return V.Num != 0;
    case ClassValue::None:
      return false;
    default:
      return V.Truthy;
    }
  default:
    break;
  }
  const ClassValue &C = A.Constants.front();
  if (V.K != ClassValue::Number || C.K != ClassValue::Number)
    return std::nullopt;
  switch (A.Kind) {
  case Atom::Lt:
    return V.Num < C.Num;
  case Atom::Le:
    return V.Num <= C.Num;
  case Atom::Gt:
    return V.Num > C.Num;
  default:
    return V.Num >= C.Num;
  }
}

/// The leaves of an `if` condition: the tests under `not`, `and`, `or`.
template <typename IsVariable>
void collectAtoms(PyNode Condition, IsVariable &&IsVar,
                  std::vector<Atom> &Out) {
  Condition = unparenthesized(Condition);
  if (Condition.is("not_operator"))
    return collectAtoms(Condition.field("argument"), IsVar, Out);
  if (Condition.is("boolean_operator")) {
    collectAtoms(Condition.field("left"), IsVar, Out);
    collectAtoms(Condition.field("right"), IsVar, Out);
    return;
  }
  if (std::optional<Atom> A = atom(Condition, IsVar))
    Out.push_back(std::move(*A));
}

/// What the walk of a body finds: the names it binds anywhere, and the
/// tests of parameters in its `if` statements.
struct BodyFacts {
  std::set<std::string, std::less<>> Bound;
  std::vector<std::pair<unsigned, Atom>> Tests; ///< (the `if`'s start, test)
};

/// Whether the branches of an `if` may order streams or change the
/// current one: where they do not, copies split on its test would differ
/// only in what the join merges anyway (which buffers are used). Told
/// from the words alone (the methods and contexts of the API table).
bool ordersStreams(PyNode If) {
  // `.record(` and `.wait(`: an event's own (`main_event.record()` on the
  // current stream, `main_event.wait()` under another stream's context)
  // and a collective's work handle.
  static const llvm::StringRef Words[] = {
      "wait_stream", "wait_event", "record_event", "record_stream",
      "synchronize", "stream(", "Event(", "set_stream", ".record(", ".wait("};
  llvm::StringRef Text = If.text();
  return std::any_of(std::begin(Words), std::end(Words),
                     [&](llvm::StringRef W) { return Text.contains(W); });
}

class BodyWalk {
public:
  BodyWalk(const llvm::StringSet<> &Params, BodyFacts &Out)
      : Params(Params), Out(Out) {}

  bool operator()(llvm::StringRef Name) const { return Params.count(Name) > 0; }

  void walk(PyNode N) {
    if (N.is("function_definition") || N.is("class_definition")) {
      bind(N.field("name"));
      nonlocals(N);
      return;
    }
    if (N.is("lambda"))
      return;
    if (N.is("assignment") || N.is("augmented_assignment")) {
      target(N.field("left"));
      if (PyNode Right = N.field("right"))
        walk(Right);
      return;
    }
    if (N.is("for_statement") || N.is("for_in_clause")) {
      target(N.field("left"));
      PyNode Left = N.field("left");
      for (PyNode Child : N.namedChildren())
        if (!(Child == Left))
          walk(Child);
      return;
    }
    if (N.is("named_expression")) {
      bind(N.field("name"));
      walk(N.field("value"));
      return;
    }
    if (N.is("except_clause") || N.is("as_pattern"))
      if (PyNode Alias = N.field("alias"))
        target(Alias);
    if (N.is("as_pattern_target") || N.is("delete_statement")) {
      for (PyNode Child : N.namedChildren())
        target(Child);
      return;
    }
    // Names an import, a `global`/`nonlocal`, or a `case` pattern binds:
    // every identifier in them, to be safe.
    if (N.is("import_statement") || N.is("import_from_statement") ||
        N.is("future_import_statement") || N.is("global_statement") ||
        N.is("nonlocal_statement") || N.is("case_pattern")) {
      bindAll(N);
      return;
    }
    if (N.is("if_statement")) {
      std::vector<Atom> Atoms;
      collectAtoms(N.field("condition"), *this, Atoms);
      for (PyNode Alt : N.fields("alternative"))
        if (Alt.is("elif_clause"))
          collectAtoms(Alt.field("condition"), *this, Atoms);
      if (!Atoms.empty() && ordersStreams(N))
        for (Atom &A : Atoms)
          Out.Tests.push_back({N.startByte(), std::move(A)});
    }
    for (PyNode Child : N.namedChildren())
      walk(Child);
  }

private:
  void bind(PyNode Name) {
    if (Name.is("identifier"))
      Out.Bound.insert(Name.text().str());
  }
  void bindAll(PyNode N) {
    if (N.is("identifier"))
      bind(N);
    for (PyNode Child : N.namedChildren())
      bindAll(Child);
  }
  /// An assignment's target: the names it binds; `x.a = ...` and `x[i] =
  /// ...` read x.
  void target(PyNode T) {
    if (T.is("identifier"))
      return bind(T);
    if (T.is("pattern_list") || T.is("tuple_pattern") ||
        T.is("list_pattern") || T.is("tuple") || T.is("list") ||
        T.is("expression_list") || T.is("parenthesized_expression") ||
        T.is("list_splat_pattern") || T.is("list_splat")) {
      for (PyNode Child : T.namedChildren())
        target(Child);
      return;
    }
    walk(T);
  }
  /// A nested function rebinds the parameter only through `nonlocal`.
  void nonlocals(PyNode N) {
    if (N.is("nonlocal_statement"))
      return bindAll(N);
    for (PyNode Child : N.namedChildren())
      nonlocals(Child);
  }
  const llvm::StringSet<> &Params;
  BodyFacts &Out;
};

/// The classes of one variable: one representative per distinct answer to
/// its tests.
std::vector<ClassValue> classesOf(const std::vector<const Atom *> &Tests) {
  bool Numeric = false, Truth = false, NoneToo = false;
  std::vector<ClassValue> Samples;
  for (const Atom *A : Tests) {
    Truth |= A->Kind == Atom::Truth;
    for (const ClassValue &C : A->Constants) {
      Numeric |= C.K == ClassValue::Number;
      NoneToo |= C.K == ClassValue::None;
      if (C.K == ClassValue::String)
        Samples.push_back(C);
    }
  }
  if (Numeric) {
    // Each constant, and a number on either side of it: every interval the
    // constants cut the numbers into. A value compared with numbers is a
    // number (or None, or a value no constant equals: the answers of a
    // number between the constants).
    for (const Atom *A : Tests)
      for (const ClassValue &C : A->Constants)
        if (C.K == ClassValue::Number)
          for (double D : {C.Num - 0.5, C.Num, C.Num + 0.5})
            Samples.push_back(ClassValue::number(D));
    if (Truth)
      Samples.push_back(ClassValue::number(0));
  } else {
    Samples.push_back(ClassValue::opaque(true));
    Samples.push_back(ClassValue::opaque(false));
  }
  if (NoneToo)
    Samples.push_back(ClassValue::none());
  std::vector<ClassValue> Classes;
  std::set<std::vector<int>> Seen;
  for (const ClassValue &S : Samples) {
    std::vector<int> Answers;
    for (const Atom *A : Tests) {
      std::optional<bool> R = evaluate(*A, S);
      Answers.push_back(R ? int(*R) : -1);
    }
    if (Seen.insert(Answers).second)
      Classes.push_back(S);
  }
  return Classes;
}

} // namespace

std::vector<ValueClass> valueClasses(PyNode Body,
                                     const llvm::StringSet<> &Params,
                                     size_t MaxCopies, const ValueClass &Fixed,
                                     const std::vector<std::string> &Flags) {
  auto onlyFixed = [&]() -> std::vector<ValueClass> {
    if (Fixed.empty())
      return {};
    return {Fixed};
  };
  // Most functions order no stream at all: no walk for them.
  if ((Params.empty() && Flags.empty()) || MaxCopies < 2 ||
      !ordersStreams(Body))
    return onlyFixed();
  BodyFacts Facts;
  BodyWalk(Params, Facts).walk(Body);
  // Per variable never rebound: its tests, and in how many `if`
  // statements (tests in one if/elif chain are exclusive already).
  std::map<std::string, std::vector<const Atom *>> TestsOf;
  std::map<std::string, std::set<unsigned>> StatementsOf;
  for (const auto &[Statement, A] : Facts.Tests) {
    if (Facts.Bound.count(A.Var) || Fixed.count(A.Var))
      continue;
    TestsOf[A.Var].push_back(&A);
    StatementsOf[A.Var].insert(Statement);
  }
  struct Candidate {
    std::string Var;
    size_t Statements;
    std::vector<ClassValue> Classes;
  };
  std::vector<Candidate> Candidates;
  // A flag is a bool: the numbers 1 and 0, as `==` reads True and False.
  for (const std::string &Flag : Flags)
    Candidates.push_back({Flag, SIZE_MAX,
                          {ClassValue::number(1), ClassValue::number(0)}});
  for (const auto &[Var, Statements] : StatementsOf) {
    if (Statements.size() < 2)
      continue;
    std::vector<ClassValue> Classes = classesOf(TestsOf[Var]);
    if (Classes.size() >= 2)
      Candidates.push_back({Var, Statements.size(), std::move(Classes)});
  }
  // The most tested first; a variable whose classes would pass the bound
  // stays unsplit (its tests undecided).
  std::stable_sort(Candidates.begin(), Candidates.end(),
                   [](const Candidate &A, const Candidate &B) {
                     return A.Statements > B.Statements;
                   });
  std::vector<ValueClass> Product(1, Fixed);
  for (const Candidate &C : Candidates) {
    if (Product.size() * C.Classes.size() > MaxCopies)
      continue;
    std::vector<ValueClass> Next;
    for (const ValueClass &Partial : Product)
      for (const ClassValue &V : C.Classes) {
        ValueClass Whole = Partial;
        Whole.emplace(C.Var, V);
        Next.push_back(std::move(Whole));
      }
    Product = std::move(Next);
  }
  if (Product.size() < 2)
    return onlyFixed();
  return Product;
}

llvm::StringSet<> testedParameters(PyNode Body,
                                   const llvm::StringSet<> &Params) {
  llvm::StringSet<> Tested;
  if (Params.empty() || !ordersStreams(Body))
    return Tested;
  BodyFacts Facts;
  BodyWalk(Params, Facts).walk(Body);
  for (const auto &[Statement, A] : Facts.Tests)
    if (!Facts.Bound.count(A.Var))
      Tested.insert(A.Var);
  return Tested;
}

std::optional<ClassValue> knownValue(PyNode Expr, const ValueClass *Assumed) {
  Expr = unparenthesized(Expr);
  if (Assumed && Expr.is("identifier")) {
    auto Found = Assumed->find(Expr.text());
    if (Found == Assumed->end() || Found->second.K == ClassValue::Opaque)
      return std::nullopt;
    return Found->second;
  }
  return literal(Expr);
}

std::string spelling(const ValueClass &Class) {
  std::string Out;
  for (const auto &[Var, V] : Class) {
    Out += Var;
    switch (V.K) {
    case ClassValue::Number:
      Out += "=n" + std::to_string(V.Num);
      break;
    case ClassValue::String:
      Out += "=s" + std::to_string(V.Str.size()) + ":" + V.Str;
      break;
    case ClassValue::None:
      Out += "=None";
      break;
    case ClassValue::Opaque:
      Out += V.Truthy ? "=o1" : "=o0";
      break;
    }
    Out += ";";
  }
  return Out;
}

std::optional<bool>
decideCondition(PyNode Condition, const ValueClass *Class,
                llvm::function_ref<std::optional<bool>(PyNode)> Answer) {
  Condition = unparenthesized(Condition);
  if (Condition.is("not_operator")) {
    std::optional<bool> A =
        decideCondition(Condition.field("argument"), Class, Answer);
    if (!A)
      return std::nullopt;
    return !*A;
  }
  if (Condition.is("boolean_operator")) {
    PyNode Left = Condition.field("left"), Right = Condition.field("right");
    std::optional<bool> L = decideCondition(Left, Class, Answer);
    std::optional<bool> R = decideCondition(Right, Class, Answer);
    bool And = operatorBetween(Condition, Left, Right) == "and";
    // `a and b` is false when either is, true when both are; `or` dually.
    if (L == !And || R == !And)
      return !And;
    if (L == And && R == And)
      return And;
    return std::nullopt;
  }
  if (std::optional<bool> Known = Answer(Condition))
    return Known;
  if (!Class)
    return std::nullopt;
  std::optional<Atom> A = atom(
      Condition, [&](llvm::StringRef Name) { return Class->count(Name) > 0; });
  if (!A)
    return std::nullopt;
  return evaluate(*A, Class->find(A->Var)->second);
}

} // namespace streamlife::python::lowering
