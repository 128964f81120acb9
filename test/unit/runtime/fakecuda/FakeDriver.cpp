//===- FakeDriver.cpp - a stand-in libcuda.so.1 for CPU-only tests --------===//
//
// The driver calls libstreamlife_rt.so makes itself. Kernel 0x1000 has the
// parameters (float *, float *, int); every other handle is rejected as
// cuKernelGetParamInfo rejects a CUfunction, and cuFuncGetParamInfo knows
// kernel 0x2000 as one 24-byte by-value struct; kernel 0x4000 is PyTorch's
// multi_tensor_apply_kernel with depth-2 metadata (one 3144-byte struct);
// kernel 0x5000 has (const float *, const float *, float *, int), a matmul's.
// Stream 0x8000 is capturing.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

extern "C" {

CUresult cuCtxGetDevice(CUdevice *Device) {
  *Device = 0;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream, unsigned int *Flags) {
  *Flags = CU_STREAM_NON_BLOCKING;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetPriority(CUstream, int *Priority) {
  *Priority = 0;
  return CUDA_SUCCESS;
}

// Stream 0x8000 is capturing into a graph.
CUresult cuStreamIsCapturing(CUstream Stream, CUstreamCaptureStatus *Status) {
  *Status = reinterpret_cast<unsigned long>(Stream) == 0x8000 ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                               : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult cuKernelGetParamInfo(CUkernel Kernel, size_t Index, size_t *Offset, size_t *Size) {
  if (reinterpret_cast<unsigned long>(Kernel) == 0x4000) {
    // multi_tensor_apply_kernel<TensorListMetadata<2>, ...>: the metadata struct.
    if (Index >= 1)
      return CUDA_ERROR_INVALID_VALUE;
    *Offset = 0;
    *Size = 3144;
    return CUDA_SUCCESS;
  }
  if (reinterpret_cast<unsigned long>(Kernel) == 0x5000) {
    static const size_t Offsets[] = {0, 8, 16, 24}, Sizes[] = {8, 8, 8, 4};
    if (Index >= 4)
      return CUDA_ERROR_INVALID_VALUE;
    *Offset = Offsets[Index];
    *Size = Sizes[Index];
    return CUDA_SUCCESS;
  }
  if (reinterpret_cast<unsigned long>(Kernel) != 0x1000)
    return CUDA_ERROR_INVALID_HANDLE;
  static const size_t Offsets[] = {0, 8, 16}, Sizes[] = {8, 8, 4};
  if (Index >= 3)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = Offsets[Index];
  *Size = Sizes[Index];
  return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction Function, size_t Index, size_t *Offset, size_t *Size) {
  if (reinterpret_cast<unsigned long>(Function) != 0x2000)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Index >= 1)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = 0;
  *Size = 24;
  return CUDA_SUCCESS;
}

} // extern "C"
