//===- ImportBindingTest.cpp - an object's imports bound to other definitions ---===//
#include "intercept/ImportBinding.h"
#include "intercept/RealFunction.h"

#include <dlfcn.h>
#include <pthread.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace streamlife::rt;

namespace {

int LockCalls = 0;
int UnlockCalls = 0;

// Stand-ins for the definitions a binding writes: they count, then lock as
// the C library does.
int countingLock(pthread_mutex_t *M) {
  ++LockCalls;
  return realFunction<int (*)(pthread_mutex_t *)>("pthread_mutex_lock")(M);
}
int countingUnlock(pthread_mutex_t *M) {
  ++UnlockCalls;
  return realFunction<int (*)(pthread_mutex_t *)>("pthread_mutex_unlock")(M);
}

using LockAndUnlock = int (*)(pthread_mutex_t *);

class ImportBindingTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    Library = dlopen(GetParam(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(Library, nullptr) << dlerror();
    Call = reinterpret_cast<LockAndUnlock>(dlsym(Library, "lockAndUnlock"));
    ASSERT_NE(Call, nullptr);
    LockCalls = UnlockCalls = 0;
  }
  void TearDown() override {
    // The library's slots back to the C library's own, for the next case.
    ImportTarget Real[] = {
        {"pthread_mutex_lock", realFunction<void *>("pthread_mutex_lock")},
        {"pthread_mutex_unlock", realFunction<void *>("pthread_mutex_unlock")},
    };
    if (Call)
      bindImports(reinterpret_cast<const void *>(Call), Real, 2);
  }
  void *Library = nullptr;
  LockAndUnlock Call = nullptr;
  pthread_mutex_t Mutex = PTHREAD_MUTEX_INITIALIZER;
};

// The library's calls go where its slots were bound, read-only slots (BIND_NOW
// and RELRO) as well as lazy ones, and they still lock and unlock.
TEST_P(ImportBindingTest, TheLibrarysCallsGoToTheBoundDefinitions) {
  ASSERT_EQ(Call(&Mutex), 0);
  EXPECT_EQ(LockCalls, 0);
  ImportTarget Counting[] = {
      {"pthread_mutex_lock", reinterpret_cast<void *>(&countingLock)},
      {"pthread_mutex_unlock", reinterpret_cast<void *>(&countingUnlock)},
  };
  ImportBindingResult Bound = bindImports(reinterpret_cast<const void *>(Call), Counting, 2);
  ASSERT_TRUE(Bound.Found);
  EXPECT_GE(Bound.Slots, 2u);
  ASSERT_NE(Bound.Object, nullptr);
  EXPECT_NE(std::string(Bound.Object).find(std::strrchr(GetParam(), '/') + 1), std::string::npos);
  ASSERT_EQ(Call(&Mutex), 0);
  ASSERT_EQ(Call(&Mutex), 0);
  EXPECT_EQ(LockCalls, 2);
  EXPECT_EQ(UnlockCalls, 2);
  // The mutex is free again: the bound calls locked and unlocked it.
  EXPECT_EQ(pthread_mutex_trylock(&Mutex), 0);
  pthread_mutex_unlock(&Mutex);
}

// Only the named imports are bound; a target with no definition is left
// alone.
TEST_P(ImportBindingTest, OnlyTheNamedImportsWithADefinitionAreBound) {
  ImportTarget Targets[] = {
      {"pthread_mutex_lock", nullptr},
      {"pthread_mutex_unlock", reinterpret_cast<void *>(&countingUnlock)},
      {"pthread_rwlock_rdlock", reinterpret_cast<void *>(&countingLock)}, // not imported
  };
  ImportBindingResult Bound = bindImports(reinterpret_cast<const void *>(Call), Targets, 3);
  ASSERT_TRUE(Bound.Found);
  EXPECT_GE(Bound.Slots, 1u);
  ASSERT_EQ(Call(&Mutex), 0);
  EXPECT_EQ(LockCalls, 0);
  EXPECT_EQ(UnlockCalls, 1);
}

INSTANTIATE_TEST_SUITE_P(ReadOnlyAndLazySlots, ImportBindingTest,
                         ::testing::Values(STREAMLIFE_LOCKING_LIBRARY_RELRO, STREAMLIFE_LOCKING_LIBRARY_LAZY));

// An address in no object (the heap) finds nothing to bind.
TEST(ImportBindingOutsideObjectsTest, AnAddressInNoObjectFindsNothing) {
  std::string Heap(64, 'x');
  ImportTarget Targets[] = {{"pthread_mutex_lock", reinterpret_cast<void *>(&countingLock)}};
  ImportBindingResult Bound = bindImports(Heap.data(), Targets, 1);
  EXPECT_FALSE(Bound.Found);
  EXPECT_EQ(Bound.Slots, 0u);
}

} // namespace
