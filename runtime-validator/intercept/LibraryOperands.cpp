//===- LibraryOperands.cpp - the bytes a math-library call touches --------===//
#include "intercept/LibraryOperands.h"

#include <library_types.h>

namespace streamlife {
namespace rt {

Range operandSpan(const MatrixOperand &M) {
  if (!M.Base || M.Rows <= 0 || M.Cols <= 0 || M.Batches <= 0)
    return Range{M.Base, 0};
  std::int64_t Inner = M.RowMajor ? M.Cols : M.Rows; // elements along the leading dimension
  std::int64_t Outer = M.RowMajor ? M.Rows : M.Cols;
  if (!M.ElementSize || M.Ld < Inner || M.BatchStride < 0)
    return Range{M.Base, WholeAllocation};
  // Unsigned arithmetic: a product that overflows cannot describe real memory,
  // so it falls back to the whole allocation too.
  unsigned __int128 Elements = static_cast<unsigned __int128>(Outer - 1) * M.Ld + Inner;
  Elements += static_cast<unsigned __int128>(M.Batches - 1) * M.BatchStride;
  unsigned __int128 Bytes = Elements * M.ElementSize;
  if (Bytes >> 63)
    return Range{M.Base, WholeAllocation};
  return Range{M.Base, static_cast<std::uint64_t>(Bytes)};
}

std::uint64_t dataTypeSize(int Type) {
  switch (static_cast<cudaDataType_t>(Type)) {
  case CUDA_R_8I:
  case CUDA_R_8U:
  case CUDA_R_8F_E4M3:
  case CUDA_R_8F_E5M2:
  case CUDA_R_8F_UE8M0:
    return 1;
  case CUDA_R_16F:
  case CUDA_R_16BF:
  case CUDA_R_16I:
  case CUDA_R_16U:
  case CUDA_C_8I:
  case CUDA_C_8U:
    return 2;
  case CUDA_R_32F:
  case CUDA_R_32I:
  case CUDA_R_32U:
  case CUDA_C_16F:
  case CUDA_C_16BF:
  case CUDA_C_16I:
  case CUDA_C_16U:
    return 4;
  case CUDA_R_64F:
  case CUDA_R_64I:
  case CUDA_R_64U:
  case CUDA_C_32F:
  case CUDA_C_32I:
  case CUDA_C_32U:
    return 8;
  case CUDA_C_64F:
  case CUDA_C_64I:
  case CUDA_C_64U:
    return 16;
  default:
    return 0; // 4- and 6-bit types, and types newer than this list
  }
}

void gemmRanges(const GemmCall &G, std::vector<Range> &Out) {
  // op(A) is m x k: A is stored m x k when not transposed, k x m when it is
  // (CUBLAS_OP_CONJG, 3, conjugates without transposing).
  auto Transposed = [](int Op) { return Op == 1 || Op == 2; };
  MatrixOperand A{G.A, Transposed(G.TransA) ? G.K : G.M, Transposed(G.TransA) ? G.M : G.K, G.Lda,
                  G.SizeA, false, G.Batches, G.StrideA};
  MatrixOperand B{G.B, Transposed(G.TransB) ? G.N : G.K, Transposed(G.TransB) ? G.K : G.N, G.Ldb,
                  G.SizeB, false, G.Batches, G.StrideB};
  MatrixOperand C{G.C, G.M, G.N, G.Ldc, G.SizeC, false, G.Batches, G.StrideC};
  for (const MatrixOperand &M : {A, B, C}) {
    Range R = operandSpan(M);
    if (R.Size)
      Out.push_back(R);
  }
}

} // namespace rt
} // namespace streamlife
