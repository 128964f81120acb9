//===- JsonValue.cpp - a strict JSON reader for trace events ---------------===//
#include "JsonValue.h"

#include <cstdlib>
#include <cstring>

namespace streamlife::timeline {

const JsonValue *JsonValue::get(std::string_view Name) const {
  if (What != Kind::Object)
    return nullptr;
  for (const auto &[Key, Value] : Members)
    if (Key == Name)
      return &Value;
  return nullptr;
}

std::string JsonValue::string(std::string_view Name, std::string Default) const {
  const JsonValue *V = get(Name);
  return V && V->What == Kind::String ? V->Text : Default;
}

double JsonValue::number(std::string_view Name, double Default) const {
  const JsonValue *V = get(Name);
  return V && V->What == Kind::Number ? V->Number : Default;
}

class JsonParser {
public:
  explicit JsonParser(std::string_view Input) : In(Input) {}

  bool parse(JsonValue &Out, std::string &Error) {
    space();
    if (!value(Out, 0) || (space(), At != In.size() && fail("end of input"))) {
      Error = "offset " + std::to_string(At) + ": expected " + Expected;
      return false;
    }
    return true;
  }

private:
  bool fail(const char *What) {
    if (Expected.empty())
      Expected = What;
    return false;
  }
  void space() {
    while (At < In.size() && (In[At] == ' ' || In[At] == '\t' || In[At] == '\n' || In[At] == '\r'))
      ++At;
  }
  bool literal(const char *Word) {
    std::size_t N = std::strlen(Word);
    if (In.substr(At, N) != Word)
      return fail("a value");
    At += N;
    return true;
  }

  bool value(JsonValue &Out, int Depth) {
    if (Depth > 64)
      return fail("less nesting (at most 64 levels)");
    if (At >= In.size())
      return fail("a value");
    switch (In[At]) {
    case '{':
      return object(Out, Depth);
    case '[':
      return array(Out, Depth);
    case '"':
      Out.What = JsonValue::Kind::String;
      return string(Out.Text);
    case 't':
      Out.What = JsonValue::Kind::Bool;
      Out.Bool = true;
      return literal("true");
    case 'f':
      Out.What = JsonValue::Kind::Bool;
      return literal("false");
    case 'n':
      return literal("null");
    default:
      return number(Out);
    }
  }

  bool object(JsonValue &Out, int Depth) {
    Out.What = JsonValue::Kind::Object;
    ++At;
    space();
    if (At < In.size() && In[At] == '}')
      return ++At, true;
    for (;;) {
      space();
      std::string Key;
      if (At >= In.size() || In[At] != '"' || !string(Key))
        return fail("a member name");
      space();
      if (At >= In.size() || In[At] != ':')
        return fail("':'");
      ++At;
      space();
      Out.Members.emplace_back(std::move(Key), JsonValue());
      if (!value(Out.Members.back().second, Depth + 1))
        return false;
      space();
      if (At < In.size() && In[At] == ',') {
        ++At;
        continue;
      }
      if (At < In.size() && In[At] == '}')
        return ++At, true;
      return fail("',' or '}'");
    }
  }

  bool array(JsonValue &Out, int Depth) {
    Out.What = JsonValue::Kind::Array;
    ++At;
    space();
    if (At < In.size() && In[At] == ']')
      return ++At, true;
    for (;;) {
      space();
      Out.Elements.emplace_back();
      if (!value(Out.Elements.back(), Depth + 1))
        return false;
      space();
      if (At < In.size() && In[At] == ',') {
        ++At;
        continue;
      }
      if (At < In.size() && In[At] == ']')
        return ++At, true;
      return fail("',' or ']'");
    }
  }

  static void appendUtf8(std::string &Out, unsigned long C) {
    if (C < 0x80) {
      Out += static_cast<char>(C);
    } else if (C < 0x800) {
      Out += static_cast<char>(0xC0 | (C >> 6));
      Out += static_cast<char>(0x80 | (C & 0x3F));
    } else if (C < 0x10000) {
      Out += static_cast<char>(0xE0 | (C >> 12));
      Out += static_cast<char>(0x80 | ((C >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (C & 0x3F));
    } else {
      Out += static_cast<char>(0xF0 | (C >> 18));
      Out += static_cast<char>(0x80 | ((C >> 12) & 0x3F));
      Out += static_cast<char>(0x80 | ((C >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (C & 0x3F));
    }
  }

  bool hex4(unsigned long &Out) {
    if (At + 4 > In.size())
      return fail("four hex digits");
    Out = 0;
    for (int I = 0; I < 4; ++I) {
      char C = In[At++];
      Out <<= 4;
      if (C >= '0' && C <= '9')
        Out |= static_cast<unsigned long>(C - '0');
      else if (C >= 'a' && C <= 'f')
        Out |= static_cast<unsigned long>(C - 'a' + 10);
      else if (C >= 'A' && C <= 'F')
        Out |= static_cast<unsigned long>(C - 'A' + 10);
      else
        return fail("four hex digits");
    }
    return true;
  }

  bool string(std::string &Out) {
    ++At; // the opening quote
    while (At < In.size()) {
      char C = In[At++];
      if (C == '"')
        return true;
      if (static_cast<unsigned char>(C) < 0x20)
        return fail("no control character in a string");
      if (C != '\\') {
        Out += C;
        continue;
      }
      if (At >= In.size())
        break;
      char E = In[At++];
      switch (E) {
      case '"':
      case '\\':
      case '/':
        Out += E;
        break;
      case 'b':
        Out += '\b';
        break;
      case 'f':
        Out += '\f';
        break;
      case 'n':
        Out += '\n';
        break;
      case 'r':
        Out += '\r';
        break;
      case 't':
        Out += '\t';
        break;
      case 'u': {
        unsigned long Code = 0;
        if (!hex4(Code))
          return false;
        if (Code >= 0xD800 && Code < 0xDC00 && In.substr(At, 2) == "\\u") {
          At += 2;
          unsigned long Low = 0;
          if (!hex4(Low))
            return false;
          if (Low >= 0xDC00 && Low < 0xE000)
            Code = 0x10000 + ((Code - 0xD800) << 10) + (Low - 0xDC00);
          else
            return fail("a low surrogate");
        }
        appendUtf8(Out, Code);
        break;
      }
      default:
        return fail("a valid escape");
      }
    }
    return fail("a closing '\"'");
  }

  bool number(JsonValue &Out) {
    std::size_t Start = At;
    if (At < In.size() && In[At] == '-')
      ++At;
    auto Digits = [&] {
      std::size_t From = At;
      while (At < In.size() && In[At] >= '0' && In[At] <= '9')
        ++At;
      return At > From;
    };
    if (At < In.size() && In[At] == '0')
      ++At;
    else if (!Digits())
      return fail("a value");
    if (At < In.size() && In[At] == '.') {
      ++At;
      if (!Digits())
        return fail("digits after '.'");
    }
    if (At < In.size() && (In[At] == 'e' || In[At] == 'E')) {
      ++At;
      if (At < In.size() && (In[At] == '+' || In[At] == '-'))
        ++At;
      if (!Digits())
        return fail("exponent digits");
    }
    Out.What = JsonValue::Kind::Number;
    Out.Number = std::strtod(std::string(In.substr(Start, At - Start)).c_str(), nullptr);
    return true;
  }

  std::string_view In;
  std::size_t At = 0;
  std::string Expected;
};

bool parseJson(std::string_view Input, JsonValue &Out, std::string &Error) {
  Out = JsonValue();
  return JsonParser(Input).parse(Out, Error);
}

} // namespace streamlife::timeline
