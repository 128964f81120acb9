//===- JsonValue.h - a strict JSON reader for trace events -----*- C++ -*-===//
//
// `streamlife timeline` reads the traces `streamlife run --timeline` writes.
// The driver builds without LLVM (the GPU machine has none), so llvm::json is
// not available; this is RFC 8259 JSON (objects, arrays, strings with escapes
// and surrogate pairs, numbers, literals), nested at most 64 deep, read from
// one string. Members keep their order; a lookup is linear, which suits trace
// events of a dozen members.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_TIMELINE_JSONVALUE_H
#define STREAMLIFE_TOOL_TIMELINE_JSONVALUE_H

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace streamlife::timeline {

class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return What; }
  bool isObject() const { return What == Kind::Object; }
  bool isString() const { return What == Kind::String; }
  bool isNumber() const { return What == Kind::Number; }

  /// The member Name of an object, or null.
  const JsonValue *get(std::string_view Name) const;
  /// Member Name as a string / number, or Default when absent or another kind.
  std::string string(std::string_view Name, std::string Default = "") const;
  double number(std::string_view Name, double Default = 0) const;

  const std::string &text() const { return Text; }
  double value() const { return Number; }
  bool boolean() const { return Bool; }
  const std::vector<JsonValue> &elements() const { return Elements; }
  const std::vector<std::pair<std::string, JsonValue>> &members() const { return Members; }

private:
  friend class JsonParser;
  Kind What = Kind::Null;
  bool Bool = false;
  double Number = 0;
  std::string Text;
  std::vector<JsonValue> Elements;
  std::vector<std::pair<std::string, JsonValue>> Members;
};

/// Parses Input as one JSON value (surrounding white space allowed). False
/// with "offset N: what was expected" in Error.
bool parseJson(std::string_view Input, JsonValue &Out, std::string &Error);

} // namespace streamlife::timeline

#endif
