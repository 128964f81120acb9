//===- AddressTableKeys.h - addresses that exercise an AddressTable -*- C++ -*-===//
//
// The key sets the tests of engine/AddressTable.h's users (LiveBasesTest,
// QueuedLivesTest) play against a std::unordered_map: PyTorch-like block
// addresses, and addresses that crowd the same slots.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TEST_UNIT_ADDRESSTABLEKEYS_H
#define STREAMLIFE_TEST_UNIT_ADDRESSTABLEKEYS_H

#include "engine/Engine.h"

#include <vector>

namespace streamlife {
namespace test {

/// 512-byte aligned blocks in four segments, as PyTorch's caching allocator
/// hands them out.
inline std::vector<rt::Addr> pytorchLikeBlocks() {
  std::vector<rt::Addr> Blocks;
  for (rt::Addr Segment = 0; Segment < 4; ++Segment)
    for (rt::Addr I = 0; I < 500; ++I)
      Blocks.push_back(0x7f0000000000 + (Segment << 32) + 512 * I);
  return Blocks;
}

/// Addresses that differ only in their high bits, and neighbours 16 bytes
/// apart: long probe runs that cross each other and the table's end.
inline std::vector<rt::Addr> crowdedAddresses() {
  std::vector<rt::Addr> Crowded;
  for (rt::Addr I = 1; I <= 200; ++I)
    Crowded.push_back(I << 40);
  for (rt::Addr I = 1; I <= 200; ++I)
    Crowded.push_back(0x1000 + 16 * I);
  return Crowded;
}

} // namespace test
} // namespace streamlife

#endif
