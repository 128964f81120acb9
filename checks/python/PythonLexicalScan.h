//===--- PythonLexicalScan.h - streamlife -----------------------*- C++ -*-===//
//
// A quick, linear scan for the first place Python's tokenizer would refuse:
// a character no token has ('?', '$', '`', a control character), a number
// followed by letters ("1a", "0x" without digits). tree-sitter's error
// recovery is quadratic over a run of text its lexer cannot tokenize (40 KB
// of "1a 1a ..." took 38 s), and its parser does not always know it is in
// error there; the parse can then stop at this place (PythonSyntax.cpp). The
// scan is lenient where it is unsure (any non-ASCII character counts as an
// identifier character; the expressions inside f-strings are skipped), and
// its answer is only a hint the parser confirms.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONLEXICALSCAN_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONLEXICALSCAN_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace streamlife::python {

/// The byte offset of the first lexical error, or StringRef::npos.
size_t firstLexicalError(llvm::StringRef Text);

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONLEXICALSCAN_H
