//===- CopyRanges.h - the bytes a 2D/3D copy or set touches -----*- C++ -*-===//
//
// A pitched copy touches rows of Width bytes, Pitch apart, starting at (X, Y, Z).
// The engine records one span per side, from its first byte to its last: the
// padding between rows belongs to the same allocation, so the span never
// reaches into a neighbour that the rows do not touch. Pure arithmetic, unit-
// tested on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_COPYRANGES_H
#define STREAMLIFE_RT_INTERCEPT_COPYRANGES_H

#include "engine/Engine.h"

#include <cstddef>

namespace streamlife {
namespace rt {

/// Span of Height rows of Width bytes, Pitch apart (Pitch 0: packed rows),
/// starting X bytes into row Y of Base. Size 0 for an empty copy.
inline Range pitchedSpan(Addr Base, std::size_t X, std::size_t Y, std::size_t Pitch,
                         std::size_t Width, std::size_t Height) {
  if (!Base || !Width || !Height)
    return Range{Base, 0};
  std::size_t Stride = Pitch ? Pitch : Width;
  return Range{Base + Y * Stride + X, (Height - 1) * Stride + Width};
}

/// The same for Depth slices of SliceHeight rows (0: Height rows per slice).
inline Range pitchedSpan3D(Addr Base, std::size_t X, std::size_t Y, std::size_t Z, std::size_t Pitch,
                           std::size_t SliceHeight, std::size_t Width, std::size_t Height,
                           std::size_t Depth) {
  if (!Base || !Width || !Height || !Depth)
    return Range{Base, 0};
  std::size_t Stride = Pitch ? Pitch : Width;
  std::size_t Rows = SliceHeight ? SliceHeight : Height;
  return Range{Base + (Z * Rows + Y) * Stride + X, ((Depth - 1) * Rows + (Height - 1)) * Stride + Width};
}

} // namespace rt
} // namespace streamlife

#endif
