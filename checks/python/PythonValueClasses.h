//===--- PythonValueClasses.h - streamlife ----------------------*- C++ -*-===//
//
// Private to the Python lowering. Path sensitivity for one shape: a
// parameter the function never rebinds, tested against constants in two or
// more `if` statements (`if method != 2: side.wait_stream(cur)` ... `elif
// method == 1: <use on side>`). The tests are correlated: the paths that
// reach the use are paths that made the wait, yet the join between the two
// statements merges them with the paths that did not.
//
// The constants a parameter is compared with split its values into classes
// on which every one of those tests has one answer (method in {1}, {2}, {3},
// anything else). The function is lowered once per class (the product over
// such parameters, bounded), each copy taking only the branches its class
// can take; the copies share names and sites, so a finding seen in several
// copies is one finding. Past the bound the function is lowered once, as
// without this (the merge of all paths).
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONVALUECLASSES_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONVALUECLASSES_H

#include "PythonSyntax.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace streamlife::python::lowering {

/// A value a parameter stands for in one class: a number, a string, None,
/// or a value equal to no constant the function names (with its truth).
struct ClassValue {
  enum Kind { Number, String, None, Opaque } K = Opaque;
  double Num = 0;
  std::string Str;
  bool Truthy = true;

  static ClassValue number(double N) {
    ClassValue V;
    V.K = Number;
    V.Num = N;
    return V;
  }
  static ClassValue none() {
    ClassValue V;
    V.K = None;
    return V;
  }
  static ClassValue opaque(bool Truthy) {
    ClassValue V;
    V.Truthy = Truthy;
    return V;
  }
};

/// One copy of the function: what each split parameter holds there.
using ValueClass = std::map<std::string, ClassValue, std::less<>>;

/// The classes to lower \p Body under (at most \p MaxCopies); empty when
/// nothing is worth splitting or the product of the classes is larger.
/// \p Fixed holds the parameters a call decided (a specialization, below):
/// they are in every class and never split. \p Flags are locals assigned
/// once from a stream inequality, split into true and false first (the
/// lowering makes the two streams one where the flag is false). With
/// nothing to split, the one class is \p Fixed (none when it is empty).
std::vector<ValueClass> valueClasses(PyNode Body,
                                     const llvm::StringSet<> &Params,
                                     size_t MaxCopies,
                                     const ValueClass &Fixed = {},
                                     const std::vector<std::string> &Flags = {});

/// The parameters, never rebound, that an `if` whose branches order
/// streams tests: a call that knows one's value may lower the function for
/// it (the apex and Megatron-LM shape: `to_host(t, record_stream=flag)`
/// records the stream only where the flag is true, and merged with the
/// other path the record holds on no path).
llvm::StringSet<> testedParameters(PyNode Body,
                                   const llvm::StringSet<> &Params);

/// What \p Expr holds when it is known without running anything: a
/// literal, or a variable \p Assumed decides. A value "equal to no
/// constant" (Opaque) is not passed on: it means that only against the
/// constants of the function that split it.
std::optional<ClassValue> knownValue(PyNode Expr, const ValueClass *Assumed);

/// A stable spelling of \p Class (the key of a specialization).
std::string spelling(const ValueClass &Class);

/// Whether \p Condition is true, false, or not decided under \p Class (null:
/// no variable is decided), \p Answer deciding first the leaves of `not`,
/// `and` and `or` that it knows.
std::optional<bool>
decideCondition(PyNode Condition, const ValueClass *Class,
                llvm::function_ref<std::optional<bool>(PyNode)> Answer);

} // namespace streamlife::python::lowering

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONVALUECLASSES_H
