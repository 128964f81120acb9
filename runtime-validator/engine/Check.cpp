//===- Check.cpp - what a failed STREAMLIFE_DCHECK does -------------------===//
#include "engine/Check.h"

#include <cstdio>
#include <cstdlib>

namespace streamlife {
namespace rt {

void dcheckFailed(const char *Condition, const char *File, int Line) {
  std::fprintf(stderr, "streamlife: internal error: engine invariant '%s' broken at %s:%d\n", Condition,
               File, Line);
  std::abort();
}

} // namespace rt
} // namespace streamlife
