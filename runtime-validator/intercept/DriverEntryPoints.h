//===- DriverEntryPoints.h - the hot driver calls, at the driver's entry points -*- C++ -*-===//
//
// The third interception mechanism, beside CUPTI and library interposition:
// the rows of CuptiCalls.inc that a launch-bound step makes (kernel launches,
// event records, stream waits) and the stream-ordered allocator's calls
// (cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync: PyTorch's
// cudaMallocAsync backend makes hundreds a step), the STREAMLIFE_ENTRY_POINT_CALL
// rows, are intercepted by wrapping the driver's own functions, because
// CUPTI's dispatch of their enter and exit alone costs 0.82 us per launch-bound
// step on the H200, more than the validator's whole budget
// (bench/runtime/README.md, "Where the launch cost goes").
//
// A program reaches those functions in one of three ways, and each hands it
// the validator's wrapper, which builds the parameter struct CUPTI would have
// handed the family and calls it through the call table (DriverCallTable.h) at
// the row's site, then forwards to the next definition:
//   1. linked against libcuda.so.1 (CuPy, programs that call the driver): the
//      preloaded validator defines the functions, so they bind to it first;
//   2. through cuGetProcAddress (the CUDA runtime, static in nvcc's programs
//      and dynamic in PyTorch, and cudaGetDriverEntryPoint): the validator's
//      cuGetProcAddress and cuGetProcAddress_v2 replace a returned pointer
//      that is one of the driver's own hot functions by the wrapper of that
//      function, by value, so the _ptsz or legacy variant the driver chose for
//      the flags is kept;
//   3. dlsym of a handle that reaches libcuda (Triton's launcher looks up
//      cuLaunchKernelEx; the runtime looks up cuGetProcAddress): the
//      validator's dlsym maps the result the same way. dlsym(RTLD_NEXT) and
//      dlsym(RTLD_DEFAULT) search relative to their caller, so on x86-64 the
//      interposed dlsym is an assembly trampoline that jumps to the real one
//      for those two handles, keeping the caller's return address (another
//      interposer's RTLD_NEXT still finds the definition after its own).
// Elsewhere (another architecture), with driver_entry_points=0, or with a
// timeline (which matches work with CUPTI's activity records by CUPTI's
// correlation ids), CUPTI carries these rows as all others. The choice is made
// once, before the runtime is published.
//
// The wrappers are lean: a parameter struct on the stack, no allocation, no
// lock but what the family takes; the current context is asked of the driver
// only for the special stream handles, whose meaning depends on it. The
// kernel's name, which CUPTI gives with each launch, is asked of the driver
// the first time a kernel is seen (KernelInfoCache).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_DRIVERENTRYPOINTS_H
#define STREAMLIFE_RT_INTERCEPT_DRIVERENTRYPOINTS_H

#include <string>

namespace streamlife {
namespace rt {

class ValidatorRuntime;

/// Resolves the driver's own entry points in the loaded libcuda.so.1 and
/// checks that the wrappers and the call table's entry-point rows match and
/// that cuGetProcAddress hands out those very addresses. False, with Why,
/// when the entry points cannot be relied on here: CUPTI then carries the rows.
bool prepareDriverEntryPoints(std::string &Why);
/// From now on dlsym and cuGetProcAddress hand the wrappers out (call once
/// the call table says the rows are carried here).
void activateDriverEntryPoints();
/// The runtime the wrappers hand their calls to: set once it is published
/// (after activateDriverEntryPoints), null again in a forked child, which
/// goes passive. One load per call, where the wrappers asked whether the
/// entry points were active and then for the process's runtime.
void setDriverEntryPointRuntime(ValidatorRuntime *R);

} // namespace rt
} // namespace streamlife

#endif
