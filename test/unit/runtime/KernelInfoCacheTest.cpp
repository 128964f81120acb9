//===- KernelInfoCacheTest.cpp - a kernel's layout and plan, once ---------===//
//
// KernelInfoCache asks the driver once per kernel and remembers, per thread,
// the last kernel and the kernels found before; find() never asks. The driver's answers are faked.
//
//===----------------------------------------------------------------------===//
#include "intercept/CudaLibraries.h"
#include "intercept/KernelArguments.h"

#include <gtest/gtest.h>

#include <optional>
#include <thread>

using namespace streamlife::rt;

namespace {

int Queries = 0;

/// Every kernel has two pointer parameters.
CUresult twoPointers(CUkernel, size_t Index, size_t *Offset, size_t *Size) {
  ++Queries;
  if (Index >= 2)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = 8 * Index;
  *Size = 8;
  return CUDA_SUCCESS;
}

/// Every kernel has one 24-byte struct.
CUresult oneStruct(CUkernel, size_t Index, size_t *Offset, size_t *Size) {
  ++Queries;
  if (Index >= 1)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = 0;
  *Size = 24;
  return CUDA_SUCCESS;
}

void *kernel(std::uintptr_t Handle) { return reinterpret_cast<void *>(Handle); }

TEST(KernelInfoCacheTest, AsksTheDriverOncePerKernel) {
  DriverApi Driver;
  Driver.KernelGetParamInfo = twoPointers;
  KernelInfoCache Kernels(Driver);
  OpTable Ops;
  EXPECT_EQ(Kernels.find(kernel(0x10)), nullptr);
  Queries = 0;
  const KernelInfo *Info = Kernels.get(kernel(0x10), "_Z4tickPfS_", Ops);
  ASSERT_NE(Info, nullptr);
  EXPECT_TRUE(Info->LayoutKnown);
  EXPECT_EQ(Info->Layout.size(), 2u);
  EXPECT_EQ(Ops.name(Info->Name), "kernel 'tick(float*, float*)'");
  int AfterFirstSight = Queries;
  EXPECT_EQ(Kernels.get(kernel(0x10), "_Z4tickPfS_", Ops), Info);
  EXPECT_EQ(Kernels.find(kernel(0x10)), Info);
  Kernels.get(kernel(0x20), "_Z4tockPfS_", Ops); // another kernel in between
  EXPECT_EQ(Kernels.find(kernel(0x10)), Info);
  EXPECT_EQ(Queries, AfterFirstSight + 3); // only kernel 0x20's indices 0, 1 and 2
}

TEST(KernelInfoCacheTest, ANewCacheAtTheSameAddressDoesNotFindTheOldOnesKernels) {
  DriverApi Pointers, Struct;
  Pointers.KernelGetParamInfo = twoPointers;
  Struct.KernelGetParamInfo = oneStruct;
  OpTable Ops;
  std::optional<KernelInfoCache> Kernels;
  Kernels.emplace(Pointers);
  ASSERT_EQ(Kernels->get(kernel(0x10), "_Z4tickPfS_", Ops)->Layout.size(), 2u);
  // The last kernel this thread looked up was 0x10, in a cache now gone.
  Kernels.emplace(Struct);
  EXPECT_EQ(Kernels->find(kernel(0x10)), nullptr);
  const KernelInfo *Info = Kernels->get(kernel(0x10), "_Z4tickPfS_", Ops);
  ASSERT_EQ(Info->Layout.size(), 1u);
  EXPECT_EQ(Info->Layout[0].Size, 24u);
}

TEST(KernelInfoCacheTest, TheThreadsLastKernelIsFoundWithoutTheSharedMap) {
  DriverApi Driver;
  Driver.KernelGetParamInfo = twoPointers;
  OpTable Ops;
  KernelInfoCache Kernels(Driver), Other(Driver);
  const KernelInfo *Tick = Kernels.get(kernel(0x10), "_Z4tickPfS_", Ops);
  const KernelInfo *Tock = Kernels.get(kernel(0x20), "_Z4tockPfS_", Ops);
  ASSERT_EQ(Kernels.find(kernel(0x10)), Tick);
  EXPECT_EQ(Kernels.lastOfThread(kernel(0x10)), Tick);
  EXPECT_EQ(Kernels.lastOfThread(kernel(0x20)), nullptr); // known, but not the last
  EXPECT_EQ(Other.lastOfThread(kernel(0x10)), nullptr);   // the last, but of another cache
  ASSERT_EQ(Kernels.find(kernel(0x20)), Tock);
  EXPECT_EQ(Kernels.lastOfThread(kernel(0x20)), Tock);
  EXPECT_EQ(Kernels.lastOfThread(kernel(0x10)), nullptr);
  // Another thread has its own last kernel.
  const KernelInfo *SeenThere = Tick;
  std::thread([&] { SeenThere = Kernels.lastOfThread(kernel(0x20)); }).join();
  EXPECT_EQ(SeenThere, nullptr);
}

TEST(KernelInfoCacheTest, KernelsTheThreadFoundBeforeAreFoundWithoutTheSharedMap) {
  // A step launches its kernels in turn: the last kernel misses, the
  // thread's recent kernels hit.
  DriverApi Driver;
  Driver.KernelGetParamInfo = twoPointers;
  OpTable Ops;
  KernelInfoCache Kernels(Driver), Other(Driver);
  EXPECT_EQ(Kernels.recentOfThread(kernel(0x1000)), nullptr);
  const KernelInfo *Tick = Kernels.get(kernel(0x1000), "_Z4tickPfS_", Ops);
  const KernelInfo *Tock = Kernels.get(kernel(0x2000), "_Z4tockPfS_", Ops);
  ASSERT_EQ(Kernels.find(kernel(0x1000)), Tick);
  ASSERT_EQ(Kernels.find(kernel(0x2000)), Tock);
  EXPECT_EQ(Kernels.recentOfThread(kernel(0x1000)), Tick);
  EXPECT_EQ(Kernels.recentOfThread(kernel(0x2000)), Tock);
  EXPECT_EQ(Kernels.recentOfThread(kernel(0x3000)), nullptr); // never seen
  EXPECT_EQ(Other.recentOfThread(kernel(0x1000)), nullptr);   // seen, in another cache
  // Another thread has found neither.
  const KernelInfo *SeenThere = Tick;
  std::thread([&] { SeenThere = Kernels.recentOfThread(kernel(0x1000)); }).join();
  EXPECT_EQ(SeenThere, nullptr);
  // A new cache where the old one was does not find the old one's kernels.
  std::optional<KernelInfoCache> Again;
  Again.emplace(Driver);
  EXPECT_EQ(Again->recentOfThread(kernel(0x2000)), nullptr);
  EXPECT_EQ(Again->find(kernel(0x2000)), nullptr);
}

} // namespace
