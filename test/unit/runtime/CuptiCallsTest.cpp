//===- CuptiCallsTest.cpp - the CUPTI call table and the copy decoder ------===//
#include "intercept/CopyDecoder.h"
#include "intercept/CuptiCalls.h"

#include <cupti_driver_cbid.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>

using namespace streamlife::rt;

namespace {

bool endsWith(const std::string &S, const char *Suffix) {
  std::size_t N = std::strlen(Suffix);
  return S.size() >= N && S.compare(S.size() - N, N, Suffix) == 0;
}

TEST(CuptiCallsTest, EachCbidHasOneRow) {
  std::set<CUpti_CallbackId> Seen;
  for (const CuptiCall &Call : cuptiCalls())
    EXPECT_TRUE(Seen.insert(Call.Cbid).second) << Call.Name << " has two rows";
  EXPECT_GE(Seen.size(), 143u); // every call the hand-written lists owned
}

TEST(CuptiCallsTest, PerThreadColumnAgreesWithTheName) {
  for (const CuptiCall &Call : cuptiCalls()) {
    std::string Name = Call.Name;
    EXPECT_EQ(Call.PerThread, endsWith(Name, "_ptsz") || endsWith(Name, "_ptds")) << Name;
  }
}

TEST(CuptiCallsTest, TheEntryPointRowsAreTheHotCallsInBothStreamFlavours) {
  // The rows DriverEntryPoints.cpp wraps: launch-bound steps make the
  // launches, records and waits, PyTorch's cudaMallocAsync backend the
  // stream-ordered allocations and frees; each has a legacy and a per-thread
  // variant, which must go together (the driver hands out either for the
  // same lookup).
  std::set<std::string> AtEntryPoints;
  for (const CuptiCall &Call : cuptiCalls())
    if (Call.Carrier == CallCarrier::EntryPointWhereSupported) {
      AtEntryPoints.insert(Call.Name);
      EXPECT_TRUE(Call.Family == CuptiFamily::Launches || Call.Family == CuptiFamily::EventsAndSync ||
                  Call.Family == CuptiFamily::Memory)
          << Call.Name;
    }
  std::set<std::string> Expected;
  for (const char *Name :
       {"cuLaunchKernel", "cuLaunchKernelEx", "cuEventRecord", "cuEventRecordWithFlags", "cuStreamWaitEvent",
        "cuMemAllocAsync", "cuMemAllocFromPoolAsync", "cuMemFreeAsync"}) {
    Expected.insert(Name);
    Expected.insert(std::string(Name) + "_ptsz");
  }
  EXPECT_EQ(AtEntryPoints, Expected);
}

TEST(CuptiCallsTest, ARowsOwnDecoderTakesExactlyTheCallsOfOneParameterLayout) {
  // A launch, a record and a wait are decoded by their family's function for
  // that call (rowDecoder), which reads the call's parameter struct as one
  // layout: each must be chosen for exactly the calls of that layout (the
  // legacy and per-thread variants, a record with or without flags, which
  // starts alike), of the family that owns it; every other row keeps its
  // family's switch.
  std::map<RowDecoder, std::set<std::string>> Taken;
  for (const CuptiCall &Call : cuptiCalls())
    if (RowDecoder D = rowDecoder(Call.Cbid); D != RowDecoder::Family) {
      Taken[D].insert(Call.Name);
      EXPECT_EQ(Call.Family, D == RowDecoder::LaunchKernel ? CuptiFamily::Launches : CuptiFamily::EventsAndSync)
          << Call.Name;
    }
  std::map<RowDecoder, std::set<std::string>> Expected = {
      {RowDecoder::LaunchKernel, {"cuLaunchKernel", "cuLaunchKernel_ptsz"}},
      {RowDecoder::EventRecord,
       {"cuEventRecord", "cuEventRecord_ptsz", "cuEventRecordWithFlags", "cuEventRecordWithFlags_ptsz"}},
      {RowDecoder::StreamWaitEvent, {"cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"}}};
  EXPECT_EQ(Taken, Expected);
}

TEST(CuptiCallsTest, EveryRowUsesACallbackSiteAndOnlySynchronousCopiesTheExit) {
  DecodedCopy Out;
  alignas(16) unsigned char Zero[512] = {};
  for (const CuptiCall &Call : cuptiCalls()) {
    EXPECT_NE(Call.Sites, 0u) << Call.Name;
    if (Call.Family != CuptiFamily::CopiesAndSets || !decodeCopy(Call.Cbid, Zero, Out))
      continue;
    EXPECT_TRUE(Call.Sites & CuptiCall::AtEnter) << Call.Name;
    bool MaybeSynchronous = Out.Sync != CopySync::Async ||
                            std::string(Call.Name).find("Async") == std::string::npos;
    if (!MaybeSynchronous)
      EXPECT_EQ(Call.Sites, unsigned(CuptiCall::AtEnter)) << Call.Name;
  }
}

TEST(CuptiCallsTest, EveryCopyOrSetRowIsDecodedAndNoOtherRowIs) {
  // Zeroed parameters: every pointer null, every count 0. The decoder must
  // accept each copy row (touching nothing) and refuse every other family's.
  alignas(16) unsigned char Zero[512] = {};
  DecodedCopy Out;
  for (const CuptiCall &Call : cuptiCalls()) {
    bool Decoded = decodeCopy(Call.Cbid, Zero, Out);
    EXPECT_EQ(Decoded, Call.Family == CuptiFamily::CopiesAndSets) << Call.Name;
    if (Decoded)
      EXPECT_TRUE(Out.Ranges.empty()) << Call.Name;
  }
}

TEST(CuptiCallsTest, AsyncCopyTouchesBothSidesOnItsStream) {
  cuMemcpyHtoDAsync_v2_ptsz_params P{};
  P.dstDevice = 0x7f0000000000;
  char Host[64];
  P.srcHost = Host;
  P.ByteCount = 64;
  P.hStream = reinterpret_cast<CUstream>(0x5000);
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, &P, Out));
  ASSERT_EQ(Out.Ranges.size(), 2u);
  EXPECT_EQ(Out.Ranges[0].Begin, 0x7f0000000000u);
  EXPECT_EQ(Out.Ranges[0].Size, 64u);
  EXPECT_EQ(Out.Ranges[1].Begin, reinterpret_cast<Addr>(Host));
  EXPECT_EQ(Out.Stream, P.hStream);
  EXPECT_EQ(Out.Sync, CopySync::Async);
}

