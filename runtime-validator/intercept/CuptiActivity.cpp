//===- CuptiActivity.cpp - GPU times for the timeline, from CUPTI ----------===//
#include "intercept/CuptiActivity.h"

#include "intercept/CudaLibraries.h"
#include "timeline/TimelineRecorder.h"

#include <atomic>
#include <cstdlib>

namespace streamlife {
namespace rt {

namespace {

constexpr std::size_t BufferBytes = 1 << 20;

CuptiApi Api;
std::atomic<TimelineRecorder *> Target{nullptr};

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size, size_t *MaxRecords) {
  *Buffer = static_cast<uint8_t *>(std::aligned_alloc(8, BufferBytes));
  *Size = *Buffer ? BufferBytes : 0;
  *MaxRecords = 0; // as many as fit
}

// Kernel, copy and memset records of every version since CUDA 11 keep start,
// end and correlationId at the same offsets (new members are appended), so the
// newest struct of the headers reads the records of a newer CUPTI too.
template <typename Record> void deliver(TimelineRecorder &R, const CUpti_Activity *A) {
  const auto *Rec = reinterpret_cast<const Record *>(A);
  R.gpuInterval(Rec->correlationId, Rec->start, Rec->end);
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *Buffer, size_t, size_t Valid) {
  TimelineRecorder *R = Target.load(std::memory_order_acquire);
  if (R && Valid) {
    CUpti_Activity *Record = nullptr;
    while (Api.ActivityGetNextRecord(Buffer, Valid, &Record) == CUPTI_SUCCESS) {
      switch (Record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        deliver<CUpti_ActivityKernel10>(*R, Record);
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        deliver<CUpti_ActivityMemcpy6>(*R, Record);
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
        deliver<CUpti_ActivityMemcpyPtoP4>(*R, Record);
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        deliver<CUpti_ActivityMemset4>(*R, Record);
        break;
      default:
        break;
      }
    }
    R->endOfGpuBatch();
  }
  std::free(Buffer);
}

} // namespace

bool enableGpuTime(std::string &Why) {
  if (!loadCupti(Api, Why))
    return false;
  if (!Api.ActivityRegisterCallbacks || !Api.ActivityEnable || !Api.ActivityFlushAll ||
      !Api.ActivityGetNextRecord || !Api.GetTimestamp) {
    Why = "this CUPTI has no activity API";
    return false;
  }
  if (Api.ActivityRegisterCallbacks(bufferRequested, bufferCompleted) != CUPTI_SUCCESS) {
    Why = "cuptiActivityRegisterCallbacks failed";
    return false;
  }
  for (CUpti_ActivityKind Kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET})
    if (Api.ActivityEnable(Kind) != CUPTI_SUCCESS && Kind != CUPTI_ACTIVITY_KIND_MEMCPY2) {
      Why = "cuptiActivityEnable failed";
      return false;
    }
  return true;
}

std::uint64_t gpuClockNs() {
  std::uint64_t Ns = 0;
  if (Api.GetTimestamp)
    Api.GetTimestamp(&Ns);
  return Ns;
}

void sendGpuTimeTo(TimelineRecorder *Recorder) { Target.store(Recorder, std::memory_order_release); }

void flushGpuTime() {
  if (Api.ActivityFlushAll)
    Api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

} // namespace rt
} // namespace streamlife
