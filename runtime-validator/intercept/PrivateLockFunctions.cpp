//===- PrivateLockFunctions.cpp - library functions whose lock is private -===//
#include "intercept/PrivateLockFunctions.h"

namespace streamlife {
namespace rt {

namespace {

// Read in PyTorch's source (2.x; the functions have not changed in the
// versions read). A prefix ends at "(" or "::" so that it names one function
// (its overloads) or one class, not every name that starts alike. Not here,
// on purpose: Engine::evaluate_function, ReadyQueue, GraphTask, Future (they
// hand work between threads, and condition variables wait on their locks),
// AccumulateGrad (its mutex guards the program's .grad tensor), c10d.
constexpr PrivateLockFunction Table[] = {
    {"libtorch_cpu.so", "torch::autograd::AutogradMeta::fw_grad(",
     "locks the tensor's AutogradMeta::mutex_ to read (and for a view, build "
     "once from its base) its own forward-grad slot fw_grad_ "
     "(torch/csrc/autograd/autograd_meta.cpp)"},
    {"libtorch_cpu.so", "torch::autograd::AutogradMeta::set_fw_grad(",
     "locks AutogradMeta::mutex_ only around the lazy creation of its own "
     "fw_grad_ (torch/csrc/autograd/autograd_meta.cpp)"},
    {"libtorch_cpu.so", "torch::autograd::impl::grad_accumulator(",
     "locks a leaf's AutogradMeta::mutex_ (the mutex of fw_grad above, which "
     "guards no other state) around the lazy creation of its own "
     "AccumulateGrad node, grad_accumulator_; the .grad the node writes has "
     "AccumulateGrad's own mutex (torch/csrc/autograd/variable.cpp)"},
    {"libtorch_cpu.so", "torch::autograd::VariableHooks::grad_fn(",
     "locks a view's DifferentiableViewMeta::mutex_ to rebuild its own cached "
     "grad_fn_ after an in-place change (torch/csrc/autograd/variable.cpp)"},
    {"libtorch_cpu.so", "at::(anonymous namespace)::GlobalCallbackManager::",
     "update_mutex_ guards the registry of global RecordFunction callbacks "
     "and its version, copied out by getSnapshot (aten/src/ATen/record_function.cpp)"},
    {"libtorch_cpu.so", "c10::InternedStrings::",
     "mutex_ guards the table of interned symbol names (string_to_sym_, "
     "sym_to_info_): a lookup, or the insertion of a new name "
     "(aten/src/ATen/core/interned_strings.cpp)"},
    {"libc10.so", "c10::utils::get_env(",
     "a shared lock of env_mutex around getenv: a read of the process "
     "environment (c10/util/env.cpp)"},
    {"libc10.so", "c10::utils::get_env[abi:cxx11](",
     "the same function, named with its ABI tag (c10/util/env.cpp)"},
    {"libc10.so", "c10::utils::set_env(",
     "env_mutex around setenv, a write of the process environment that "
     "get_env reads (c10/util/env.cpp)"},
    {"libtorch_cuda.so", "at::cuda::setWorkspaceForHandle(",
     "a shared mutex over the cache of cuBLAS workspaces by (handle, stream): "
     "a lookup, or the insertion of a workspace allocated for that key "
     "(aten/src/ATen/cuda/CublasHandlePool.cpp)"},
};

std::string_view baseName(std::string_view Path) {
  std::size_t Slash = Path.rfind('/');
  return Slash == std::string_view::npos ? Path : Path.substr(Slash + 1);
}

} // namespace

bool mayHavePrivateLockFunctions(std::string_view Path) {
  std::string_view Name = baseName(Path);
  for (const PrivateLockFunction &F : Table)
    if (Name == F.Library)
      return true;
  return false;
}

const PrivateLockFunction *privateLockFunction(std::string_view LibraryPath, std::string_view Function) {
  std::string_view Name = baseName(LibraryPath);
  for (const PrivateLockFunction &F : Table)
    if (Name == F.Library && Function.substr(0, std::string_view(F.FunctionPrefix).size()) == F.FunctionPrefix)
      return &F;
  return nullptr;
}

} // namespace rt
} // namespace streamlife
