//===--- PythonSyntax.cpp - streamlife ------------------------------------===//

#include "PythonSyntax.h"

#include "PythonLexicalScan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
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

namespace {

/// The grammar's id of field \p Name, 0 when it has none: one hash lookup,
/// where ts_node_child_by_field_name compares the name with the grammar's
/// field names one by one (4% of a check's CPU, the lowering asks for a
/// field at almost every node).
TSFieldId fieldId(llvm::StringRef Name) {
  static const llvm::StringMap<TSFieldId> Ids = [] {
    llvm::StringMap<TSFieldId> Map;
    const TSLanguage *Python = tree_sitter_python();
    for (TSFieldId Id = 1; Id <= ts_language_field_count(Python); ++Id)
      if (const char *FieldName = ts_language_field_name_for_id(Python, Id))
        Map[FieldName] = Id;
    return Map;
  }();
  auto Found = Ids.find(Name);
  return Found == Ids.end() ? 0 : Found->second;
}

// Children are walked with a cursor: ts_node_child(Node, I) and its named
// and field variants start from the first child each time, so a loop over
// them is quadratic in the number of children (an ERROR node over 400 KB of
// invalid UTF-8 has tens of thousands: 80 s). One cursor per thread, reset
// to each node: a new cursor allocates its stack, and the lowering asks for
// the children of most nodes. \p V must not walk children itself.
template <typename Visit> void forEachChild(TSNode Node, Visit &&V) {
  struct ReusedCursor {
    TSTreeCursor Cursor;
    bool Made = false;
    ~ReusedCursor() {
      if (Made)
        ts_tree_cursor_delete(&Cursor);
    }
  };
  thread_local ReusedCursor Reused;
  if (!Reused.Made) {
    Reused.Cursor = ts_tree_cursor_new(Node);
    Reused.Made = true;
  } else {
    ts_tree_cursor_reset(&Reused.Cursor, Node);
  }
  TSTreeCursor *Cursor = &Reused.Cursor;
  if (ts_tree_cursor_goto_first_child(Cursor))
    do
      V(ts_tree_cursor_current_node(Cursor), ts_tree_cursor_current_field_id(Cursor));
    while (ts_tree_cursor_goto_next_sibling(Cursor));
}

} // namespace

PyNode PyNode::field(const char *Name) const {
  if (isNull())
    return {};
  TSFieldId Id = fieldId(Name);
  return Id ? PyNode(ts_node_child_by_field_id(Node, Id), Source) : PyNode();
}

std::vector<PyNode> PyNode::fields(const char *Name) const {
  std::vector<PyNode> Result;
  TSFieldId Id = fieldId(Name);
  if (isNull() || !Id)
    return Result;
  forEachChild(Node, [&](TSNode Child, TSFieldId Field) {
    if (Field == Id)
      Result.emplace_back(Child, Source);
  });
  return Result;
}

