//===--- PythonSyntax.cpp - streamlife ------------------------------------===//

#include "PythonSyntax.h"

#include <cstring>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace streamlife::python {

llvm::StringRef PyNode::kind() const {
  return isNull() ? llvm::StringRef() : llvm::StringRef(ts_node_type(Node));
}

llvm::StringRef PyNode::text() const {
  if (isNull())
    return {};
  unsigned Begin = startByte(), End = endByte();
  if (End > Source.size() || Begin > End)
    return {};
  return Source.slice(Begin, End);
}

PyNode PyNode::field(const char *Name) const {
  if (isNull())
    return {};
  return {ts_node_child_by_field_name(Node, Name, strlen(Name)), Source};
}

// Both walk the children with a cursor: ts_node_child(I) and
// ts_node_named_child(I) start from the first child each time, which made
// the walk of a block quadratic in its length.
std::vector<PyNode> PyNode::fields(const char *Name) const {
  std::vector<PyNode> Result;
  if (isNull())
    return Result;
  TSTreeCursor Cursor = ts_tree_cursor_new(Node);
  if (ts_tree_cursor_goto_first_child(&Cursor)) {
    do {
      const char *Field = ts_tree_cursor_current_field_name(&Cursor);
      if (Field && std::strcmp(Field, Name) == 0)
        Result.emplace_back(ts_tree_cursor_current_node(&Cursor), Source);
    } while (ts_tree_cursor_goto_next_sibling(&Cursor));
  }
  ts_tree_cursor_delete(&Cursor);
  return Result;
}

std::vector<PyNode> PyNode::namedChildren() const {
  std::vector<PyNode> Result;
  if (isNull())
    return Result;
  Result.reserve(ts_node_named_child_count(Node));
  TSTreeCursor Cursor = ts_tree_cursor_new(Node);
  if (ts_tree_cursor_goto_first_child(&Cursor)) {
    do {
      TSNode Child = ts_tree_cursor_current_node(&Cursor);
      // Comments are "extras": they may sit anywhere and mean nothing here.
      if (ts_node_is_named(Child) &&
          std::strcmp(ts_node_type(Child), "comment") != 0)
        Result.emplace_back(Child, Source);
    } while (ts_tree_cursor_goto_next_sibling(&Cursor));
  }
  ts_tree_cursor_delete(&Cursor);
  return Result;
}

PyNode PyNode::parent() const {
  return isNull() ? PyNode() : PyNode(ts_node_parent(Node), Source);
}

std::unique_ptr<PySourceFile> PySourceFile::parse(std::string Path,
                                                  std::string Text) {
  std::unique_ptr<PySourceFile> File(new PySourceFile());
  File->Path = std::move(Path);
  File->Text = std::move(Text);
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, tree_sitter_python());
  File->Tree = ts_parser_parse_string(Parser, nullptr, File->Text.data(),
                                      File->Text.size());
  ts_parser_delete(Parser);
  File->LineStarts.push_back(0);
  for (unsigned I = 0; I < File->Text.size(); ++I)
    if (File->Text[I] == '\n')
      File->LineStarts.push_back(I + 1);
  return File;
}

PySourceFile::~PySourceFile() {
  if (Tree)
    ts_tree_delete(Tree);
}

PyNode PySourceFile::root() const {
  return Tree ? PyNode(ts_tree_root_node(Tree), Text) : PyNode();
}

namespace {

/// Depth-first search for the first node tree-sitter could not fit into the
/// grammar.
std::optional<SyntaxError> firstError(TSNode Node) {
  if (ts_node_is_missing(Node)) {
    TSPoint P = ts_node_start_point(Node);
    return SyntaxError{P.row + 1, P.column + 1,
                       "missing '" + std::string(ts_node_type(Node)) + "'"};
  }
  if (ts_node_is_error(Node)) {
    TSPoint P = ts_node_start_point(Node);
    return SyntaxError{P.row + 1, P.column + 1, "invalid syntax"};
  }
  if (!ts_node_has_error(Node))
    return std::nullopt;
  uint32_t N = ts_node_child_count(Node);
  for (uint32_t I = 0; I < N; ++I)
    if (auto Error = firstError(ts_node_child(Node, I)))
      return Error;
  return std::nullopt;
}

} // namespace

std::optional<SyntaxError> PySourceFile::syntaxError() const {
  if (!Tree)
    return SyntaxError{1, 1, "cannot parse"};
  return firstError(ts_tree_root_node(Tree));
}

llvm::StringRef PySourceFile::lineText(unsigned Line) const {
  if (Line == 0 || Line > LineStarts.size())
    return {};
  unsigned Begin = LineStarts[Line - 1];
  unsigned End = Line < LineStarts.size() ? LineStarts[Line] - 1 : Text.size();
  llvm::StringRef L = llvm::StringRef(Text).slice(Begin, End);
  return L.rtrim('\r');
}

} // namespace streamlife::python
