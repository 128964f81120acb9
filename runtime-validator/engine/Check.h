//===- Check.h - debug-only invariant checks of the engine ------*- C++ -*-===//
//
// STREAMLIFE_DCHECK(Cond) states an invariant of the engine's state (vector
// clocks, the shadow's segments), as ThreadSanitizer's DCHECK does: checked
// where STREAMLIFE_DCHECKS is 1 -- Debug builds and the engine's unit tests,
// which link a checked copy of the engine (streamlifeEngineChecked) -- and
// compiled out elsewhere, so the preloaded runtime pays nothing. A failure
// prints the condition and where it was stated, then aborts: a broken
// invariant means every later verdict is suspect.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_CHECK_H
#define STREAMLIFE_RT_ENGINE_CHECK_H

#ifndef STREAMLIFE_DCHECKS
#define STREAMLIFE_DCHECKS 0
#endif

namespace streamlife {
namespace rt {
[[noreturn]] void dcheckFailed(const char *Condition, const char *File, int Line);
} // namespace rt
} // namespace streamlife

#if STREAMLIFE_DCHECKS
#define STREAMLIFE_DCHECK(Cond)                                                                    \
  ((Cond) ? static_cast<void>(0) : ::streamlife::rt::dcheckFailed(#Cond, __FILE__, __LINE__))
#else
#define STREAMLIFE_DCHECK(Cond) static_cast<void>(sizeof(!(Cond)))
#endif

#endif