std::vector<PyNode> PyNode::namedChildren() const {
  std::vector<PyNode> Result;
  if (isNull())
    return Result;
  Result.reserve(ts_node_named_child_count(Node));
  forEachChild(Node, [&](TSNode Child, TSFieldId) {
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

/// tree-sitter's error recovery is quadratic when the lexer keeps failing
/// (each recovery re-summarizes the growing ERROR node: 200 KB of
/// "a ? a ? ...", 40 KB of "1a 1a ..." or 400 KB of invalid bytes took from
/// 30 s to minutes). Once the parser is in error, with no version of its
/// stack left that could continue, the file is not valid Python, and only
/// its first error is reported: the parse stops at the first progress check
/// (one per 100 parser operations, so the point depends on the input alone,
/// never on timing) that finds it in error.
struct BoundedParse {
  const char *Data = nullptr;
  uint32_t Size = 0;
  uint32_t FirstErrorAt = 0; ///< byte offset at the check that stopped it
  bool Stopped = false;
};

const char *readBounded(void *Payload, uint32_t Byte, TSPoint, uint32_t *BytesRead) {
  auto *P = static_cast<BoundedParse *>(Payload);
  *BytesRead = Byte < P->Size ? P->Size - Byte : 0;
  return Byte < P->Size ? P->Data + Byte : "";
}

bool stopAtFirstError(TSParseState *State) {
  auto *P = static_cast<BoundedParse *>(State->payload);
  if (!State->has_error)
    return false;
  P->FirstErrorAt = State->current_byte_offset;
  P->Stopped = true;
  return true;
}

size_t endOfLine(std::string_view Text, size_t From) {
  // A little past that point (a whole line can be the whole file).
  return std::min({Text.find('\n', From), Text.size(), From + 256});
}

/// Parses Text[0, Size); when the parse stops in error, parses again only up
/// to where it stopped, which holds the file's first error, for its position.
TSTree *parseStoppingInError(TSParser *Parser, std::string_view Text) {
  BoundedParse P{Text.data(), static_cast<uint32_t>(Text.size())};
  TSInput Input{&P, readBounded, TSInputEncodingUTF8, nullptr};
  TSTree *Tree = ts_parser_parse_with_options(Parser, nullptr, Input, {&P, stopAtFirstError});
  if (!Tree && P.Stopped) {
    ts_parser_reset(Parser);
    BoundedParse Prefix{Text.data(), static_cast<uint32_t>(endOfLine(Text, P.FirstErrorAt))};
    Input.payload = &Prefix;
    // The prefix ends within 100 operations of the first error, so its
    // recovery is short.
    Tree = ts_parser_parse_with_options(Parser, nullptr, Input, {nullptr, nullptr});
  }
  return Tree;
}

/// The parse of a prefix confirms the lexical scan's error at Offset: the
/// text there is code (not in a string or comment) that the parser could
/// not fit either.
bool confirmsLexicalError(TSTree *Tree, size_t Offset) {
  TSNode Root = ts_tree_root_node(Tree);
  if (!ts_node_has_error(Root))
    return false;
  bool InError = false;
  for (TSNode N = ts_node_descendant_for_byte_range(Root, static_cast<uint32_t>(Offset),
                                                    static_cast<uint32_t>(Offset + 1));
       !ts_node_is_null(N); N = ts_node_parent(N)) {
    llvm::StringRef Kind = ts_node_type(N);
    if (Kind.starts_with("string") || Kind == "comment" || Kind == "interpolation")
      return false;
    InError |= ts_node_is_error(N) || ts_node_is_missing(N);
  }
  return InError;
}

/// Parses Text, never spending more than a linear walk and a short recovery
/// on a file that is not valid Python.
TSTree *parseBounded(std::string_view Text) {
  TSParser *Parser = ts_parser_new();
  ts_parser_set_language(Parser, tree_sitter_python());
  TSTree *Tree = nullptr;
  size_t Lexical = firstLexicalError(llvm::StringRef(Text.data(), Text.size()));
  if (Lexical != llvm::StringRef::npos) {
    Tree = parseStoppingInError(Parser, Text.substr(0, endOfLine(Text, Lexical)));
    if (Tree && !confirmsLexicalError(Tree, Lexical)) {
      ts_tree_delete(Tree);
      Tree = nullptr;
    }
    ts_parser_reset(Parser);
  }
  if (!Tree)
    Tree = parseStoppingInError(Parser, Text);
  ts_parser_delete(Parser);
  return Tree;
}

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
    File->Error =
        SyntaxError{Line, static_cast<unsigned>(Bad - File->LineStarts[Line - 1]) + 1,
                    std::string("invalid UTF-8 (byte ") + Byte + "), which CPython refuses too"};
    ToParse = {};
  }
  while (Bad != llvm::StringRef::npos && !File->Error) {
    File->Text[Bad] = '_';
    size_t Next = firstInvalidUtf8(llvm::StringRef(File->Text).drop_front(Bad + 1));
    Bad = Next == llvm::StringRef::npos ? Next : Bad + 1 + Next;
  }
  File->Tree = parseBounded(ToParse);
  if (!File->Error)
    File->Error = File->Tree ? firstError(ts_tree_root_node(File->Tree))
                             : SyntaxError{1, 1, "cannot parse"};
  return File;
}

PySourceFile::~PySourceFile() {
  if (Tree)
    ts_tree_delete(Tree);
}

PyNode PySourceFile::root() const {
  return Tree ? PyNode(ts_tree_root_node(Tree), Text) : PyNode();
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
