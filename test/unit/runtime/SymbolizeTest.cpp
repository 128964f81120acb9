//===- SymbolizeTest.cpp - frames named from the module's symbol table ----===//
#include "report/CallSiteNames.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

// Internal linkage: dladdr cannot name it, the .symtab can.
__attribute__((noinline)) void *internalCallSite() { return __builtin_return_address(0); }

__attribute__((noinline)) void *callFromHere() {
  void *Ret = internalCallSite();
  asm volatile("" ::: "memory"); // keep the call from being a tail call
  return Ret;
}

TEST(SymbolizeTest, InternalFunctionsAreNamedExactly) {
  Frame F = symbolize(callFromHere());
  EXPECT_NE(F.Function.find("callFromHere"), std::string::npos) << formatFrame(F);
  EXPECT_NE(F.Module.find("RuntimeReportTests"), std::string::npos);
}

TEST(SymbolizeTest, UnknownAddressesKeepOnlyTheAddress) {
  Frame F = symbolize(reinterpret_cast<void *>(0x10));
  EXPECT_TRUE(F.Function.empty());
  EXPECT_EQ(formatFrame(F), "(<unknown module>+0x0)");
}

TEST(SymbolizeTest, RuntimeModulesAreSkippedUntilTheCallSite) {
  EXPECT_TRUE(isRuntimeModule("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  EXPECT_TRUE(isRuntimeModule("/usr/local/cuda/lib64/libcudart.so.13"));
  EXPECT_TRUE(isRuntimeModule("/x/libcupti.so.2025.3.1"));
  EXPECT_TRUE(isRuntimeModule("build/lib/libstreamlife_rt.so"));
  EXPECT_FALSE(isRuntimeModule("/usr/lib/libcudnn.so.9"));
  EXPECT_FALSE(isRuntimeModule("/work/app"));
  std::vector<void *> Frames = {reinterpret_cast<void *>(0x10), callFromHere()};
  std::vector<Frame> User = userFrames(Frames, 4);
  ASSERT_EQ(User.size(), 1u); // the unknown frame is dropped as not-user code
  EXPECT_NE(User[0].Function.find("callFromHere"), std::string::npos);
}

TEST(SymbolizeTest, ANotedValidatorModuleIsSkippedByItsExactName) {
  // The PyTorch feed, loaded through /proc/self/fd/N: its frames are the
  // validator's once noted, and only that path's (fd 9990 is not fd 999).
  // Descriptors no other test of this process opens.
  EXPECT_FALSE(isRuntimeModule("/proc/self/fd/999"));
  noteValidatorModule("/proc/self/fd/999");
  noteValidatorModule("/proc/self/fd/999");
  EXPECT_TRUE(isRuntimeModule("/proc/self/fd/999"));
  EXPECT_TRUE(isNotedValidatorModule("/proc/self/fd/999"));
  EXPECT_FALSE(isRuntimeModule("/proc/self/fd/9990"));
  EXPECT_FALSE(isRuntimeModule("/proc/self/fd/"));
}

} // namespace
