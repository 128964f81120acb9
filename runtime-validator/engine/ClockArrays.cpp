//===- ClockArrays.cpp - element-wise scans of clock components -----------===//
//
// The AVX2 loops compare components as signed 64-bit numbers (AVX2 has no
// unsigned compare): exact while every time is below 2^63, which a counter
// that ticks once per operation does not reach (292 years at a billion
// operations a second).
//
//===----------------------------------------------------------------------===//

#include "engine/ClockArrays.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STREAMLIFE_CLOCK_AVX2 1
#else
#define STREAMLIFE_CLOCK_AVX2 0
#endif

namespace streamlife {
namespace rt {

void maxIntoPlain(ClockTime *Into, const ClockTime *From, std::size_t N) {
  for (std::size_t I = 0; I < N; ++I)
    if (From[I] > Into[I])
      Into[I] = From[I];
}

std::size_t firstGreaterPlain(const ClockTime *Into, const ClockTime *From, std::size_t Begin,
                              std::size_t N) {
  for (std::size_t I = Begin; I < N; ++I)
    if (From[I] > Into[I])
      return I;
  return N;
}

#if STREAMLIFE_CLOCK_AVX2
namespace {

/// Asked once, at load: __builtin_cpu_init first, since this may run
/// before libgcc's own constructor has filled in what the CPU has.
const bool HaveAvx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

[[gnu::target("avx2")]] void maxIntoAvx2(ClockTime *Into, const ClockTime *From, std::size_t N) {
  std::size_t I = 0;
  for (; I + 8 <= N; I += 8) {
    __m256i A0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Into + I));
    __m256i A1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Into + I + 4));
    __m256i B0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(From + I));
    __m256i B1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(From + I + 4));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Into + I),
                        _mm256_blendv_epi8(A0, B0, _mm256_cmpgt_epi64(B0, A0)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Into + I + 4),
                        _mm256_blendv_epi8(A1, B1, _mm256_cmpgt_epi64(B1, A1)));
  }
  for (; I < N; ++I)
    if (From[I] > Into[I])
      Into[I] = From[I];
}

[[gnu::target("avx2")]] std::size_t firstGreaterAvx2(const ClockTime *Into, const ClockTime *From,
                                                     std::size_t Begin, std::size_t N) {
  std::size_t I = Begin;
  for (; I + 4 <= N; I += 4) {
    __m256i A = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Into + I));
    __m256i B = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(From + I));
    int Greater = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(B, A)));
    if (Greater)
      return I + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(Greater)));
  }
  for (; I < N; ++I)
    if (From[I] > Into[I])
      return I;
  return N;
}

} // namespace

void maxInto(ClockTime *Into, const ClockTime *From, std::size_t N) {
  if (HaveAvx2)
    maxIntoAvx2(Into, From, N);
  else
    maxIntoPlain(Into, From, N);
}

std::size_t firstGreater(const ClockTime *Into, const ClockTime *From, std::size_t Begin,
                         std::size_t N) {
  return HaveAvx2 ? firstGreaterAvx2(Into, From, Begin, N) : firstGreaterPlain(Into, From, Begin, N);
}
#else
void maxInto(ClockTime *Into, const ClockTime *From, std::size_t N) { maxIntoPlain(Into, From, N); }
std::size_t firstGreater(const ClockTime *Into, const ClockTime *From, std::size_t Begin,
                         std::size_t N) {
  return firstGreaterPlain(Into, From, Begin, N);
}
#endif

} // namespace rt
} // namespace streamlife
