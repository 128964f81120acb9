//===- PrivateLockFunctionsTest.cpp - library functions whose lock is private ===//
#include "intercept/CallerLibraries.h"
#include "intercept/KeptLockCallers.h"
#include "intercept/PrivateLockFunctions.h"
#include "report/CallSiteNames.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>

#include <memory>

using namespace streamlife::rt;

namespace {

constexpr const char *TorchCpu = "/x/site-packages/torch/lib/libtorch_cpu.so";
constexpr const char *FwGrad = "torch::autograd::AutogradMeta::fw_grad(unsigned long, at::TensorBase const&) const";

TEST(PrivateLockFunctionsTest, ATableFunctionMatchesByItsDemangledNamesPrefix) {
  const PrivateLockFunction *F = privateLockFunction(TorchCpu, FwGrad);
  ASSERT_NE(F, nullptr);
  EXPECT_STREQ(F->Library, "libtorch_cpu.so");
  EXPECT_NE(std::string(F->Why).find("fw_grad_"), std::string::npos);
  // Another overload of the same function, the setter, and every method of
  // the callback registry.
  EXPECT_EQ(privateLockFunction(TorchCpu, "torch::autograd::AutogradMeta::fw_grad(unsigned long) const"), F);
  EXPECT_NE(privateLockFunction(TorchCpu, "torch::autograd::AutogradMeta::set_fw_grad(at::TensorBase const&, "
                                          "at::TensorBase const&, unsigned long, bool)"),
            nullptr);
  EXPECT_NE(privateLockFunction(TorchCpu, "at::(anonymous namespace)::GlobalCallbackManager::getSnapshot() const"),
            nullptr);
  EXPECT_NE(privateLockFunction(TorchCpu, "torch::autograd::impl::grad_accumulator(at::Tensor const&)"), nullptr);
  EXPECT_NE(privateLockFunction(TorchCpu, "c10::InternedStrings::customString(c10::Symbol)"), nullptr);
  EXPECT_NE(privateLockFunction(TorchCpu, "c10::InternedStrings::ns(c10::Symbol)"), nullptr);
  EXPECT_NE(privateLockFunction("/t/lib/libc10.so", "c10::utils::get_env[abi:cxx11](char const*)"), nullptr);
  EXPECT_NE(privateLockFunction("/t/lib/libtorch_cuda.so",
                                "at::cuda::setWorkspaceForHandle(cublasContext*, c10::cuda::CUDAStream)"),
            nullptr);
  // A longer name that starts alike is another function.
  EXPECT_EQ(privateLockFunction(TorchCpu, "torch::autograd::AutogradMeta::fw_grad_slot(unsigned long)"), nullptr);
  EXPECT_EQ(privateLockFunction(TorchCpu, "torch::autograd::AutogradMeta::fw_grad"), nullptr);
}

TEST(PrivateLockFunctionsTest, AutogradsHandOversAndTheProgramsGradAreNotInTheTable) {
  for (const char *Function :
       {"torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::GraphTask>&, "
        "torch::autograd::Node*, torch::autograd::InputBuffer&, std::shared_ptr<torch::autograd::ReadyQueue> "
        "const&)",
        "torch::autograd::ReadyQueue::push(torch::autograd::NodeTask, bool)",
        "torch::autograd::(anonymous namespace)::AccumulateGrad_apply_impl(std::vector<at::Tensor>&&)",
        "torch::autograd::impl::try_get_grad_accumulator(at::Tensor const&)",
        "c10::ivalue::Future::markCompleted(c10::IValue)", "main", ""})
    EXPECT_EQ(privateLockFunction(TorchCpu, Function), nullptr) << Function;
}

TEST(PrivateLockFunctionsTest, OnlyTheExactLibraryNamesMatch) {
  EXPECT_TRUE(mayHavePrivateLockFunctions(TorchCpu));
  EXPECT_TRUE(mayHavePrivateLockFunctions("libc10.so"));
  EXPECT_TRUE(mayHavePrivateLockFunctions("/t/lib/libtorch_cuda.so"));
  for (const char *Path : {"/x/libtorch_cpu.so.1", "/x/mylibtorch_cpu.so", "/x/libtorch_cpu.so/a.out",
                           "/x/libc10_cuda.so", "/home/u/a.out", "/x/libtorch_python.so", ""}) {
    EXPECT_FALSE(mayHavePrivateLockFunctions(Path)) << Path;
    EXPECT_EQ(privateLockFunction(Path, FwGrad), nullptr) << Path;
  }
  // A table function's name in another of the libraries.
  EXPECT_EQ(privateLockFunction("/t/lib/libc10.so", FwGrad), nullptr);
}

TEST(PrivateLockFunctionsTest, ANameNotKnownToHoldTheCallStaysTheProgramsSynchronization) {
  EXPECT_EQ(classifyLibraryFunction(TorchCpu, FwGrad, true), CallerKind::PrivateFunction);
  // dladdr's nearest exported symbol before an internal function: the name
  // may be another function's.
  EXPECT_EQ(classifyLibraryFunction(TorchCpu, FwGrad, false), CallerKind::Program);
  EXPECT_EQ(classifyLibraryFunction(TorchCpu, "torch::autograd::ReadyQueue::push(torch::autograd::NodeTask, bool)",
                                    true),
            CallerKind::Program);
  EXPECT_EQ(classifyLibraryFunction(nullptr, FwGrad, true), CallerKind::Program);
  EXPECT_EQ(classifyLibraryFunction(TorchCpu, nullptr, true), CallerKind::Program);
  for (SyncPrimitive What : {SyncPrimitive::Mutex, SyncPrimitive::Condition, SyncPrimitive::Semaphore,
                             SyncPrimitive::Thread})
    EXPECT_FALSE(countsAsProgramSync(CallerKind::PrivateFunction, What));
}

/// The tests' own libtorch_cpu.so (test/unit/runtime/fakecuda/FakeTorchCpu.cpp)
/// and a function of it, by mangled name.
const char *inTorchCpu(const char *Mangled) {
  static void *Library = dlopen(STREAMLIFE_FAKE_TORCH_CPU, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(Library, nullptr) << dlerror();
  void *Function = Library ? dlsym(Library, Mangled) : nullptr;
  EXPECT_NE(Function, nullptr) << Mangled;
  return static_cast<const char *>(Function);
}
constexpr const char *FwGradMangled = "_ZNK5torch8autograd12AutogradMeta7fw_gradEmRKN2at10TensorBaseE";
constexpr const char *PushMangled = "_ZN5torch8autograd10ReadyQueue4pushEmb";

TEST(PrivateLockFunctionsTest, ACallerInALibraryOfTheTableIsClassifiedByItsFunction) {
  // Return addresses just inside each function: the slow path names them
  // as the kept-lock-event line does, and the cache then answers the same.
  const char *FwGradCall = inTorchCpu(FwGradMangled) + 4;
  const char *PushCall = inTorchCpu(PushMangled) + 4;
  EXPECT_EQ(symbolize(const_cast<char *>(FwGradCall)).Function, FwGrad);
  EXPECT_EQ(cachedCallerKind(FwGradCall), CallerKind::Unknown);
  EXPECT_EQ(classifyCaller(FwGradCall), CallerKind::PrivateFunction);
  EXPECT_EQ(cachedCallerKind(FwGradCall), CallerKind::PrivateFunction);
  EXPECT_EQ(classifyCaller(PushCall), CallerKind::Program);
  EXPECT_EQ(cachedCallerKind(PushCall), CallerKind::Program);
}

TEST(PrivateLockFunctionsTest, AnAddressPastTheFunctionsEndIsNotClassifiedByIt) {
  // The padding after fw_grad: the symbol table's fw_grad ends before it, and
  // so does its dynamic symbol (glibc's dladdr then names none).
  const char *Start = inTorchCpu(FwGradMangled);
  Dl_info Info;
  void *Entry = nullptr;
  ASSERT_NE(dladdr1(Start, &Info, &Entry, RTLD_DL_SYMENT), 0);
  const char *End = Start + static_cast<const ElfW(Sym) *>(Entry)->st_size;
  Frame Past = symbolize(const_cast<char *>(End + 1));
  if (reinterpret_cast<std::uintptr_t>(End) % 16 == 0 && Past.Function != FwGrad)
    GTEST_SKIP() << "another function starts right after fw_grad";
  EXPECT_FALSE(Past.FunctionHoldsCall);
  EXPECT_TRUE(symbolize(const_cast<char *>(Start + 4)).FunctionHoldsCall);
  EXPECT_EQ(classifyCaller(End + 1), CallerKind::Program);
}

TEST(PrivateLockFunctionsTest, WithStatsThePrivateCallersAreCountedInsteadOfCached) {
  // intercept_stats: each call of a private function's lock is counted (the
  // cache would ignore it without a count), other callers are cached as
  // before. Addresses no other test classifies.
  auto Counts = std::make_unique<KeptLockCallers>();
  countPrivateFunctionLocks(Counts.get());
  const char *FwGradCall = inTorchCpu(FwGradMangled) + 5;
  const char *PushCall = inTorchCpu(PushMangled) + 5;
  for (int I = 0; I < 3; ++I) {
    EXPECT_EQ(classifyCaller(FwGradCall), CallerKind::PrivateFunction);
    EXPECT_EQ(cachedCallerKind(FwGradCall), CallerKind::Unknown);
    EXPECT_EQ(classifyCaller(PushCall), CallerKind::Program);
  }
  countPrivateFunctionLocks(nullptr);
  std::vector<KeptLockCallers::Named> Ignored = Counts->mostKept(6);
  ASSERT_EQ(Ignored.size(), 1u);
  EXPECT_EQ(Ignored[0].Where, std::string(FwGrad) + " (libtorch_cpu.so)");
  EXPECT_EQ(Ignored[0].Events, 3u);
}

} // namespace
