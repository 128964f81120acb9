//===- op_intern_cost.cpp - the cost of interning one captured call site ---===//
//
// Every captured CUDA call from Python interns its stack (OpTable::intern:
// hash, lookup, compare). This interns one 24-frame Python stack, the depth
// of a training step's calls, N times and prints ns per intern; run it under
// `valgrind --tool=callgrind` for instructions per intern, which do not move
// with the machine's load.
//
//   op_intern_cost [N]
//
//===----------------------------------------------------------------------===//
#include "callsites/CallSites.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace streamlife::rt;

int main(int Argc, char **Argv) {
  const long N = Argc > 1 ? std::atol(Argv[1]) : 1000000;
  if (N <= 0) {
    std::fprintf(stderr, "error: N must be a positive number\nusage: op_intern_cost [N]\n");
    return 2;
  }
  OpTable Ops;
  const NameId Name = Ops.internName("_Z7consumePKfPfi");
  PyFrameRef Python[24];
  for (unsigned I = 0; I < 24; ++I)
    Python[I] = PyFrameRef{100 + I, 10 * I + 3};
  const OpId First = Ops.intern(Name, nullptr, 0, Python, 24);
  auto Start = std::chrono::steady_clock::now();
  for (long I = 0; I < N; ++I)
    if (Ops.intern(Name, nullptr, 0, Python, 24) != First)
      return 1;
  auto End = std::chrono::steady_clock::now();
  std::printf("op_intern_cost: %.1f ns per intern of a 24-frame Python stack\n",
              std::chrono::duration<double, std::nano>(End - Start).count() / double(N));
  return 0;
}
