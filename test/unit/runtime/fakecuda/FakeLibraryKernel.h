//===- FakeLibraryKernel.h - a math library's own kernel launch -*- C++ -*-===//
//
// The fake cuBLAS and cuBLASLt launch their "internal kernels" through the
// fake CUPTI, like the real libraries launch theirs through the driver: kernel
// 0x1000 (two pointers and an int, FakeDriver.cpp) named like a cuBLASLt
// split-K reduction, whose two pointer parameters the library chose.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TEST_FAKECUDA_FAKELIBRARYKERNEL_H
#define STREAMLIFE_TEST_FAKECUDA_FAKELIBRARYKERNEL_H

#include <cupti.h>

extern "C" void fakeCuptiCall(CUpti_CallbackId Cbid, const char *FunctionName, void *Params, CUresult Result,
                              const char *SymbolName);

inline void launchLibraryKernel(CUstream Stream, CUdeviceptr First, CUdeviceptr Second) {
  int N = 1;
  void *Params[] = {&First, &Second, &N};
  cuLaunchKernel_params P{reinterpret_cast<CUfunction>(0x1000), 1, 1, 1, 32, 1, 1, 0, Stream, Params, nullptr};
  fakeCuptiCall(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &P, CUDA_SUCCESS,
                "_ZN8cublasLt19splitKreduce_kernelILi32ELi16EifffLb0ELb0ELb0ELb1ELb0EEEvPKfPfi");
}

#endif
