//===--- UseGroups.h - streamlife -------------------------------*- C++ -*-===//
//
// Keeping an object's pending uses canonical: one group per (stream,
// ordering), sorted, so that equal states compare equal and groups stay few.
// The number of groups is what the cost of a join grows with: keyed by the
// exact facts (wait sites included), N if/else branches each waiting at their
// own site made N groups per state, quadratic memory over the function
// (reliability sweep #117); N branches each recording their own event made
// 2^N. Hence the ordering key, the subsumption and the bound below.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_USEGROUPS_H
#define STREAMLIFE_CHECKS_CORE_USEGROUPS_H

#include "LifetimeLattice.h"

namespace streamlife {
namespace core {

/// At most this many groups per stream and object. Equal orderings merge
/// and subsumed groups go (below), which keeps real code at one or two; the
/// bound only stops a combinatorial shape (N branches each recording their
/// own event make 2^N orderings) and is said in a note when it fires.
constexpr size_t MaxUseGroupsPerStream = 32;

/// Sorts groups, merges those of the same stream and ordering, drops a
/// group whose sites are all in a group of the same stream with weaker (or
/// equal) facts (its hazards are that group's hazards), and past
/// MaxUseGroupsPerStream meets a stream's groups into one. Returns false
/// when that bound fired.
bool normalizeGroups(llvm::SmallVectorImpl<UseGroup> &Groups);
/// The same groups in the same order (what state equality compares).
bool sameGroups(const llvm::SmallVectorImpl<UseGroup> &A,
                const llvm::SmallVectorImpl<UseGroup> &B);
/// Whether normalizeGroups would change \p Groups, tried on a copy, so that
/// a shared object is only copied when it does (see SharedMap.h).
bool normalizingChanges(const llvm::SmallVectorImpl<UseGroup> &Groups);
/// Adds \p Sites as uses on \p Stream with \p Facts; false as above.
bool addUse(llvm::SmallVectorImpl<UseGroup> &Groups, const StreamKey &Stream,
            const WorkFacts &Facts, const SiteList &Sites);

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_USEGROUPS_H
