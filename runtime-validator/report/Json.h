//===- Json.h - the little JSON the report needs ----------------*- C++ -*-===//
//
// A streaming writer (objects, arrays, strings, integers) with correct string
// escaping. The runtime builds without LLVM, so llvm::json is not available.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_JSON_H
#define STREAMLIFE_RT_REPORT_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamlife {
namespace rt {

/// Escapes Text for use inside a JSON string (quotes not included).
std::string jsonEscape(std::string_view Text);
/// Appends the escaped Text to Out (for writers that build events in place).
void appendJsonEscaped(std::string &Out, std::string_view Text);

class JsonWriter {
public:
  JsonWriter &beginObject();
  JsonWriter &endObject();
  JsonWriter &beginArray();
  JsonWriter &endArray();
  /// Starts a member of the current object; follow with one value.
  JsonWriter &key(std::string_view Name);
  JsonWriter &value(std::string_view Text);
  JsonWriter &value(const char *Text) { return value(std::string_view(Text)); }
  JsonWriter &value(std::uint64_t N);
  JsonWriter &value(bool B);
  const std::string &str() const { return Out; }

private:
  void separate();
  std::string Out;
  std::vector<bool> First; ///< per open container: nothing written into it yet
  bool AfterKey = false;
};

} // namespace rt
} // namespace streamlife

#endif
