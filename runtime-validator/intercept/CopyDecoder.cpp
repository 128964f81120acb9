//===- CopyDecoder.cpp - copies and sets, decoded from their table rows ---===//
//
// Each copy or set row of CuptiCalls.inc becomes one case below; the real
// special cases (pitched 2D/3D descriptors, batches) are the shape functions
// the rows name.
//
//===----------------------------------------------------------------------===//
#include "intercept/CopyDecoder.h"

#include "intercept/CopyRanges.h"

#include <cupti_driver_cbid.h>

#include <type_traits>

namespace streamlife {
namespace rt {

namespace {

/// A device pointer, a host pointer or 0 (no such side) as an address.
template <typename T> Addr address(T V) {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<Addr>(V);
  else
    return static_cast<Addr>(V);
}

void add(DecodedCopy &C, Addr Ptr, std::uint64_t Size) {
  if (Ptr && Size)
    C.Ranges.push_back(Range{Ptr, Size});
}

Addr sideAddress(CUmemorytype Type, const void *Host, CUdeviceptr Device) {
  switch (Type) {
  case CU_MEMORYTYPE_HOST:
    return reinterpret_cast<Addr>(Host);
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    return Device;
  default:
    return 0; // CUDA arrays are not tracked allocations
  }
}

/// The Sync column of a pitched copy, whose descriptor names its memory types.
template <typename Desc> CopySync pitchedSync(const Desc &D, CopySync Column) {
  if (Column != CopySync::SyncIfHostMemory)
    return Column;
  return D.srcMemoryType == CU_MEMORYTYPE_HOST || D.dstMemoryType == CU_MEMORYTYPE_HOST
             ? CopySync::Sync
             : CopySync::Async;
}

void linear(DecodedCopy &C, Addr Dst, Addr Src, std::uint64_t Bytes, CUstream Stream, CopySync Sync) {
  add(C, Dst, Bytes);
  add(C, Src, Bytes);
  C.Stream = Stream;
  C.Sync = Sync;
}

void set(DecodedCopy &C, Addr Dst, std::uint64_t Count, std::uint64_t ElementSize, CUstream Stream) {
  add(C, Dst, Count * ElementSize);
  C.Stream = Stream;
}

template <typename P> void set2D(DecodedCopy &C, const P &Params, std::size_t ElementSize, CUstream Stream) {
  Range R = pitchedSpan(Params.dstDevice, 0, 0, Params.dstPitch, Params.Width * ElementSize, Params.Height);
  add(C, R.Begin, R.Size);
  C.Stream = Stream;
}

template <typename Desc> void copy2D(DecodedCopy &C, const Desc *D, CUstream Stream, CopySync Sync) {
  C.Stream = Stream;
  C.Sync = Sync == CopySync::SyncIfHostMemory ? CopySync::Async : Sync;
  if (!D)
    return;
  Range Src = pitchedSpan(sideAddress(D->srcMemoryType, D->srcHost, D->srcDevice), D->srcXInBytes,
                          D->srcY, D->srcPitch, D->WidthInBytes, D->Height);
  Range Dst = pitchedSpan(sideAddress(D->dstMemoryType, D->dstHost, D->dstDevice), D->dstXInBytes,
                          D->dstY, D->dstPitch, D->WidthInBytes, D->Height);
  add(C, Src.Begin, Src.Size);
  add(C, Dst.Begin, Dst.Size);
  C.Sync = pitchedSync(*D, Sync);
}

template <typename Desc> void copy3D(DecodedCopy &C, const Desc *D, CUstream Stream, CopySync Sync) {
  C.Stream = Stream;
  C.Sync = Sync == CopySync::SyncIfHostMemory ? CopySync::Async : Sync;
  if (!D)
    return;
  Range Src = pitchedSpan3D(sideAddress(D->srcMemoryType, D->srcHost, D->srcDevice), D->srcXInBytes,
                            D->srcY, D->srcZ, D->srcPitch, D->srcHeight, D->WidthInBytes, D->Height,
                            D->Depth);
  Range Dst = pitchedSpan3D(sideAddress(D->dstMemoryType, D->dstHost, D->dstDevice), D->dstXInBytes,
                            D->dstY, D->dstZ, D->dstPitch, D->dstHeight, D->WidthInBytes, D->Height,
                            D->Depth);
  add(C, Src.Begin, Src.Size);
  add(C, Dst.Begin, Dst.Size);
  C.Sync = pitchedSync(*D, Sync);
}

template <typename P> void batch(DecodedCopy &C, const P &Params) {
  for (std::size_t I = 0; Params.dsts && Params.srcs && Params.sizes && I < Params.count; ++I) {
    add(C, Params.dsts[I], Params.sizes[I]);
    add(C, Params.srcs[I], Params.sizes[I]);
  }
  C.Stream = Params.hStream;
}

} // namespace

bool decodeCopy(CUpti_CallbackId Cbid, const void *Params, DecodedCopy &Out) {
  Out.Ranges.clear();
  Out.Stream = nullptr;
  Out.Sync = CopySync::Async;
  Out.Unanalysed.reset();
  constexpr CopySync Async = CopySync::Async, Sync = CopySync::Sync,
                     SyncIfHostMemory = CopySync::SyncIfHostMemory;
  (void)Async, (void)Sync, (void)SyncIfHostMemory;
  switch (Cbid) {
#define STREAMLIFE_ROW(Cbid, ParamStruct, Decode)                                                  \
  case Cbid: {                                                                                     \
    const auto &P = *static_cast<const ParamStruct *>(Params);                                     \
    (void)P;                                                                                       \
    Decode;                                                                                        \
    return true;                                                                                   \
  }
#define STREAMLIFE_CUPTI_CALL(Name, Family, Null, Site)
#define STREAMLIFE_ENTRY_POINT_CALL(Name, Family, Null, Site)
#define STREAMLIFE_CUPTI_COPY(Name, Null, Dst, Src, Bytes, Stream, SyncKind)                           \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, Name##_params,                                      \
                 linear(Out, address(Dst), address(Src), Bytes, Stream, SyncKind))
#define STREAMLIFE_CUPTI_SET(Name, Null, Dst, Count, ElementSize, Stream)                            \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, Name##_params,                                      \
                 set(Out, address(Dst), Count, ElementSize, Stream))
#define STREAMLIFE_CUPTI_SET2D(Name, Null, ElementSize, Stream)                                        \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, Name##_params, set2D(Out, P, ElementSize, Stream))
#define STREAMLIFE_CUPTI_COPY2D(Name, Null, Stream, SyncKind)                                          \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, Name##_params, copy2D(Out, P.pCopy, Stream, SyncKind))
#define STREAMLIFE_CUPTI_COPY3D(Name, Null, Stream, SyncKind)                                          \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, Name##_params, copy3D(Out, P.pCopy, Stream, SyncKind))
#define STREAMLIFE_CUPTI_COPY_BATCH(Name, Null)                                                        \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, Name##_params, batch(Out, P))
#define STREAMLIFE_CUPTI_COPY_NOT_ANALYSED(Name, Null, Kind)                                           \
  case CUPTI_DRIVER_TRACE_CBID_##Name:                                                               \
    Out.Unanalysed = NotAnalysed::Kind;                                                              \
    return true;
#include "intercept/CuptiCalls.inc"
#undef STREAMLIFE_ROW
  default:
    return false;
  }
}

} // namespace rt
} // namespace streamlife