TEST(CuptiCallsTest, SynchronousCopiesSayWhatTheHostKnows) {
  cuMemcpyDtoH_v2_params ToHost{};
  char Host[16];
  ToHost.dstHost = Host;
  ToHost.srcDevice = 0x1000;
  ToHost.ByteCount = 16;
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, &ToHost, Out));
  EXPECT_EQ(Out.Sync, CopySync::Sync);
  EXPECT_EQ(Out.Stream, nullptr);

  cuMemcpyDtoD_v2_params OnDevice{0x1000, 0x2000, 16};
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, &OnDevice, Out));
  EXPECT_EQ(Out.Sync, CopySync::Async);

  cuMemcpy_params Unified{0x1000, 0x2000, 16};
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy, &Unified, Out));
  EXPECT_EQ(Out.Sync, CopySync::SyncIfHostMemory);
}

TEST(CuptiCallsTest, ArraySideOfACopyIsNotARange) {
  cuMemcpyDtoA_v2_params P{};
  P.srcDevice = 0x3000;
  P.ByteCount = 32;
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2, &P, Out));
  ASSERT_EQ(Out.Ranges.size(), 1u);
  EXPECT_EQ(Out.Ranges[0].Begin, 0x3000u);
}

TEST(CuptiCallsTest, SetsCountElementsOfTheirSize) {
  cuMemsetD16Async_params P{};
  P.dstDevice = 0x4000;
  P.N = 10;
  P.hStream = reinterpret_cast<CUstream>(0x6000);
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async, &P, Out));
  ASSERT_EQ(Out.Ranges.size(), 1u);
  EXPECT_EQ(Out.Ranges[0].Size, 20u);
  EXPECT_EQ(Out.Stream, P.hStream);

  cuMemsetD2D32_v2_ptds_params Q{};
  Q.dstDevice = 0x8000;
  Q.dstPitch = 256;
  Q.Width = 10; // elements of 4 bytes
  Q.Height = 3;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds, &Q, Out));
  ASSERT_EQ(Out.Ranges.size(), 1u);
  EXPECT_EQ(Out.Ranges[0].Begin, 0x8000u);
  EXPECT_EQ(Out.Ranges[0].Size, 2u * 256 + 40);
}

TEST(CuptiCallsTest, PitchedCopiesReadTheirMemoryTypes) {
  CUDA_MEMCPY2D D{};
  char Host[1024];
  D.srcMemoryType = CU_MEMORYTYPE_HOST;
  D.srcHost = Host;
  D.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  D.dstDevice = 0x10000;
  D.dstPitch = 512;
  D.WidthInBytes = 100;
  D.Height = 2;
  cuMemcpy2D_v2_params P{&D};
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, &P, Out));
  ASSERT_EQ(Out.Ranges.size(), 2u);
  EXPECT_EQ(Out.Ranges[1].Begin, 0x10000u);
  EXPECT_EQ(Out.Ranges[1].Size, 512u + 100);
  EXPECT_EQ(Out.Sync, CopySync::Sync); // a host side: synchronous

  D.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  D.srcDevice = 0x20000;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, &P, Out));
  EXPECT_EQ(Out.Sync, CopySync::Async); // device to device

  cuMemcpy2DAsync_v2_params A{&D, reinterpret_cast<CUstream>(0x7000)};
  D.srcMemoryType = CU_MEMORYTYPE_HOST;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, &A, Out));
  EXPECT_EQ(Out.Sync, CopySync::Async); // async variant, host side or not
  EXPECT_EQ(Out.Stream, A.hStream);
}

TEST(CuptiCallsTest, BatchesTouchEveryPair) {
  CUdeviceptr Dsts[2] = {0x1000, 0x2000}, Srcs[2] = {0x3000, 0x4000};
  size_t Sizes[2] = {8, 16};
  cuMemcpyBatchAsync_v2_params P{};
  P.dsts = Dsts;
  P.srcs = Srcs;
  P.sizes = Sizes;
  P.count = 2;
  P.hStream = reinterpret_cast<CUstream>(0x5000);
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2, &P, Out));
  ASSERT_EQ(Out.Ranges.size(), 4u);
  EXPECT_EQ(Out.Ranges[3].Begin, 0x4000u);
  EXPECT_EQ(Out.Ranges[3].Size, 16u);
  EXPECT_EQ(Out.Stream, P.hStream);
}

TEST(CuptiCallsTest, ThreeDimensionalBatchesAreNotedNotDecoded) {
  alignas(16) unsigned char Zero[128] = {};
  DecodedCopy Out;
  ASSERT_TRUE(decodeCopy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2, Zero, Out));
  ASSERT_TRUE(Out.Unanalysed.has_value());
  EXPECT_EQ(*Out.Unanalysed, NotAnalysed::BatchCopies3D);
}

} // namespace
