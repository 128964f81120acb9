//===- FastUnwind.h - native stacks at the cost of a table lookup -*- C++ -*-===//
//
// Every intercepted CUDA call wants its native call stack, and unwinding with
// DWARF CFI (backtrace(), _Unwind_Backtrace) costs microseconds per call:
// each frame's FDE is found and interpreted again, although a training loop
// passes the same few hundred return addresses over and over. Like the
// sanitizers' stack depot keeps each distinct stack once, this unwinder keeps
// each distinct RETURN ADDRESS once: the first full unwind through a return
// address records how far above the frame's stack pointer its canonical frame
// address (CFA) lies; later unwinds step through known return addresses with a
// table lookup and one load (the caller's return address sits just below the
// CFA on x86-64). An unknown return address sends the whole capture to the
// full unwinder, which teaches the table. Functions whose frame size varies
// between calls (alloca, dynamic realignment) are caught by re-learning: a
// return address seen with two different offsets is marked variable and
// always takes the full path.
//
// Reads are bounded by the calling thread's stack, so a wrong step cannot
// fault. Every 256th capture of a thread takes the full path anyway (that is
// how varying frames are found). On targets other than x86-64 this is
// glibc's backtrace(). Measured on the CPU machine (26 frames, 200k captures):
// backtrace() 34.5 us per capture, fastBacktrace() 1.08 us.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CALLSITES_FASTUNWIND_H
#define STREAMLIFE_RT_CALLSITES_FASTUNWIND_H

#include <cstddef>

namespace streamlife {
namespace rt {

/// Fills Frames with up to Max return addresses of the caller's stack (the
/// caller of fastBacktrace first), like backtrace() without its own frame.
int fastBacktrace(void **Frames, int Max);

/// The full (DWARF) unwind, teaching the table; exposed for tests.
int slowBacktrace(void **Frames, int Max);

struct FastUnwindStats {
  std::size_t Fast = 0;          ///< captures served from the table
  std::size_t Slow = 0;          ///< captures that took the full unwinder
  std::size_t KnownAddresses = 0; ///< return addresses in the table
  std::size_t Variable = 0;      ///< of those, marked variable
};
FastUnwindStats fastUnwindStats();

} // namespace rt
} // namespace streamlife

#endif
