//===--- PythonSyntax.cpp - streamlife ------------------------------------===//

#include "PythonSyntax.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

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

// Children are walked with a cursor: ts_node_child(Node, I) and its named
// and field variants start from the first child each time, so a loop over
// them is quadratic in the number of children (an ERROR node over 400 KB of
// invalid UTF-8 has tens of thousands: 80 s).
namespace {

template <typename Visit> void forEachChild(TSNode Node, Visit &&V) {
  TSTreeCursor Cursor = ts_tree_cursor_new(Node);
  if (ts_tree_cursor_goto_first_child(&Cursor))
    do
      V(ts_tree_cursor_current_node(&Cursor), ts_tree_cursor_current_field_name(&Cursor));
    while (ts_tree_cursor_goto_next_sibling(&Cursor));
  ts_tree_cursor_delete(&Cursor);
}

} // namespace

std::vector<PyNode> PyNode::fields(const char *Name) const {
  std::vector<PyNode> Result;
  if (isNull())
    return Result;
  forEachChild(Node, [&](TSNode Child, const char *Field) {
    if (Field && llvm::StringRef(Field) == Name)
      Result.emplace_back(Child, Source);
  });
  return Result;
}

std::vector<PyNode> PyNode::namedChildren() const {
  std::vector<PyNode> Result;
  if (isNull())
    return Result;
  Result.reserve(ts_node_named_child_count(Node));
  forEachChild(Node, [&](TSNode Child, const char *) {
    // Comments are "extras": they may sit anywhere and mean nothing here.
    if (ts_node_is_named(Child) && llvm::StringRef(ts_node_type(Child)) != "comment")
      Result.emplace_back(Child, Source);
  });
  return Result;
}

PyNode PyNode::parent() const {
  return isNull() ? PyNode() : PyNode(ts_node_parent(Node), Source);
}

namespace {

/// The encoding a PEP 263 cookie on line 1 or 2 declares ("latin-1"),
/// lowercased; "" when there is none.
std::string declaredEncoding(llvm::StringRef Text) {
  for (int Line = 0; Line < 2 && !Text.empty(); ++Line) {
    auto [First, Rest] = Text.split('\n');
    llvm::StringRef Code = First.ltrim(" \t\f");
    if (!Code.starts_with("#"))
      return Code.empty() ? declaredEncoding(Rest.take_front(Rest.find('\n'))) : "";
    for (llvm::StringRef Marker : {"coding:", "coding="}) {
      size_t At = Code.find(Marker);
      if (At == llvm::StringRef::npos)
        continue;
      llvm::StringRef Name = Code.drop_front(At + Marker.size()).ltrim(" \t");
      Name = Name.take_while([](char C) {
        return llvm::isAlnum(C) || C == '-' || C == '_' || C == '.';
      });
      return Name.lower();
    }
    Text = Rest;
  }
  return "";
}

bool isUtf8Name(llvm::StringRef Name) {
  std::string N = Name.str();
  std::replace(N.begin(), N.end(), '_', '-');
  return N.empty() || llvm::StringRef(N).starts_with("utf-8") || llvm::StringRef(N).starts_with("utf8");
}

/// Offset of the first byte that is not part of valid UTF-8, or npos.
size_t firstInvalidUtf8(llvm::StringRef Text) {
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Text.data());
  const llvm::UTF8 *At = Begin;
  if (llvm::isLegalUTF8String(&At, Begin + Text.size()))
    return llvm::StringRef::npos;
  return static_cast<size_t>(At - Begin);
}

} // namespace

std::unique_ptr<PySourceFile> PySourceFile::parse(std::string Path,
                                                  std::string Text) {
  std::unique_ptr<PySourceFile> File(new PySourceFile());
  File->Path = std::move(Path);
  File->Text = std::move(Text);
  File->LineStarts.push_back(0);
  for (unsigned I = 0; I < File->Text.size(); ++I)
    if (File->Text[I] == '\n')
      File->LineStarts.push_back(I + 1);
  // Python source is UTF-8 unless a coding cookie says otherwise, and
  // CPython refuses one that is not; tree-sitter's error recovery over
  // invalid bytes is quadratic (400 KB of them took 80 s). A file that
  // declares another encoding (latin-1 comments) is parsed with its
  // non-UTF-8 bytes read as '_', which keeps every offset.
  std::string_view ToParse = File->Text;
  size_t Bad = firstInvalidUtf8(File->Text);
  if (Bad != llvm::StringRef::npos && isUtf8Name(declaredEncoding(File->Text))) {
    unsigned Line = std::upper_bound(File->LineStarts.begin(), File->LineStarts.end(), Bad) -
                    File->LineStarts.begin();
    char Byte[8];
    std::snprintf(Byte, sizeof(Byte), "0x%02x", static_cast<unsigned char>(File->Text[Bad]));
    File->EncodingError =
        SyntaxError{Line, static_cast<unsigned>(Bad - File->LineStarts[Line - 1]) + 1,
                    std::string("invalid UTF-8 (byte ") + Byte + "), which CPython refuses too"};
    ToParse = {};
  }
  while (Bad != llvm::StringRef::npos && !File->EncodingError) {
    File->Text[Bad] = '_';
    size_t Next = firstInvalidUtf8(llvm::StringRef(File->Text).drop_front(Bad + 1));
    Bad = Next == llvm::StringRef::npos ? Next : Bad + 1 + Next;
  }
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, tree_sitter_python());
  File->Tree = ts_parser_parse_string(Parser, nullptr, ToParse.data(),
                                      static_cast<uint32_t>(ToParse.size()));
  ts_parser_delete(Parser);
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

std::optional<SyntaxError> errorAt(TSNode Node) {
  if (ts_node_is_missing(Node)) {
    TSPoint P = ts_node_start_point(Node);
    return SyntaxError{P.row + 1, P.column + 1,
                       "missing '" + std::string(ts_node_type(Node)) + "'"};
  }
  if (ts_node_is_error(Node)) {
    TSPoint P = ts_node_start_point(Node);
    return SyntaxError{P.row + 1, P.column + 1, "invalid syntax"};
  }
  return std::nullopt;
}

/// Depth-first search, in source order, for the first node tree-sitter
/// could not fit into the grammar (descending only where there is one), and
/// for nesting deeper than MaxSyntaxDepth. Iterative: the input decides the
/// depth.
std::optional<SyntaxError> firstError(TSNode Root) {
  TSTreeCursor Cursor = ts_tree_cursor_new(Root);
  std::optional<SyntaxError> Found;
  unsigned Depth = 0;
  while (!Found) {
    TSNode Node = ts_tree_cursor_current_node(&Cursor);
    if ((Found = errorAt(Node)))
      break;
    if (Depth >= MaxSyntaxDepth && ts_node_child_count(Node) > 0) {
      TSPoint P = ts_node_start_point(Node);
      Found = SyntaxError{P.row + 1, P.column + 1,
                          "nested more than " + std::to_string(MaxSyntaxDepth) +
                              " levels deep, which CPython refuses too"};
      break;
    }
    if (ts_tree_cursor_goto_first_child(&Cursor)) {
      ++Depth;
      continue;
    }
    bool Done = false;
    while (!ts_tree_cursor_goto_next_sibling(&Cursor)) {
      if (!ts_tree_cursor_goto_parent(&Cursor)) {
        Done = true;
        break;
      }
      --Depth;
    }
    if (Done)
      break;
  }
  ts_tree_cursor_delete(&Cursor);
  return Found;
}

} // namespace

std::optional<SyntaxError> PySourceFile::syntaxError() const {
  if (EncodingError)
    return EncodingError;
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
