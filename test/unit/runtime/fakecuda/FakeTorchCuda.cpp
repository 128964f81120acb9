//===- FakeTorchCuda.cpp - plays libtorch_cuda.so's NCCL calls ------------===//
//
// Like libtorch_cuda.so: links libnccl.so.2 (DT_NEEDED) and is itself loaded
// with dlopen(RTLD_LOCAL) (Python loads torch's extension that way), so NCCL
// is not in the global scope. Its calls must still reach the validator and,
// through it, NCCL. Each function returns the NCCL result.
//
//===----------------------------------------------------------------------===//
#include <cstddef>

extern "C" {
int ncclAllReduce(const void *, void *, std::size_t, int, int, void *, void *);
int ncclSend(const void *, std::size_t, int, int, void *, void *);
int ncclRecv(void *, std::size_t, int, int, void *, void *);
int ncclGroupStart();
int ncclGroupEnd();

namespace {
constexpr int Float32 = 7, Sum = 0;
void *const Comm = reinterpret_cast<void *>(0xc0);
} // namespace

__attribute__((visibility("default"))) int fakeTorchAllReduce(void *Buffer, std::size_t Count, void *Stream) {
  return ncclAllReduce(Buffer, Buffer, Count, Float32, Sum, Comm, Stream);
}

__attribute__((visibility("default"))) int fakeTorchSendRecv(void *Send, void *Recv, std::size_t Count,
                                                             void *Stream) {
  int Rc = ncclGroupStart();
  if (Rc == 0)
    Rc = ncclSend(Send, Count, Float32, 1, Comm, Stream);
  if (Rc == 0)
    Rc = ncclRecv(Recv, Count, Float32, 1, Comm, Stream);
  int End = ncclGroupEnd();
  return Rc ? Rc : End;
}
}
