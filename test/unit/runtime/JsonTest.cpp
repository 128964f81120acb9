//===- JsonTest.cpp - JSON escaping and structure -------------------------===//
#include "report/Json.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

TEST(JsonTest, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(jsonEscape("a\"b\\c"), "a\\\"b\\\\c");
  EXPECT_EQ(jsonEscape("line\nnext\ttab"), "line\\nnext\\ttab");
  EXPECT_EQ(jsonEscape(std::string("\x01", 1)), "\\u0001");
  EXPECT_EQ(jsonEscape("kernel 'f(float*)'"), "kernel 'f(float*)'");
}

TEST(JsonTest, SeparatesMembersAndElements) {
  JsonWriter W;
  W.beginObject();
  W.key("a").value(std::uint64_t(1));
  W.key("b").beginArray().value("x").value("y").endArray();
  W.key("c").beginObject().endObject();
  W.key("d").value(true);
  W.endObject();
  EXPECT_EQ(W.str(), "{\"a\":1,\"b\":[\"x\",\"y\"],\"c\":{},\"d\":true}");
}

TEST(JsonTest, NestedObjectsInArrays) {
  JsonWriter W;
  W.beginArray();
  W.beginObject().key("k").value("v").endObject();
  W.beginObject().key("k").value("w").endObject();
  W.endArray();
  EXPECT_EQ(W.str(), "[{\"k\":\"v\"},{\"k\":\"w\"}]");
}

} // namespace
