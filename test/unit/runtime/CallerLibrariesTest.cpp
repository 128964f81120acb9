//===- CallerLibrariesTest.cpp - whose locks order the program's threads --===//
#include "intercept/CallerLibraries.h"

#include "report/CallSiteNames.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <string>

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

/// Loads Path through a descriptor, as the validator loads its PyTorch feed:
/// ld.so then knows it as /proc/self/fd/N. Returns an address inside Symbol
/// and the module's name as dladdr gives it (empty on failure).
std::pair<const char *, std::string> loadThroughDescriptor(const char *Path, const char *Symbol) {
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return {nullptr, ""};
  void *Library = dlopen(("/proc/self/fd/" + std::to_string(Fd)).c_str(), RTLD_NOW | RTLD_LOCAL);
  void *Entry = Library ? dlsym(Library, Symbol) : nullptr;
  Dl_info Info;
  if (!Entry || !dladdr(Entry, &Info) || !Info.dli_fname)
    return {nullptr, ""};
  return {static_cast<const char *>(Entry) + 1, Info.dli_fname};
}

TEST(CallerLibrariesTest, TheFeedLoadedThroughADescriptorIsTheValidatorsOnceNoted) {
  // The PyTorch feed's locks are the validator's, though ld.so names it by
  // the descriptor it was loaded through, not by its file: noted, a caller
  // inside it is private. Another library loaded the same way and not noted
  // stays the program's: the path's form decides nothing. (Not the fake
  // libtorch_cpu.so: ld.so would hand PrivateLockFunctionsTest's later dlopen
  // of its path this object, named by the descriptor, not as libtorch_cpu.so.)
  auto [InFeed, FeedName] = loadThroughDescriptor(STREAMLIFE_REPORTING_FEED, "streamlife_torch_attach");
  auto [InOther, OtherName] = loadThroughDescriptor(STREAMLIFE_PLANTED_FEED, "streamlife_torch_attach");
  ASSERT_NE(InFeed, nullptr);
  ASSERT_NE(InOther, nullptr);
  EXPECT_EQ(FeedName.rfind("/proc/self/fd/", 0), 0u) << FeedName;
  EXPECT_EQ(OtherName.rfind("/proc/self/fd/", 0), 0u) << OtherName;
  noteValidatorModule(FeedName);
  EXPECT_EQ(classifyCaller(InFeed), CallerKind::Private);
  EXPECT_EQ(classifyCaller(InOther), CallerKind::Program);
}

} // namespace
