//===- FakeTorchCpu.cpp - a libtorch_cpu.so of our own, for its lock callers ===//
//
// The validator ignores the locks of some functions of PyTorch's libraries,
// named by library and function (runtime-validator/intercept/
// PrivateLockFunctions.h). This library is named libtorch_cpu.so and defines,
// in PyTorch's namespaces, one function the table names
// (AutogradMeta::fw_grad) and one it does not (ReadyQueue::push, autograd's
// hand-over of work): each locks a pthread mutex it is given, runs a body
// under it and unlocks it, calling pthread_mutex_lock and unlock itself, so
// that the calls return into the function (test/cli/run-annotated-pool.test,
// scenarios torch-*). Built without sibling calls: the unlock must not
// return to the function's caller.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>

#include <cstring>

namespace at {
class TensorBase {};
} // namespace at

namespace torch {
namespace autograd {

/// The lock and what runs under it.
struct Locked {
  pthread_mutex_t *Mutex;
  void (*Body)(void *);
  void *Arg;
};

struct AutogradMeta {
  Locked Lock;
  __attribute__((noinline)) const at::TensorBase &fw_grad(unsigned long Level, const at::TensorBase &Self) const;
};

const at::TensorBase &AutogradMeta::fw_grad(unsigned long, const at::TensorBase &Self) const {
  pthread_mutex_lock(Lock.Mutex);
  Lock.Body(Lock.Arg);
  pthread_mutex_unlock(Lock.Mutex);
  return Self;
}

struct ReadyQueue {
  Locked Lock;
  __attribute__((noinline)) void push(unsigned long Task, bool IncrementOutstandingTasks);
};

void ReadyQueue::push(unsigned long, bool) {
  pthread_mutex_lock(Lock.Mutex);
  Lock.Body(Lock.Arg);
  pthread_mutex_unlock(Lock.Mutex);
}

} // namespace autograd
} // namespace torch

/// Runs Body under Mutex inside Function ("fw_grad" or "push"); 0, or -1 for
/// an unknown function.
extern "C" __attribute__((visibility("default"))) int fakeTorchLocked(const char *Function, pthread_mutex_t *Mutex,
                                                                      void (*Body)(void *), void *Arg) {
  torch::autograd::Locked Lock{Mutex, Body, Arg};
  if (std::strcmp(Function, "fw_grad") == 0) {
    at::TensorBase Self;
    torch::autograd::AutogradMeta{Lock}.fw_grad(0, Self);
    return 0;
  }
  if (std::strcmp(Function, "push") == 0) {
    torch::autograd::ReadyQueue{Lock}.push(0, true);
    return 0;
  }
  return -1;
}
