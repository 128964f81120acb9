//===--- StreamIRTest.cpp - streamlife ------------------------------------===//
//
// The IR's dump (ir::describe), which STREAMLIFE_DEBUG_IR prints for
// developers of a lowering.
//
//===----------------------------------------------------------------------===//

#include "StreamIR.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace {

using namespace ir;

// A call's argument names the caller's name and, where the front end
// resolved it to another stream, that stream: a local holding the current
// stream's handle reads `stream=<current>`, not `stream` alone.
TEST(StreamIRTest, ACallArgumentShowsTheStreamItResolvedTo) {
  Module M;
  NameId Stream = M.addName({"stream", NoId, NoId});
  NameId Side = M.addName({"side", NoId, NoId});
  Inst Call;
  Call.Kind = OpKind::Call;
  Call.Callee = 0;
  CallArg Current;
  Current.Value = Stream;
  Current.Stream = StreamRef::current();
  CallArg Itself;
  Itself.Value = Side;
  Itself.Stream = StreamRef::named(Side);
  CallArg Legacy;
  Legacy.Stream = StreamRef::legacy();
  Call.Args = {Current, Itself, Legacy};
  std::string Text = describe(M, Call);
  EXPECT_NE(Text.find("fn#0(stream=<current>, side, <legacy>)"),
            std::string::npos)
      << Text;
}

} // namespace
} // namespace core
} // namespace streamlife
