//===- FakeNccl.cpp - a stand-in libnccl.so.2 for CPU-only tests ----------===//
//
// The stand-in libtorch_cuda.so (FakeTorchCuda.cpp) links against it
// (DT_NEEDED, as the real one links NCCL), so the validator's interposed
// definitions come first and forward here. Every call succeeds; the communicator has two ranks. ncclGroupEnd
// fails while FAKE_NCCL_FAIL_GROUP is set.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdlib>

extern "C" {

int ncclCommCount(void *, int *Count) {
  *Count = 2;
  return 0;
}
int ncclAllReduce(const void *, void *, std::size_t, int, int, void *, void *) { return 0; }
int ncclAllGather(const void *, void *, std::size_t, int, void *, void *) { return 0; }
int ncclReduceScatter(const void *, void *, std::size_t, int, int, void *, void *) { return 0; }
int ncclBroadcast(const void *, void *, std::size_t, int, int, void *, void *) { return 0; }
int ncclReduce(const void *, void *, std::size_t, int, int, int, void *, void *) { return 0; }
int ncclSend(const void *, std::size_t, int, int, void *, void *) { return 0; }
int ncclRecv(void *, std::size_t, int, int, void *, void *) { return 0; }
int ncclGroupStart() { return 0; }
int ncclGroupEnd() { return std::getenv("FAKE_NCCL_FAIL_GROUP") ? 3 : 0; }

} // extern "C"
