//===--- UseGroups.h - streamlife -------------------------------*- C++ -*-===//
//
// Keeping an object's pending uses canonical: one group per (stream, facts),
// sorted, so that equal states compare equal and groups stay few.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_USEGROUPS_H
#define STREAMLIFE_CHECKS_CORE_USEGROUPS_H

#include "LifetimeLattice.h"

namespace streamlife {
namespace core {

/// Sorts groups and merges those whose stream and facts became equal.
void normalizeGroups(llvm::SmallVectorImpl<UseGroup> &Groups);
/// Adds \p Sites as uses on \p Stream with \p Facts.
void addUse(llvm::SmallVectorImpl<UseGroup> &Groups, const StreamKey &Stream,
            const WorkFacts &Facts, const SiteList &Sites);

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_USEGROUPS_H
