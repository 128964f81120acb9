//===- TorchFeed.h - PyTorch's caching allocator as an annotated one -*- C++ -*-===//
//
// The allocator-feed mechanism (TorchFeed.cpp): once PyTorch's caching
// allocator exists, a small feed compiled against the installed torch attaches
// a trace tracker whose block events reach the engine through the annotation
// interface (Annotations.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_TORCHFEED_H
#define STREAMLIFE_RT_INTERCEPT_TORCHFEED_H

#include "intercept/InterceptContext.h"

namespace streamlife {
namespace rt {

/// Attaches PyTorch's caching-allocator feed once the allocator exists; cheap
/// when already decided. Called on the first device allocation (or address
/// reservation) of the process and after.
void maybeAttachTorchFeed(const InterceptContext &I);

/// True once the feed is attached: PyTorch's blocks (expandable segments'
/// mappings included) are known through it.
bool torchFeedAttached();

} // namespace rt
} // namespace streamlife

#endif
