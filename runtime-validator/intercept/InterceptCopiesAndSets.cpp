//===- InterceptCopiesAndSets.cpp - memcpy and memset, every variant -------===//
//
// A copy or set is one enqueue touching its exact byte ranges (for 2D/3D, the
// span from the first to the last byte; pitch padding belongs to the same
// allocation). Host pointers are passed too: they are ignored unless tracked,
// which managed memory is. Synchronous copies with a host side return only when
// the copy is done, so they are host syncs of their stream as well; device-to-
// device copies and sets are asynchronous to the host (CUDA docs, "API
// synchronization behavior") and are not.
//
//===----------------------------------------------------------------------===//
#include "intercept/CopyRanges.h"
#include "intercept/Runtime.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

namespace {

enum class HostSync { No, Yes, IfHostSide };

struct Copy {
  std::vector<Range> Ranges;
  CUstream Stream = nullptr;
  HostSync Sync = HostSync::No;
};

void add(Copy &C, std::uint64_t Ptr, std::uint64_t Size) {
  if (Ptr && Size)
    C.Ranges.push_back(Range{Ptr, Size});
}

std::uint64_t sideAddress(CUmemorytype Type, const void *Host, CUdeviceptr Device) {
  switch (Type) {
  case CU_MEMORYTYPE_HOST:
    return reinterpret_cast<std::uint64_t>(Host);
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    return Device;
  default:
    return 0; // CUDA arrays are not tracked allocations
  }
}

void add2D(Copy &C, CUmemorytype Type, const void *Host, CUdeviceptr Device, std::size_t X,
           std::size_t Y, std::size_t Pitch, std::size_t Width, std::size_t Height) {
  Range R = pitchedSpan(sideAddress(Type, Host, Device), X, Y, Pitch, Width, Height);
  add(C, R.Begin, R.Size);
}

void add3D(Copy &C, CUmemorytype Type, const void *Host, CUdeviceptr Device, std::size_t X,
           std::size_t Y, std::size_t Z, std::size_t Pitch, std::size_t SliceHeight,
           std::size_t Width, std::size_t Height, std::size_t Depth) {
  Range R = pitchedSpan3D(sideAddress(Type, Host, Device), X, Y, Z, Pitch, SliceHeight, Width,
                          Height, Depth);
  add(C, R.Begin, R.Size);
}

template <typename P> void from2D(Copy &C, const P *Copy2D) {
  if (!Copy2D)
    return;
  add2D(C, Copy2D->srcMemoryType, Copy2D->srcHost, Copy2D->srcDevice, Copy2D->srcXInBytes,
        Copy2D->srcY, Copy2D->srcPitch, Copy2D->WidthInBytes, Copy2D->Height);
  add2D(C, Copy2D->dstMemoryType, Copy2D->dstHost, Copy2D->dstDevice, Copy2D->dstXInBytes,
        Copy2D->dstY, Copy2D->dstPitch, Copy2D->WidthInBytes, Copy2D->Height);
}

template <typename P> void from3D(Copy &C, const P *Copy3D) {
  if (!Copy3D)
    return;
  add3D(C, Copy3D->srcMemoryType, Copy3D->srcHost, Copy3D->srcDevice, Copy3D->srcXInBytes,
        Copy3D->srcY, Copy3D->srcZ, Copy3D->srcPitch, Copy3D->srcHeight, Copy3D->WidthInBytes,
        Copy3D->Height, Copy3D->Depth);
  add3D(C, Copy3D->dstMemoryType, Copy3D->dstHost, Copy3D->dstDevice, Copy3D->dstXInBytes,
        Copy3D->dstY, Copy3D->dstZ, Copy3D->dstPitch, Copy3D->dstHeight, Copy3D->WidthInBytes,
        Copy3D->Height, Copy3D->Depth);
}

bool hasHostSide(CUmemorytype Src, CUmemorytype Dst) {
  return Src == CU_MEMORYTYPE_HOST || Dst == CU_MEMORYTYPE_HOST;
}

/// Fills Out from the call's parameters; false for cbids this family does not own.
bool decode(const CallContext &Ctx, Copy &Out) {
  switch (Ctx.Cbid) {
  // --- 1D copies ----------------------------------------------------------
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: {
    const auto &P = Ctx.params<cuMemcpy_params>();
    add(Out, P.dst, P.ByteCount);
    add(Out, P.src, P.ByteCount);
    Out.Sync = HostSync::IfHostSide;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
    const auto &P = Ctx.params<cuMemcpyAsync_params>();
    add(Out, P.dst, P.ByteCount);
    add(Out, P.src, P.ByteCount);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds: {
    const auto &P = Ctx.params<cuMemcpyPeer_params>();
    add(Out, P.dstDevice, P.ByteCount);
    add(Out, P.srcDevice, P.ByteCount);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz: {
    const auto &P = Ctx.params<cuMemcpyPeerAsync_params>();
    add(Out, P.dstDevice, P.ByteCount);
    add(Out, P.srcDevice, P.ByteCount);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
    const auto &P = Ctx.params<cuMemcpyHtoD_v2_params>();
    add(Out, P.dstDevice, P.ByteCount);
    add(Out, reinterpret_cast<std::uint64_t>(P.srcHost), P.ByteCount);
    Out.Sync = HostSync::Yes;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
    const auto &P = Ctx.params<cuMemcpyHtoDAsync_v2_params>();
    add(Out, P.dstDevice, P.ByteCount);
    add(Out, reinterpret_cast<std::uint64_t>(P.srcHost), P.ByteCount);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds: {
    const auto &P = Ctx.params<cuMemcpyDtoH_v2_params>();
    add(Out, reinterpret_cast<std::uint64_t>(P.dstHost), P.ByteCount);
    add(Out, P.srcDevice, P.ByteCount);
    Out.Sync = HostSync::Yes;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
    const auto &P = Ctx.params<cuMemcpyDtoHAsync_v2_params>();
    add(Out, reinterpret_cast<std::uint64_t>(P.dstHost), P.ByteCount);
    add(Out, P.srcDevice, P.ByteCount);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds: {
    const auto &P = Ctx.params<cuMemcpyDtoD_v2_params>();
    add(Out, P.dstDevice, P.ByteCount);
    add(Out, P.srcDevice, P.ByteCount);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
    const auto &P = Ctx.params<cuMemcpyDtoDAsync_v2_params>();
    add(Out, P.dstDevice, P.ByteCount);
    add(Out, P.srcDevice, P.ByteCount);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2_ptds: {
    const auto &P = Ctx.params<cuMemcpyDtoA_v2_params>();
    add(Out, P.srcDevice, P.ByteCount);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2_ptds: {
    const auto &P = Ctx.params<cuMemcpyAtoD_v2_params>();
    add(Out, P.dstDevice, P.ByteCount);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz: {
    // The _v2 signature dropped failIdx; read the stream from the right struct.
    bool V2 = Ctx.Cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2 ||
              Ctx.Cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz;
    const auto &P1 = Ctx.params<cuMemcpyBatchAsync_params>();
    const auto &P2 = Ctx.params<cuMemcpyBatchAsync_v2_params>();
    CUdeviceptr *Dsts = V2 ? P2.dsts : P1.dsts;
    CUdeviceptr *Srcs = V2 ? P2.srcs : P1.srcs;
    size_t *Sizes = V2 ? P2.sizes : P1.sizes;
    size_t Count = V2 ? P2.count : P1.count;
    for (size_t I = 0; Dsts && Srcs && Sizes && I < Count; ++I) {
      add(Out, Dsts[I], Sizes[I]);
      add(Out, Srcs[I], Sizes[I]);
    }
    Out.Stream = V2 ? P2.hStream : P1.hStream;
    return true;
  }
  // --- 2D and 3D copies ---------------------------------------------------
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds: {
    const CUDA_MEMCPY2D *P = Ctx.params<cuMemcpy2D_v2_params>().pCopy;
    from2D(Out, P);
    if (P && hasHostSide(P->srcMemoryType, P->dstMemoryType))
      Out.Sync = HostSync::Yes;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz: {
    const auto &P = Ctx.params<cuMemcpy2DAsync_v2_params>();
    from2D(Out, P.pCopy);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds: {
    const CUDA_MEMCPY3D *P = Ctx.params<cuMemcpy3D_v2_params>().pCopy;
    from3D(Out, P);
    if (P && hasHostSide(P->srcMemoryType, P->dstMemoryType))
      Out.Sync = HostSync::Yes;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz: {
    const auto &P = Ctx.params<cuMemcpy3DAsync_v2_params>();
    from3D(Out, P.pCopy);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer_ptds: {
    from3D(Out, Ctx.params<cuMemcpy3DPeer_params>().pCopy);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync_ptsz: {
    const auto &P = Ctx.params<cuMemcpy3DPeerAsync_params>();
    from3D(Out, P.pCopy);
    Out.Stream = P.hStream;
    return true;
  }
  // --- sets ---------------------------------------------------------------
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds: {
    const auto &P = Ctx.params<cuMemsetD8_v2_params>();
    add(Out, P.dstDevice, P.N);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds: {
    const auto &P = Ctx.params<cuMemsetD16_v2_params>();
    add(Out, P.dstDevice, P.N * 2);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds: {
    const auto &P = Ctx.params<cuMemsetD32_v2_params>();
    add(Out, P.dstDevice, P.N * 4);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz: {
    const auto &P = Ctx.params<cuMemsetD8Async_params>();
    add(Out, P.dstDevice, P.N);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz: {
    const auto &P = Ctx.params<cuMemsetD16Async_params>();
    add(Out, P.dstDevice, P.N * 2);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz: {
    const auto &P = Ctx.params<cuMemsetD32Async_params>();
    add(Out, P.dstDevice, P.N * 4);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds: {
    const auto &P = Ctx.params<cuMemsetD2D8_v2_params>();
    add2D(Out, CU_MEMORYTYPE_DEVICE, nullptr, P.dstDevice, 0, 0, P.dstPitch, P.Width, P.Height);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds: {
    const auto &P = Ctx.params<cuMemsetD2D16_v2_params>();
    add2D(Out, CU_MEMORYTYPE_DEVICE, nullptr, P.dstDevice, 0, 0, P.dstPitch, P.Width * 2, P.Height);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds: {
    const auto &P = Ctx.params<cuMemsetD2D32_v2_params>();
    add2D(Out, CU_MEMORYTYPE_DEVICE, nullptr, P.dstDevice, 0, 0, P.dstPitch, P.Width * 4, P.Height);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz: {
    const auto &P = Ctx.params<cuMemsetD2D8Async_params>();
    add2D(Out, CU_MEMORYTYPE_DEVICE, nullptr, P.dstDevice, 0, 0, P.dstPitch, P.Width, P.Height);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz: {
    const auto &P = Ctx.params<cuMemsetD2D16Async_params>();
    add2D(Out, CU_MEMORYTYPE_DEVICE, nullptr, P.dstDevice, 0, 0, P.dstPitch, P.Width * 2, P.Height);
    Out.Stream = P.hStream;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz: {
    const auto &P = Ctx.params<cuMemsetD2D32Async_params>();
    add2D(Out, CU_MEMORYTYPE_DEVICE, nullptr, P.dstDevice, 0, 0, P.dstPitch, P.Width * 4, P.Height);
    Out.Stream = P.hStream;
    return true;
  }
  default:
    return false;
  }
}

} // namespace

void interceptCopiesAndSets(const CallContext &C) {
  if (C.Cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync ||
      C.Cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_ptsz ||
      C.Cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2 ||
      C.Cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2_ptsz) {
    if (C.entering())
      C.R.Report.noteNotAnalysed(NotAnalysed::BatchCopies3D);
    return;
  }
  static thread_local Copy Pending;
  if (C.entering()) {
    Pending.Ranges.clear();
    Pending.Stream = nullptr;
    Pending.Sync = HostSync::No;
    if (!decode(C, Pending) || C.capturing(Pending.Stream))
      return;
    // Synchronous variants run on the (legacy or per-thread) default stream.
    C.R.Eng.launched(C.T, C.stream(Pending.Stream), Pending.Ranges, C.apiOp());
    return;
  }
  // Exit: a synchronous copy with a host side has completed.
  Copy Done;
  if (!C.exitedOk() || !decode(C, Done) || Done.Sync == HostSync::No)
    return;
  if (Done.Sync == HostSync::IfHostSide) {
    bool AllDevice = true;
    for (const Range &R : Done.Ranges)
      AllDevice = AllDevice && C.R.Eng.isTracked(R.Begin);
    if (AllDevice)
      return;
  }
  C.R.Eng.hostSyncsStream(C.T, C.stream(Done.Stream));
}

} // namespace rt
} // namespace streamlife
