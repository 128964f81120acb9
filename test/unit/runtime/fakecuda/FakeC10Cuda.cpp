//===- FakeC10Cuda.cpp - stands in for PyTorch's libc10_cuda.so -----------===//
//
// The validator recognizes PyTorch by a loaded libc10_cuda.so and finds the
// torch installation from its path (runtime-validator/intercept/TorchFeed.cpp).
// The tests put this library in a torch-like tree of their own to drive the
// feed cache without PyTorch; nothing in it is called.
//
//===----------------------------------------------------------------------===//
extern "C" __attribute__((visibility("default"))) int fakeC10Cuda() { return 0; }
