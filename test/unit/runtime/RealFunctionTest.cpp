//===- RealFunctionTest.cpp - the interposers' look-up stub ---------------===//
#include "intercept/RealFunction.h"

#include <dlfcn.h>

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

using LabsFn = long (*)(long);
constexpr RealSymbol Labs{"labs"};
constexpr RealSymbol LabsOfNoSuchVersion{"labs", "STREAMLIFE_NO_SUCH_VERSION"};
using RealLabs = RealFunction<LabsFn, Labs>;
using RealLabsOfNoSuchVersion = RealFunction<LabsFn, LabsOfNoSuchVersion>;

TEST(RealFunctionTest, TheFirstCallLooksTheDefinitionUpCallsItAndKeepsIt) {
  LabsFn Stub = RealLabs::get();
  auto Libc = reinterpret_cast<LabsFn>(dlsym(RTLD_NEXT, "labs"));
  ASSERT_NE(Libc, nullptr);
  EXPECT_NE(Stub, Libc); // nothing looked up before the first call
  EXPECT_EQ(Stub(-7), 7);
  EXPECT_EQ(RealLabs::get(), Libc);
  EXPECT_EQ(RealLabs::get()(-9), 9);
}

TEST(RealFunctionTest, AVersionThatDoesNotExistFallsBackToTheDefault) {
  EXPECT_EQ(RealLabsOfNoSuchVersion::get()(-3), 3);
  EXPECT_EQ(RealLabsOfNoSuchVersion::get(), reinterpret_cast<LabsFn>(dlsym(RTLD_NEXT, "labs")));
}

} // namespace
