//===- CuptiActivity.h - GPU times for the timeline, from CUPTI -*- C++ -*-===//
//
// The timeline places kernels, copies and memsets at the time the GPU ran
// them when CUPTI's activity API can say (timeline/StreamSchedule.h). This
// mechanism enables the activity records of those kinds (the concurrent-kernel
// kind, which does not serialize kernels), hands each record's interval to the
// recorder by the correlation id of the API call that enqueued it, and gives
// the recorder CUPTI's clock, so that host events and GPU work share one axis.
// Only the callback API is used otherwise; without a timeline this costs
// nothing.
//
// Records come in buffers CUPTI fills and returns on a thread of its own; a
// buffer is 1 MiB (some 5000 kernel records). Whatever is still buffered at
// exit is flushed before the timeline is finished.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_CUPTIACTIVITY_H
#define STREAMLIFE_RT_INTERCEPT_CUPTIACTIVITY_H

#include <cstdint>
#include <string>

namespace streamlife {
namespace rt {

class TimelineRecorder;

/// Enables the activity records; false with a reason when CUPTI cannot
/// trace (then the timeline places GPU work by order alone).
bool enableGpuTime(std::string &Why);
/// CUPTI's clock in ns (valid once enableGpuTime succeeded).
std::uint64_t gpuClockNs();
/// Where the records go from now on (null: nowhere).
void sendGpuTimeTo(TimelineRecorder *Recorder);
/// Delivers the records CUPTI still holds (at exit, before the timeline is
/// finished); waits for the buffer callbacks to return.
void flushGpuTime();

} // namespace rt
} // namespace streamlife

#endif
