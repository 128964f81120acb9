//===- CallerLibrariesTest.cpp - whose locks order the program's threads --===//
#include "intercept/CallerLibraries.h"

#include <gtest/gtest.h>

#include <pthread.h>

using namespace streamlife::rt;

namespace {

TEST(CallerLibrariesTest, CudaLibrariesAndModelledAllocatorsArePrivate) {
  for (const char *Path :
       {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/local/cuda/lib64/libcudart.so.13",
        "/x/site-packages/nvidia/cu13/lib/libcublasLt.so.13", "/x/nvidia/nccl/lib/libnccl.so.2",
        "/x/site-packages/torch/lib/libc10_cuda.so", "/x/nvidia/cudnn/lib/libcudnn_graph.so.9",
        "/opt/streamlife/lib/libstreamlife_rt.so"})
    EXPECT_EQ(classifyLibrary(Path, false), CallerKind::Private) << Path;
}

TEST(CallerLibrariesTest, TheProgramAndItsFrameworksOrderThreads) {
  // PyTorch's autograd engine (libtorch_cpu) and c10d's queues (libtorch_cuda)
  // hand work between threads with their mutexes.
  for (const char *Path : {"/x/site-packages/torch/lib/libtorch_cpu.so",
                           "/x/site-packages/torch/lib/libtorch_cuda.so",
                           "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/home/u/a.out", ""})
    EXPECT_EQ(classifyLibrary(Path, false), CallerKind::Program) << Path;
  EXPECT_EQ(classifyLibrary(nullptr, false), CallerKind::Program);
}

TEST(CallerLibrariesTest, ThePythonInterpreterCountsOnlyItsSemaphores) {
  EXPECT_EQ(classifyLibrary("/usr/lib/libpython3.12.so.1.0", false), CallerKind::Interpreter);
  EXPECT_EQ(classifyLibrary("/usr/bin/python3.12", true), CallerKind::Interpreter);
  // The GIL is a mutex and condition variable; threading.Lock a semaphore.
  EXPECT_FALSE(countsAsProgramSync(CallerKind::Interpreter, SyncPrimitive::Mutex));
  EXPECT_FALSE(countsAsProgramSync(CallerKind::Interpreter, SyncPrimitive::Condition));
  EXPECT_TRUE(countsAsProgramSync(CallerKind::Interpreter, SyncPrimitive::Semaphore));
  EXPECT_TRUE(countsAsProgramSync(CallerKind::Interpreter, SyncPrimitive::Thread));
  EXPECT_FALSE(countsAsProgramSync(CallerKind::Private, SyncPrimitive::Mutex));
  EXPECT_FALSE(countsAsProgramSync(CallerKind::Private, SyncPrimitive::Thread));
  EXPECT_TRUE(countsAsProgramSync(CallerKind::Program, SyncPrimitive::Condition));
}

TEST(CallerLibrariesTest, ACallerIsClassifiedByTheObjectItLivesIn) {
  // The object classifyCaller is linked into is the validator's own (here the
  // test binary): private. libc is the program's; the cache answers the same.
  auto *Ours = reinterpret_cast<const void *>(&classifyLibrary);
  auto *Libc = reinterpret_cast<const void *>(&pthread_self);
  EXPECT_EQ(classifyCaller(Ours), CallerKind::Private);
  EXPECT_EQ(classifyCaller(Libc), CallerKind::Program);
  EXPECT_EQ(classifyCaller(Libc), CallerKind::Program);
  EXPECT_EQ(classifyCaller(Ours), CallerKind::Private);
}

TEST(CallerLibrariesTest, TheInterposersProbeAnswersAsClassifyCallerOnceSeen) {
  // cachedCallerKind is what every interposed lock reads first: Unknown (go
  // and classify) for an address never classified, classifyCaller's own
  // answer after it. Addresses inside two functions no other test classifies.
  auto *Ours = reinterpret_cast<const char *>(&cachedCallerKind) + 1;
  auto *Libc = reinterpret_cast<const char *>(&pthread_equal) + 1;
  EXPECT_EQ(cachedCallerKind(Ours), CallerKind::Unknown);
  EXPECT_EQ(cachedCallerKind(Libc), CallerKind::Unknown);
  EXPECT_EQ(classifyCaller(Ours), CallerKind::Private);
  EXPECT_EQ(classifyCaller(Libc), CallerKind::Program);
  EXPECT_EQ(cachedCallerKind(Ours), CallerKind::Private);
  EXPECT_EQ(cachedCallerKind(Libc), CallerKind::Program);
  EXPECT_EQ(cachedCallerKind(nullptr), CallerKind::Unknown);
}

} // namespace
