//===- SvgTimeline.h - a timeline as a static SVG picture -------*- C++ -*-===//
//
// The seed's picture, for CI artifacts, bug reports and docs, readable in any
// browser or image viewer: CUDA streams as lanes on top, memory blocks as
// lanes below (each block's lifetimes, and under it a row per stream with the
// work that touched it), every piece of work coloured by the block it reads
// or writes, arrows from event records to the waits on them, and each finding
// as a red marker on its block with an arrow from the racing access to the
// reuse, numbered and spelled out under the picture. A step chart of live and
// held-back pool bytes shows the peak memory each pipeline needs.
//
// The time axis is linear, except that stretches where no stream does
// anything (a program's start-up, host work between steps) are cut to a
// narrow break, so the work stays readable; work narrower than a pixel is
// merged with its neighbours. Elements carry classes and data- attributes
// (lane, block, finding kind) so that tests and scripts can find them.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_TIMELINE_SVGTIMELINE_H
#define STREAMLIFE_TOOL_TIMELINE_SVGTIMELINE_H

#include "TraceModel.h"

#include <string>
#include <vector>

namespace streamlife::timeline {

struct SvgOptions {
  /// At most this many block lanes: blocks with findings first, then in the
  /// order work first touched them.
  std::size_t MaxBlocks = 16;
  int Width = 1280;
  /// The window asked for (us); infinite ends mean "where the trace starts/ends".
  ReadWindow Window;
};

/// The picture; Notes gets what the picture leaves out (blocks not drawn).
std::string renderSvg(const Trace &T, const SvgOptions &Options, std::vector<std::string> &Notes);

/// "250 us", "1.5 ms", "2 s".
std::string formatMicros(double Us);

} // namespace streamlife::timeline

#endif
