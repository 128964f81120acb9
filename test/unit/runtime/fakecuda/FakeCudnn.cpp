//===- FakeCudnn.cpp - a stand-in libcudnn.so.9 for CPU-only tests --------===//
//
// The graph API's execution as PyTorch's convolutions reach it: a variant
// pack descriptor holds the data pointers and the workspace, and
// cudnnBackendExecute launches one internal kernel on the handle's stream
// whose parameters hold the first data pointer and the workspace of the
// previous execution (a stale word). Attribute numbers as in cudnn_graph.h.
//
//===----------------------------------------------------------------------===//
#include "FakeLibraryKernel.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
constexpr int DataPointers = 1001, Workspace = 1003, VoidPointer = 6;
constexpr int BadParam = 2000, Success = 0;

struct FakeHandle {
  CUstream Stream = nullptr;
};
struct FakeDescriptor {
  std::vector<void *> Data;
  void *Workspace = nullptr;
};
void *PreviousWorkspace = nullptr;
} // namespace

extern "C" {

int cudnnCreate(void **Handle) {
  *Handle = new FakeHandle;
  return Success;
}

int cudnnSetStream(void *Handle, CUstream Stream) {
  static_cast<FakeHandle *>(Handle)->Stream = Stream;
  return Success;
}

int cudnnGetStream(void *Handle, CUstream *Stream) {
  *Stream = static_cast<FakeHandle *>(Handle)->Stream;
  return Success;
}

int cudnnBackendCreateDescriptor(int, void **Descriptor) {
  *Descriptor = new FakeDescriptor;
  return Success;
}

int cudnnBackendSetAttribute(void *Descriptor, int Attribute, int Type, int64_t Count, const void *Elements) {
  auto *D = static_cast<FakeDescriptor *>(Descriptor);
  if (Type != VoidPointer)
    return Success; // unique ids and the like: not modelled
  auto *Pointers = static_cast<void *const *>(Elements);
  if (Attribute == DataPointers)
    D->Data.assign(Pointers, Pointers + Count);
  else if (Attribute == Workspace && Count == 1)
    D->Workspace = Pointers[0];
  return Success;
}

int cudnnBackendGetAttribute(void *Descriptor, int Attribute, int Type, int64_t Requested, int64_t *Count,
                             void *Elements) {
  auto *D = static_cast<FakeDescriptor *>(Descriptor);
  if (Type != VoidPointer)
    return BadParam;
  std::vector<void *> Values = Attribute == DataPointers ? D->Data : std::vector<void *>{D->Workspace};
  *Count = static_cast<int64_t>(Values.size());
  if (Elements)
    std::memcpy(Elements, Values.data(), sizeof(void *) * static_cast<std::size_t>(std::min<int64_t>(Requested, *Count)));
  return Success;
}

int cudnnBackendExecute(void *Handle, void *, void *Pack) {
  auto *D = static_cast<FakeDescriptor *>(Pack);
  launchLibraryKernel(static_cast<FakeHandle *>(Handle)->Stream,
                      reinterpret_cast<CUdeviceptr>(D->Data.empty() ? nullptr : D->Data.back()),
                      reinterpret_cast<CUdeviceptr>(PreviousWorkspace));
  PreviousWorkspace = D->Workspace;
  return Success;
}

} // extern "C"
