//===--- PythonLexicalScan.cpp - streamlife -------------------------------===//

#include "PythonLexicalScan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace streamlife::python {
namespace {

bool isIdentifierStart(unsigned char C) { return llvm::isAlpha(C) || C == '_' || C >= 0x80; }
bool isIdentifierChar(unsigned char C) { return isIdentifierStart(C) || llvm::isDigit(C); }

class Scanner {
public:
  explicit Scanner(llvm::StringRef Text) : Text(Text) {}

  size_t run() {
    while (At < Text.size() && Error == llvm::StringRef::npos)
      token();
    return Error;
  }

private:
  char peek(size_t Ahead = 0) const {
    return At + Ahead < Text.size() ? Text[At + Ahead] : '\0';
  }
  void fail(size_t Where) { Error = Where; }

  void token() {
    unsigned char C = Text[At];
    if (C == ' ' || C == '\t' || C == '\f' || C == '\n' || C == '\r') {
      ++At;
    } else if (C == '#') {
      size_t Eol = Text.find('\n', At);
      At = Eol == llvm::StringRef::npos ? Text.size() : Eol;
    } else if (C == '\\') {
      // A line continuation: the backslash ends its line.
      if (peek(1) == '\n')
        At += 2;
      else if (peek(1) == '\r' && peek(2) == '\n')
        At += 3;
      else
        fail(At);
    } else if (C == '\'' || C == '"') {
      string(false);
    } else if (isIdentifierStart(C)) {
      identifierOrString();
    } else if (llvm::isDigit(C) || (C == '.' && llvm::isDigit(peek(1)))) {
      number();
    } else if (llvm::StringRef("()[]{}:;,.+-*/%&|^~<>=@").contains(static_cast<char>(C))) {
      ++At;
    } else if (C == '!' && peek(1) == '=') {
      At += 2;
    } else {
      fail(At); // '?', '$', '`', a lone '!', a control character, NUL
    }
  }

  void identifierOrString() {
    size_t Start = At;
    while (At < Text.size() && isIdentifierChar(Text[At]))
      ++At;
    llvm::StringRef Word = Text.slice(Start, At);
    if ((peek() == '\'' || peek() == '"') && Word.size() <= 2 &&
        Word.find_insensitive("ff") == llvm::StringRef::npos &&
        llvm::all_of(Word.lower(), [](char P) { return llvm::StringRef("rbuft").contains(P); }))
      string(Word.find_if([](char P) { return P == 'f' || P == 'F' || P == 't' || P == 'T'; }) !=
             llvm::StringRef::npos);
  }

  /// A string literal at its opening quote; an f-string's replacement
  /// fields are skipped bracket by bracket, their nested strings included.
  void string(bool Formatted) {
    char Quote = Text[At];
    bool Triple = peek(1) == Quote && peek(2) == Quote;
    size_t Start = At;
    At += Triple ? 3 : 1;
    while (At < Text.size()) {
      char C = Text[At];
      if (C == '\\') {
        At += 2;
      } else if (C == Quote && (!Triple || (peek(1) == Quote && peek(2) == Quote))) {
        At += Triple ? 3 : 1;
        return;
      } else if (C == '\n' && !Triple) {
        fail(Start); // unterminated string literal
        return;
      } else if (Formatted && C == '{' && peek(1) != '{') {
        replacementField();
        if (Error != llvm::StringRef::npos)
          return;
      } else {
        At += Formatted && (C == '{' || C == '}') && peek(1) == C ? 2 : 1;
      }
    }
    fail(Start);
  }

  void replacementField() {
    unsigned Depth = 0;
    while (At < Text.size()) {
      char C = Text[At];
      if (C == '{' || C == '(' || C == '[') {
        ++Depth;
        ++At;
      } else if (C == '}' || C == ')' || C == ']') {
        ++At;
        if (--Depth == 0)
          return;
      } else if (C == '\'' || C == '"') {
        string(true);
        if (Error != llvm::StringRef::npos)
          return;
      } else {
        ++At;
      }
    }
  }

  void number() {
    size_t Start = At;
    bool Prefixed = Text[At] == '0' && llvm::StringRef("xXoObB").contains(peek(1));
    if (Prefixed) {
      char Base = static_cast<char>(llvm::toLower(peek(1)));
      At += 2;
      size_t Digits = At;
      while (At < Text.size() &&
             (Text[At] == '_' || (Base == 'x' ? llvm::isHexDigit(Text[At])
                                  : Base == 'o' ? (Text[At] >= '0' && Text[At] <= '7')
                                                : (Text[At] == '0' || Text[At] == '1'))))
        ++At;
      if (At == Digits)
        return fail(Start);
    } else {
      while (At < Text.size() && (llvm::isDigit(Text[At]) || Text[At] == '_' || Text[At] == '.'))
        ++At;
      if (At < Text.size() && (Text[At] == 'e' || Text[At] == 'E') &&
          (llvm::isDigit(peek(1)) ||
           ((peek(1) == '+' || peek(1) == '-') && llvm::isDigit(peek(2))))) {
        At += 2;
        while (At < Text.size() && (llvm::isDigit(Text[At]) || Text[At] == '_'))
          ++At;
      }
      if (At < Text.size() && (Text[At] == 'j' || Text[At] == 'J'))
        ++At;
    }
    // Letters right after a number: CPython refuses them ("1a"), but takes
    // a keyword glued to it ("1if x else y", "0x1for ...").
    if (At < Text.size() && isIdentifierChar(Text[At])) {
      size_t End = At;
      while (End < Text.size() && isIdentifierChar(Text[End]))
        ++End;
      llvm::StringRef Word = Text.slice(At, End);
      for (llvm::StringRef Keyword : {"and", "or", "if", "else", "for", "in", "is", "not"})
        if (Word.starts_with(Keyword))
          return;
      fail(Start);
    }
  }

  llvm::StringRef Text;
  size_t At = 0;
  size_t Error = llvm::StringRef::npos;
};

} // namespace

size_t firstLexicalError(llvm::StringRef Text) { return Scanner(Text).run(); }

} // namespace streamlife::python
