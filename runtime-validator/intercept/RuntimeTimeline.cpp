//===- RuntimeTimeline.cpp - the run's timeline, fed by the interception ---===//
#include "intercept/RuntimeTimeline.h"

#include "intercept/CuptiActivity.h"
#include "intercept/Runtime.h"
#include "report/CallSiteNames.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace streamlife {
namespace rt {

namespace {

thread_local std::uint32_t DriverCorrelation = 0;
thread_local std::uint32_t RuntimeCorrelation = 0;
/// The first kernel of the library call in progress on this thread.
thread_local std::uint64_t LibraryCall = 0;
thread_local Correlation LibraryKernel;

/// The command line of this process, for the trace's first event.
std::string commandLine() {
  std::ifstream In("/proc/self/cmdline", std::ios::binary);
  std::string Raw((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  while (!Raw.empty() && Raw.back() == '\0')
    Raw.pop_back();
  for (char &C : Raw)
    if (C == '\0')
      C = ' ';
  return Raw;
}

bool startsWith(const std::string &Text, const char *Prefix) {
  return Text.rfind(Prefix, 0) == 0;
}

} // namespace

Correlation currentCorrelation() { return Correlation{DriverCorrelation, RuntimeCorrelation}; }
void setDriverCorrelation(std::uint32_t Id) { DriverCorrelation = Id; }
void setRuntimeCorrelation(std::uint32_t Id) { RuntimeCorrelation = Id; }

void noteLibraryKernel(std::uint64_t Call) {
  if (Call == 0 || Call == LibraryCall)
    return;
  LibraryCall = Call;
  LibraryKernel = currentCorrelation();
}

Correlation workCorrelation(std::uint64_t Call) {
  if (DriverCorrelation || RuntimeCorrelation || Call == 0 || Call != LibraryCall)
    return currentCorrelation();
  return LibraryKernel;
}

std::string shortKernelName(const std::string &Name) {
  std::string S = startsWith(Name, "void ") ? Name.substr(5) : Name;
  // Cut the parameters: the first '(' outside template arguments.
  int Depth = 0;
  std::size_t LastScope = 0;
  for (std::size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (C == '(' && Depth == 0 && I > 0) {
      S.resize(I);
      break;
    } else if (C == ':' && Depth == 0 && I + 1 < S.size() && S[I + 1] == ':') {
      LastScope = I + 2;
      ++I;
    }
  }
  S = S.substr(LastScope);
  std::size_t Angle = S.find('<');
  if (Angle != std::string::npos && S.size() > 48)
    S = S.substr(0, Angle) + "<\xe2\x80\xa6>";
  return S.empty() ? Name : S;
}

const char *workCategory(const std::string &Name) {
  if (startsWith(Name, "cuMemcpy") || startsWith(Name, "cudaMemcpy"))
    return "copy";
  if (startsWith(Name, "cuMemset") || startsWith(Name, "cudaMemset"))
    return "memset";
  if (startsWith(Name, "nccl"))
    return "collective";
  if (startsWith(Name, "cublas") || startsWith(Name, "cudnn"))
    return "library call";
  return "kernel";
}

std::unique_ptr<RuntimeTimeline> RuntimeTimeline::prepare(ValidatorRuntime &R) {
  std::unique_ptr<RuntimeTimeline> T(new RuntimeTimeline(R));
  TimelineSettings &Settings = T->Settings;
  Settings.Path = R.Opts.timeline;
  // One trace per process of a run ('%p'), as for the report.
  for (std::size_t At = Settings.Path.find("%p"); At != std::string::npos;
       At = Settings.Path.find("%p"))
    Settings.Path.replace(At, 2, std::to_string(getpid()));
  Settings.ByteLimit = R.Opts.timeline_limit > 0
                           ? static_cast<std::uint64_t>(R.Opts.timeline_limit) << 20
                           : 0;
  Settings.Command = commandLine();
  Settings.Pid = getpid();
  if (R.Opts.timeline_gpu_time) {
    if (enableGpuTime(T->NoGpuTimeReason)) {
      Settings.GpuTime = true;
      Settings.Clock = gpuClockNs;
    }
  }
  return T;
}

void RuntimeTimeline::start() {
  std::call_once(Started, [this] {
    std::string Error;
    Owned = TimelineRecorder::open(Settings, *this, Error);
    if (!Owned) {
      std::fprintf(stderr, "streamlife: error: timeline: %s; the run goes on without one\n",
                   Error.c_str());
      return;
    }
    if (R.Opts.timeline_gpu_time && !Settings.GpuTime)
      std::fprintf(stderr,
                   "streamlife: note: timeline without GPU times (%s): GPU work is drawn in "
                   "stream order at its enqueue time\n",
                   NoGpuTimeReason.c_str());
    if (Settings.GpuTime)
      sendGpuTimeTo(Owned.get());
    Recorder.store(Owned.get(), std::memory_order_release);
    R.Recording.store(Owned.get(), std::memory_order_release);
  });
}

std::string RuntimeTimeline::streamName(StreamId S) { return R.Streams.name(S); }

OpLabel RuntimeTimeline::opLabel(OpId Op) {
  OpRecord Record = R.Ops.op(Op);
  OpLabel L;
  L.Detail = R.Ops.name(Record.Name);
  // Kernels are named "kernel 'f(int)'" (and "... (pointer found by a generic
  // scan of its parameters)") for reports; a slice shows the kernel itself.
  if (startsWith(L.Detail, "kernel '")) {
    std::size_t Close = L.Detail.rfind('\'');
    L.Detail = L.Detail.substr(8, Close > 8 ? Close - 8 : std::string::npos);
  }
  L.Name = shortKernelName(L.Detail);
  L.Category = workCategory(L.Detail);
  std::vector<std::string> Frames = reportFrames(Record, 1);
  if (!Frames.empty())
    L.Site = Frames.front();
  return L;
}

void RuntimeTimeline::blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site) {
  if (TimelineRecorder *Rec = Recorder.load(std::memory_order_acquire))
    Rec->allocated(T, Bytes, /*Pool=*/true, Stream, Site);
}

void RuntimeTimeline::blockReleaseRequested(ThreadId T, Addr Base, StreamId Stream, OpId Site) {
  if (TimelineRecorder *Rec = Recorder.load(std::memory_order_acquire))
    Rec->releaseRequested(T, Base, Stream, Site);
}

void RuntimeTimeline::blockReleased(ThreadId T, Addr Base, OpId Site) {
  if (TimelineRecorder *Rec = Recorder.load(std::memory_order_acquire))
    Rec->released(T, Base, Site);
}

void RuntimeTimeline::blockAccessed(ThreadId T, StreamId Stream, Range Bytes, OpId Site) {
  if (TimelineRecorder *Rec = Recorder.load(std::memory_order_acquire))
    Rec->work(T, Stream, Site, std::vector<Range>{Bytes}, Correlation{});
}

void RuntimeTimeline::observed(const Finding &F, const std::string &Headline) {
  if (TimelineRecorder *Rec = Recorder.load(std::memory_order_acquire))
    Rec->finding(F, Headline);
}

void RuntimeTimeline::finish() {
  TimelineRecorder *Rec = Recorder.load(std::memory_order_acquire);
  if (!Rec)
    return; // no CUDA call: no timeline
  if (Rec->gpuTime())
    flushGpuTime();
  std::string Error;
  if (!Rec->finish("", Error)) {
    std::fprintf(stderr, "streamlife: error: timeline: %s\n", Error.c_str());
    return;
  }
  std::fprintf(stderr,
               "streamlife: timeline: %s (open it in ui.perfetto.dev, or draw it: streamlife "
               "timeline %s --svg OUT.svg)\n",
               Rec->path().c_str(), Rec->path().c_str());
}

} // namespace rt
} // namespace streamlife
