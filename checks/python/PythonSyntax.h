//===--- PythonSyntax.h - streamlife ----------------------------*- C++ -*-===//
//
// The Python front end's view of a source file: tree-sitter's concrete syntax
// tree behind a small value type (PyNode) that knows its source text, so the
// lowering reads `node.field("function").text()` instead of juggling TSNode
// and byte offsets. Nothing else in the front end includes tree-sitter.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONSYNTAX_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONSYNTAX_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tree_sitter/api.h>

namespace streamlife::python {

/// A node of a parsed file; cheap to copy, valid while its PySourceFile is.
class PyNode {
public:
  PyNode() = default;
  PyNode(TSNode Node, llvm::StringRef Source) : Node(Node), Source(Source) {}

  bool isNull() const { return ts_node_is_null(Node); }
  explicit operator bool() const { return !isNull(); }
  /// The grammar's node type: "call", "identifier", "with_statement", ...
  llvm::StringRef kind() const;
  bool is(llvm::StringRef Kind) const { return !isNull() && kind() == Kind; }
  llvm::StringRef text() const;
  PyNode field(const char *Name) const;
  /// Every child stored under field \p Name (e.g. "alias" of an import).
  std::vector<PyNode> fields(const char *Name) const;
  std::vector<PyNode> namedChildren() const;
  PyNode parent() const;
  unsigned startByte() const { return ts_node_start_byte(Node); }
  unsigned endByte() const { return ts_node_end_byte(Node); }
  /// 1-based line and byte column.
  unsigned line() const { return ts_node_start_point(Node).row + 1; }
  unsigned column() const { return ts_node_start_point(Node).column + 1; }
  unsigned endLine() const { return ts_node_end_point(Node).row + 1; }
  /// An identity for maps: the start byte and the kind's symbol.
  uint64_t id() const {
    return (uint64_t(startByte()) << 16) | ts_node_symbol(Node);
  }
  friend bool operator==(const PyNode &A, const PyNode &B) {
    return ts_node_eq(A.Node, B.Node);
  }

private:
  TSNode Node{};
  llvm::StringRef Source;
};

/// The deepest syntax tree the lowering accepts. The lowering recurses over
/// the tree (on the checker's 64 MB thread); CPython itself refuses code
/// long before this (200 nested brackets; its compiler's recursion limit
/// stops a chain of about 3,000 operators).
constexpr unsigned MaxSyntaxDepth = 4000;

/// Where a file first fails to parse.
struct SyntaxError {
  unsigned Line = 0;
  unsigned Column = 0;
  std::string What; ///< "invalid syntax", "missing ')'"
};

/// One parsed Python file. Owns the text and the tree.
class PySourceFile {
public:
  /// Parses \p Text; never fails (tree-sitter recovers), see syntaxError().
  static std::unique_ptr<PySourceFile> parse(std::string Path, std::string Text);
  ~PySourceFile();

  const std::string &path() const { return Path; }
  llvm::StringRef text() const { return Text; }
  PyNode root() const;
  /// The first ERROR or MISSING node, if the file is not valid Python.
  const std::optional<SyntaxError> &syntaxError() const { return Error; }
  /// The text of 1-based line \p Line, without its newline.
  llvm::StringRef lineText(unsigned Line) const;

private:
  PySourceFile() = default;
  std::string Path;
  std::string Text;
  TSTree *Tree = nullptr;
  std::vector<unsigned> LineStarts;
  /// Found once, when the file is parsed: every check asks for it again,
  /// the checked file's and each local module's it loads, and the search
  /// walks the whole tree (for depth, even where tree-sitter saw no error).
  std::optional<SyntaxError> Error;
};

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONSYNTAX_H
