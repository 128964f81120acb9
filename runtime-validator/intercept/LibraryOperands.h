//===- LibraryOperands.h - the bytes a math-library call touches -*- C++ -*-===//
//
// cuBLAS, cuBLASLt and cuDNN are decoded at their API (InterceptBlas.cpp,
// InterceptCudnn.cpp): a call's arguments say which matrices it reads and
// writes, while the parameters of the kernels it launches are the library's
// business (a split-K reduction kernel's parameters held a pointer into a
// block released long before, and read as evidence they made a false
// use-after-free). This file is the arithmetic: the span of a column- or
// row-major matrix (batched or not) and the size of a cudaDataType_t element.
// Where a layout cannot be bounded (sub-byte types, tiled orders, negative
// strides), the operand touches its whole allocation, as a kernel's pointer
// argument does: never a neighbouring one. Pure; unit-tested on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_LIBRARYOPERANDS_H
#define STREAMLIFE_RT_INTERCEPT_LIBRARYOPERANDS_H

#include "engine/Engine.h"

#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

/// One matrix as stored: Rows x Cols elements, Ld elements between the starts
/// of consecutive columns (column-major) or rows (row-major), and Batches
/// matrices BatchStride elements apart.
struct MatrixOperand {
  Addr Base = 0;
  std::int64_t Rows = 0;
  std::int64_t Cols = 0;
  std::int64_t Ld = 0;
  std::uint64_t ElementSize = 0; ///< 0: unknown, the whole allocation is touched
  bool RowMajor = false;
  std::int64_t Batches = 1;
  std::int64_t BatchStride = 0;
};

/// The bytes from the operand's first element to its last; Size 0 when it has
/// none (a null pointer, an empty matrix); Size WholeAllocation when the
/// layout cannot be bounded (unknown element size, Ld shorter than a column,
/// a negative stride).
Range operandSpan(const MatrixOperand &M);

/// Bytes per element of a cudaDataType_t; 0 for sub-byte and unknown types.
std::uint64_t dataTypeSize(int CudaDataType);

/// A BLAS gemm, column-major: C (m x n) = op(A) (m x k) * op(B) (k x n), as
/// cuBLAS's argument list gives it. op is cublasOperation_t (0 = N).
struct GemmCall {
  int TransA = 0, TransB = 0;
  std::int64_t M = 0, N = 0, K = 0;
  Addr A = 0, B = 0, C = 0;
  std::int64_t Lda = 0, Ldb = 0, Ldc = 0;
  std::uint64_t SizeA = 0, SizeB = 0, SizeC = 0;
  std::int64_t Batches = 1;
  std::int64_t StrideA = 0, StrideB = 0, StrideC = 0;
};

/// The ranges a gemm touches: A, B (read) and C (read when beta != 0, written).
void gemmRanges(const GemmCall &G, std::vector<Range> &Out);

} // namespace rt
} // namespace streamlife

#endif
