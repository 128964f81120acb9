//===- Json.cpp - JSON writer ----------------------------------------------===//
#include "report/Json.h"

#include <cstdio>

namespace streamlife {
namespace rt {

void appendJsonEscaped(std::string &Out, std::string_view Text) {
  Out.reserve(Out.size() + Text.size());
  for (unsigned char C : Text) {
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\r':
      Out += "\\r";
      break;
    case '\t':
      Out += "\\t";
      break;
    case '\b':
      Out += "\\b";
      break;
    case '\f':
      Out += "\\f";
      break;
    default:
      if (C < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
        Out += Buf;
      } else {
        Out += static_cast<char>(C);
      }
    }
  }
}

std::string jsonEscape(std::string_view Text) {
  std::string Out;
  appendJsonEscaped(Out, Text);
  return Out;
}

void JsonWriter::separate() {
  if (AfterKey) {
    AfterKey = false;
    return;
  }
  if (!First.empty()) {
    if (!First.back())
      Out += ',';
    First.back() = false;
  }
}

JsonWriter &JsonWriter::beginObject() {
  separate();
  Out += '{';
  First.push_back(true);
  return *this;
}

JsonWriter &JsonWriter::endObject() {
  Out += '}';
  First.pop_back();
  return *this;
}

JsonWriter &JsonWriter::beginArray() {
  separate();
  Out += '[';
  First.push_back(true);
  return *this;
}

JsonWriter &JsonWriter::endArray() {
  Out += ']';
  First.pop_back();
  return *this;
}

JsonWriter &JsonWriter::key(std::string_view Name) {
  separate();
  Out += '"';
  Out += jsonEscape(Name);
  Out += "\":";
  AfterKey = true;
  return *this;
}

JsonWriter &JsonWriter::value(std::string_view Text) {
  separate();
  Out += '"';
  Out += jsonEscape(Text);
  Out += '"';
  return *this;
}

JsonWriter &JsonWriter::value(std::uint64_t N) {
  separate();
  Out += std::to_string(N);
  return *this;
}

JsonWriter &JsonWriter::value(bool B) {
  separate();
  Out += B ? "true" : "false";
  return *this;
}

} // namespace rt
} // namespace streamlife
