//===- InterceptCudnn.cpp - cuDNN calls decoded at their API --------------===//
//
// Mechanism: interposition (Interposition.h), as for cuBLAS. cuDNN's kernels
// take their tensors inside parameter structs whose other words mean nothing
// to us; the API says which buffers a call uses:
//   * cudnnBackendExecute (the graph API, which PyTorch's convolutions and
//     attention reach through cudnn-frontend): every data pointer of the
//     variant pack and its workspace;
//   * the legacy convolutions (forward, backward data, backward filter): x, w,
//     y (or their gradients) and the workspace.
// Tensors touch their whole allocation (their descriptors' strides are not
// read); the workspace its stated size. The stream is the handle's
// (cudnnGetStream). No cuDNN header is needed: the few types are opaque
// pointers and the two attribute numbers are cuDNN 9's stable ABI
// (cudnn_graph.h: CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
// CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003, CUDNN_TYPE_VOID_PTR = 6).
//
//===----------------------------------------------------------------------===//
#include "intercept/Interposition.h"

#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

namespace {

using CudnnStatus = int; // cudnnStatus_t; 0 is CUDNN_STATUS_SUCCESS
using CudnnHandle = void *;
using CudnnDescriptor = void *;
constexpr CudnnStatus NoCudnn = 1001; // CUDNN_STATUS_NOT_INITIALIZED
constexpr int AttrVariantPackDataPointers = 1001;
constexpr int AttrVariantPackWorkspace = 1003;
constexpr int TypeVoidPointer = 6;

template <typename Fn> Fn realCudnn(const char *Name) {
  return nextFunction<Fn>(Name, {"libcudnn.so.9", "libcudnn.so"});
}

CUstream handleStream(CudnnHandle H) {
  using GetStreamFn = CudnnStatus (*)(CudnnHandle, CUstream *);
  static GetStreamFn GetStream = realCudnn<GetStreamFn>("cudnnGetStream");
  CUstream S = nullptr;
  if (GetStream)
    GetStream(H, &S);
  return S;
}

void addWhole(std::vector<Range> &Out, const void *Ptr) {
  if (Ptr)
    Out.push_back(Range{reinterpret_cast<Addr>(Ptr), WholeAllocation});
}

void addBytes(std::vector<Range> &Out, const void *Ptr, std::uint64_t Size) {
  if (Ptr && Size)
    Out.push_back(Range{reinterpret_cast<Addr>(Ptr), Size});
}

/// The variant pack's buffers: every data pointer, and the workspace.
void variantPackRanges(CudnnDescriptor Pack, std::vector<Range> &Out) {
  using GetAttributeFn = CudnnStatus (*)(CudnnDescriptor, int, int, std::int64_t, std::int64_t *, void *);
  static GetAttributeFn Get = realCudnn<GetAttributeFn>("cudnnBackendGetAttribute");
  if (!Get || !Pack)
    return;
  std::int64_t Count = 0;
  if (Get(Pack, AttrVariantPackDataPointers, TypeVoidPointer, 0, &Count, nullptr) == 0 && Count > 0) {
    std::vector<void *> Pointers(static_cast<std::size_t>(Count));
    std::int64_t Got = 0;
    if (Get(Pack, AttrVariantPackDataPointers, TypeVoidPointer, Count, &Got, Pointers.data()) == 0)
      for (std::int64_t I = 0; I < Got && I < Count; ++I)
        addWhole(Out, Pointers[static_cast<std::size_t>(I)]);
  }
  void *Workspace = nullptr;
  std::int64_t Got = 0;
  if (Get(Pack, AttrVariantPackWorkspace, TypeVoidPointer, 1, &Got, &Workspace) == 0 && Got == 1)
    addWhole(Out, Workspace); // its size is the execution plan's, not the pack's
}

void record(InterposedApi &Api, CudnnHandle H, const std::vector<Range> &Ranges) {
  recordLibraryCall(Api, handleStream(H), Ranges);
}

} // namespace

} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;

#pragma GCC visibility push(default)
extern "C" {

CudnnStatus cudnnBackendExecute(CudnnHandle handle, CudnnDescriptor executionPlan, CudnnDescriptor variantPack) {
  using Fn = CudnnStatus (*)(CudnnHandle, CudnnDescriptor, CudnnDescriptor);
  static InterposedApi Api("cudnnBackendExecute");
  static Fn Real = realCudnn<Fn>("cudnnBackendExecute");
  LibraryCallScope Call;
  CudnnStatus Rc = Real ? Real(handle, executionPlan, variantPack) : NoCudnn;
  if (Rc == 0 && Call.outermost()) {
    std::vector<Range> Ranges;
    variantPackRanges(variantPack, Ranges);
    record(Api, handle, Ranges);
  }
  return Rc;
}

// cudnnConvolutionForward(handle, alpha, xDesc, x, wDesc, w, convDesc, algo,
// workSpace, workSpaceSizeInBytes, beta, yDesc, y), and the two backward
// passes with the same shape of argument list.
#define STREAMLIFE_CUDNN_CONVOLUTION(Name)                                                          \
  CudnnStatus Name(CudnnHandle handle, const void *alpha, CudnnDescriptor inDesc, const void *in, CudnnDescriptor filterDesc, \
              const void *filter, CudnnDescriptor convDesc, int algo, void *workSpace,                  \
              size_t workSpaceSizeInBytes, const void *beta, CudnnDescriptor outDesc, void *out) {      \
    using Fn = CudnnStatus (*)(CudnnHandle, const void *, CudnnDescriptor, const void *, CudnnDescriptor, const void *, \
                          CudnnDescriptor, int, void *, size_t, const void *, CudnnDescriptor, void *);      \
    static InterposedApi Api(#Name);                                                               \
    static Fn Real = realCudnn<Fn>(#Name);                                                         \
    LibraryCallScope Call;                                                                         \
    CudnnStatus Rc = Real ? Real(handle, alpha, inDesc, in, filterDesc, filter, convDesc, algo, workSpace, \
                            workSpaceSizeInBytes, beta, outDesc, out)                              \
                     : NoCudnn;                                                                    \
    if (Rc == 0 && Call.outermost()) {                                                             \
      std::vector<Range> Ranges;                                                                   \
      addWhole(Ranges, in);                                                                        \
      addWhole(Ranges, filter);                                                                    \
      addWhole(Ranges, out);                                                                       \
      addBytes(Ranges, workSpace, workSpaceSizeInBytes);                                           \
      record(Api, handle, Ranges);                                                                 \
    }                                                                                              \
    return Rc;                                                                                     \
  }

STREAMLIFE_CUDNN_CONVOLUTION(cudnnConvolutionForward)
STREAMLIFE_CUDNN_CONVOLUTION(cudnnConvolutionBackwardData)
STREAMLIFE_CUDNN_CONVOLUTION(cudnnConvolutionBackwardFilter)

} // extern "C"
#pragma GCC visibility pop
