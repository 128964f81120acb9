//===- TimelineRecorder.cpp - a validated run as a trace of lanes ----------===//
#include "timeline/TimelineRecorder.h"

#include "report/Json.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <time.h>

namespace streamlife {
namespace rt {

TimelineNames::~TimelineNames() = default;

namespace {

// Trace processes: one group of lanes each.
constexpr int StreamsPid = 1;
constexpr int BlocksPid = 2;
constexpr int HostPid = 3;

// Flow categories (FlowEnd::Category).
constexpr std::uint8_t EventFlow = 0;
constexpr std::uint8_t RaceFlow = 1;
const char *const FlowNames[] = {"event", "race"};

/// Markers beyond this many are counted, not drawn (a bug in a hot loop).
constexpr std::uint64_t MaxFindingMarkers = 10000;

std::uint64_t monotonicNs() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return std::uint64_t(Ts.tv_sec) * 1000000000ull + std::uint64_t(Ts.tv_nsec);
}

void appendNumber(std::string &Out, std::uint64_t N) {
  char Digits[24];
  auto [End, Ec] = std::to_chars(Digits, Digits + sizeof(Digits), N);
  (void)Ec;
  Out.append(Digits, End);
}

void appendHex(std::string &Out, std::uint64_t N) {
  char Digits[24];
  auto [End, Ec] = std::to_chars(Digits, Digits + sizeof(Digits), N, 16);
  (void)Ec;
  Out += "0x";
  Out.append(Digits, End);
}

void appendQuoted(std::string &Out, std::string_view Text) {
  Out += '"';
  appendJsonEscaped(Out, Text);
  Out += '"';
}

/// {"ph":P,"pid":..,"tid":..,"ts":..
void beginEvent(std::string &Out, const char *Phase, int Pid, std::uint64_t Tid, std::uint64_t Ns) {
  Out.clear();
  Out += "{\"ph\":\"";
  Out += Phase;
  Out += "\",\"pid\":";
  appendNumber(Out, static_cast<std::uint64_t>(Pid));
  Out += ",\"tid\":";
  appendNumber(Out, Tid);
  Out += ",\"ts\":";
  appendMicros(Out, Ns);
}

std::string bytesText(std::uint64_t Bytes) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int Unit = 0;
  std::uint64_t Whole = Bytes;
  while (Whole >= 1024 && Whole % 1024 == 0 && Unit < 4) {
    Whole /= 1024;
    ++Unit;
  }
  if (Whole >= 1024 * 10 && Unit < 4) { // not a round number: one decimal
    double Value = static_cast<double>(Bytes);
    int U = 0;
    while (Value >= 1024 && U < 4) {
      Value /= 1024;
      ++U;
    }
    char Text[32];
    std::snprintf(Text, sizeof(Text), "%.1f %s", Value, Units[U]);
    return Text;
  }
  return std::to_string(Whole) + " " + Units[Unit];
}

} // namespace

std::unique_ptr<TimelineRecorder> TimelineRecorder::open(const TimelineSettings &Settings,
                                                         TimelineNames &Names,
                                                         std::string &Error) {
  std::unique_ptr<TimelineRecorder> R(new TimelineRecorder(Settings, Names));
  if (!R->Writer.open(Settings.Path, Settings.ByteLimit, Error))
    return nullptr;
  std::lock_guard<std::mutex> Guard(R->Lock);
  R->writeHeader();
  return R;
}

TimelineRecorder::TimelineRecorder(const TimelineSettings &S, TimelineNames &Names)
    : Names(Names), Clock(S.Clock ? S.Clock : monotonicNs), Settings(S),
      Schedule(*this, S.GpuTime) {
  Origin = Clock();
  // Labels 0 and 1: the markers of event records and waits.
  Labels.push_back({"event record", "\"name\":\"event record\",\"cat\":\"event\",\"args\":{"});
  Labels.push_back({"event wait", "\"name\":\"event wait\",\"cat\":\"event\",\"args\":{"});
}

TimelineRecorder::~TimelineRecorder() = default;

std::uint64_t TimelineRecorder::now() const {
  std::uint64_t T = Clock();
  return T > Origin ? T - Origin : 0;
}

// --- names ---------------------------------------------------------------------

std::uint32_t TimelineRecorder::label(OpId Op, LabelUse Use) {
  std::uint64_t Key = std::uint64_t(Op) << 2 | static_cast<std::uint8_t>(Use);
  {
    std::lock_guard<std::mutex> Guard(NameLock);
    if (auto It = LabelIds.find(Key); It != LabelIds.end())
      return It->second;
  }
  OpLabel L = Op != NoOp ? Names.opLabel(Op) : OpLabel{};
  const char *Category = Use == LabelUse::Allocation ? "allocation"
                         : Use == LabelUse::Release  ? "release"
                                                     : nullptr;
  if (!Category)
    Category = L.Category.empty() ? "kernel" : L.Category.c_str();
  if (L.Name.empty())
    L.Name = L.Detail.empty() ? Category : L.Detail;
  std::string Fragment = "\"name\":";
  appendQuoted(Fragment, L.Name);
  Fragment += ",\"cat\":";
  appendQuoted(Fragment, Category);
  Fragment += ",\"args\":{";
  bool Any = false;
  if (!L.Detail.empty() && L.Detail != L.Name) {
    Fragment += "\"call\":";
    appendQuoted(Fragment, L.Detail);
    Any = true;
  }
  if (!L.Site.empty()) {
    Fragment += Any ? ",\"site\":" : "\"site\":";
    appendQuoted(Fragment, L.Site);
  }
  std::lock_guard<std::mutex> Guard(NameLock);
  if (auto It = LabelIds.find(Key); It != LabelIds.end())
    return It->second;
  std::uint32_t Id = static_cast<std::uint32_t>(Labels.size());
  Labels.push_back({L.Name, std::move(Fragment)});
  LabelIds.emplace(Key, Id);
  return Id;
}

void TimelineRecorder::prepareStream(StreamId S) {
  if (S == NoStream)
    return;
  {
    std::lock_guard<std::mutex> Guard(NameLock);
    if (StreamNames.count(S))
      return;
  }
  std::string Name = Names.streamName(S);
  std::lock_guard<std::mutex> Guard(NameLock);
  StreamNames.emplace(S, std::move(Name));
}

// --- writing -------------------------------------------------------------------------

void TimelineRecorder::emit(std::string &Event) {
  Writer.append(Event);
}

void TimelineRecorder::writeHeader() {
  const bool Gpu = Schedule.gpuTime();
  struct Process {
    int Pid;
    const char *Name;
    const char *Labels;
  } Processes[] = {
      {StreamsPid, "CUDA streams",
       Gpu ? "kernels, copies and memsets at their GPU time (CUPTI activity records)"
           : "GPU work at its enqueue time, in stream order (no GPU times: order only)"},
      {BlocksPid, "memory blocks", "lifetimes, and per stream the work that touched each block"},
      {HostPid, "host threads", "host synchronizations"},
  };
  for (const Process &P : Processes) {
    beginEvent(Scratch, "M", P.Pid, 0, 0);
    Scratch += ",\"name\":\"process_name\",\"args\":{\"name\":";
    appendQuoted(Scratch, P.Name);
    Scratch += "}}";
    emit(Scratch);
    beginEvent(Scratch, "M", P.Pid, 0, 0);
    Scratch += ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":";
    appendNumber(Scratch, static_cast<std::uint64_t>(P.Pid));
    Scratch += "}}";
    emit(Scratch);
    beginEvent(Scratch, "M", P.Pid, 0, 0);
    Scratch += ",\"name\":\"process_labels\",\"args\":{\"labels\":";
    appendQuoted(Scratch, P.Labels);
    Scratch += "}}";
    emit(Scratch);
  }
  // What a reader (streamlife timeline) needs to know about the whole trace.
  beginEvent(Scratch, "M", 0, 0, 0);
  Scratch += ",\"name\":\"streamlife_trace\",\"args\":{\"version\":1,\"clock\":";
  Scratch += Gpu ? "\"gpu\"" : "\"order\"";
  Scratch += ",\"order_only_ns\":";
  appendNumber(Scratch, StreamSchedule::OrderOnlyNs);
  Scratch += ",\"command\":";
  appendQuoted(Scratch, Settings.Command);
  Scratch += ",\"pid\":";
  appendNumber(Scratch, static_cast<std::uint64_t>(Settings.Pid));
  Scratch += "}}";
  emit(Scratch);
  beginEvent(Scratch, "i", 0, 0, 0);
  Scratch += ",\"s\":\"g\",\"cat\":\"streamlife\",\"name\":";
  appendQuoted(Scratch, Gpu ? "streamlife timeline: GPU work at its GPU time from CUPTI activity "
                              "records, host events at their host time (one clock)"
                            : "streamlife timeline: no GPU times; GPU work drawn in stream order "
                              "at its enqueue time, 1 us each");
  Scratch += "}";
  emit(Scratch);
}

void TimelineRecorder::writeBlockLane(const Block &B) {
  std::string Name = "block " + blockLetters(B.Letter) + " ";
  char Base[32];
  std::snprintf(Base, sizeof(Base), "0x%llx", static_cast<unsigned long long>(B.Base));
  Name += Base;
  Name += " (" + bytesText(B.Size) + (B.Pool ? ", pool block)" : ", device allocation)");
  std::string Args = ",\"block\":\"" + blockLetters(B.Letter) + "\",\"base\":\"" + Base +
                     "\",\"bytes\":" + std::to_string(B.Size) +
                     (B.Pool ? ",\"pool\":true" : ",\"pool\":false");
  laneNames(BlocksPid, B.Lane, Name, Args);
}

void TimelineRecorder::writeSubLane(const Block &B, const BlockUse &U) {
  std::string Stream;
  {
    std::lock_guard<std::mutex> Guard(NameLock);
    auto It = StreamNames.find(U.Stream);
    Stream = It != StreamNames.end() ? It->second : "stream #" + std::to_string(U.Stream);
  }
  std::string Args = ",\"block\":\"" + blockLetters(B.Letter) + "\",\"stream\":";
  appendQuoted(Args, Stream);
  laneNames(BlocksPid, U.Tid, "block " + blockLetters(B.Letter) + " used by " + Stream, Args);
}

void TimelineRecorder::laneNames(int Pid, std::uint64_t Tid, const std::string &Name,
                                 const std::string &Args) {
  beginEvent(Scratch, "M", Pid, Tid, 0);
  Scratch += ",\"name\":\"thread_name\",\"args\":{\"name\":";
  appendQuoted(Scratch, Name);
  Scratch += Args;
  Scratch += "}}";
  emit(Scratch);
  beginEvent(Scratch, "M", Pid, Tid, 0);
  Scratch += ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":";
  appendNumber(Scratch, Tid);
  Scratch += "}}";
  emit(Scratch);
}

void TimelineRecorder::flowEnd(const FlowEnd &End, std::uint64_t Ns, const char *Name) {
  const int Pid = End.Category == RaceFlow ? BlocksPid : StreamsPid;
  beginEvent(Scratch, End.Start ? "s" : "f", Pid, End.Tid, Ns);
  if (!End.Start)
    Scratch += ",\"bp\":\"e\"";
  Scratch += ",\"id\":";
  appendNumber(Scratch, End.Id);
  Scratch += ",\"cat\":\"";
  Scratch += FlowNames[End.Category];
  Scratch += "\",\"name\":";
  appendQuoted(Scratch, Name);
  Scratch += "}";
  Writer.appendFlowEnd(End.Id, Scratch);
}

/// Where a flow end binds inside a slice [From, To): just inside it, so that
/// the enclosing slice is this one and not a neighbour that touches it. An
/// event's arrow leaves its record and arrives where the wait ends; a race's
/// joins the starts of the two accesses.
static std::uint64_t flowTime(const FlowEnd &F, std::uint64_t From, std::uint64_t To) {
  if (To - From < 2)
    return From;
  return F.Start || F.Category == RaceFlow ? From + 1 : To - 1;
}

void TimelineRecorder::bindFlow(StreamId S, std::uint64_t Seq, bool Placed, std::uint64_t Start,
                                std::uint64_t End, const FlowEnd &F) {
  if (!Placed && Schedule.attach(S, Seq, F))
    return;
  flowEnd(F, flowTime(F, Start, End), FlowNames[F.Category]);
}

// --- streams ---------------------------------------------------------------------------

void TimelineRecorder::placed(Slot &S, const Placement &P) {
  const Label &L = Labels[S.Label];
  auto Slice = [&](int Pid, std::uint32_t Tid, const std::string &Blocks) {
    beginEvent(Scratch, "X", Pid, Tid, P.Start);
    Scratch += ",\"dur\":";
    appendMicros(Scratch, P.End - P.Start);
    Scratch += ',';
    Scratch += L.Fragment;
    bool Open = L.Fragment.back() == '{';
    if (!Blocks.empty()) {
      Scratch += Open ? "\"blocks\":\"" : ",\"blocks\":\"";
      Scratch += Blocks;
      Scratch += '"';
      Open = false;
    }
    if (S.Event) {
      Scratch += Open ? "\"event\":\"" : ",\"event\":\"";
      appendHex(Scratch, S.Event);
      Scratch += '"';
      Open = false;
    }
    Scratch += Open ? "\"clock\":" : ",\"clock\":";
    Scratch += P.GpuTime ? "\"gpu\"" : (S.Stale ? "\"order (no activity record)\"" : "\"order\"");
    Scratch += "}}";
    emit(Scratch);
  };
  std::string Letters;
  for (std::uint32_t Id : S.Blocks)
    if (Block *B = Blocks.byId(Id)) {
      if (!Letters.empty())
        Letters += ',';
      Letters += blockLetters(B->Letter);
    }
  Slice(StreamsPid, streamTid(S.Stream), Letters);
  for (std::uint32_t Id : S.Blocks) {
    Block *B = Blocks.byId(Id);
    if (!B)
      continue;
    for (BlockUse &U : B->Uses)
      if (U.Stream == S.Stream) {
        Slice(BlocksPid, U.Tid, blockLetters(B->Letter));
        if (U.Seq == S.Seq) {
          U.Placed = true;
          U.Start = P.Start;
          U.End = P.End;
        }
      }
  }
  for (const FlowEnd &F : S.Flows)
    flowEnd(F, flowTime(F, P.Start, P.End), FlowNames[F.Category]);
  if (S.Kind == SlotKind::EventRecord)
    if (auto It = Events.find(S.Event); It != Events.end() && It->second.Seq == S.Seq) {
      It->second.Placed = true;
      It->second.End = P.End;
    }
}

void TimelineRecorder::touch(Block &B, std::vector<std::uint32_t> &Ids) {
  if (std::find(Ids.begin(), Ids.end(), B.Id) != Ids.end())
    return;
  Ids.push_back(B.Id);
}

void TimelineRecorder::ensureStreamLane(StreamId S) {
  if (StreamLaneWritten[S])
    return;
  StreamLaneWritten[S] = true;
  std::string Name;
  {
    std::lock_guard<std::mutex> Guard(NameLock);
    auto It = StreamNames.find(S);
    Name = It != StreamNames.end() ? It->second : "stream #" + std::to_string(S);
  }
  laneNames(StreamsPid, streamTid(S), Name, ",\"stream\":" + std::to_string(S));
}

void TimelineRecorder::addSlot(Slot S) {
  ensureStreamLane(S.Stream);
  std::uint64_t Ns = S.HostNs;
  Schedule.add(std::move(S));
  Writer.flushIfDue(Ns);
}

void TimelineRecorder::addWork(StreamId S, std::uint32_t LabelId,
                               std::vector<std::uint32_t> &&BlockIds, Correlation C) {
  if (Finished || S == NoStream)
    return;
  Slot Work;
  Work.Stream = S;
  Work.Kind = SlotKind::Work;
  Work.HostNs = now();
  Work.Correlation[0] = C.Driver ? C.Driver : C.Runtime;
  Work.Correlation[1] = C.Driver ? C.Runtime : 0;
  Work.Label = LabelId;
  std::uint64_t Seq = Schedule.nextSeq();
  for (std::uint32_t Id : BlockIds) {
    Block *B = Blocks.byId(Id);
    bool NewLane = false;
    bool NewBlock = Blocks.ensureLane(*B);
    if (NewBlock)
      writeBlockLane(*B);
    BlockUse &U = Blocks.use(*B, S, NewLane);
    if (NewLane)
      writeSubLane(*B, U);
    U.Seq = Seq;
    U.Placed = false;
    for (auto It = RaceTargets.begin(); It != RaceTargets.end();)
      if (It->Block == Id && It->Stream == S && !It->InLifetime) {
        Work.Flows.push_back(FlowEnd{It->Flow, false, U.Tid, RaceFlow});
        It = RaceTargets.erase(It);
      } else {
        ++It;
      }
  }
  Work.Blocks = std::move(BlockIds);
  addSlot(std::move(Work));
}

void TimelineRecorder::work(ThreadId, StreamId S, OpId Op, const PointerWord *Words,
                            std::size_t Count, Correlation C) {
  prepareStream(S);
  std::uint32_t LabelId = label(Op, LabelUse::Work);
  std::lock_guard<std::mutex> Guard(Lock);
  std::vector<std::uint32_t> Ids;
  for (std::size_t I = 0; I < Count; ++I)
    if (Block *B = Blocks.lookup(Words[I].Word, Words[I].FromGenericScan))
      touch(*B, Ids);
  addWork(S, LabelId, std::move(Ids), C);
}

void TimelineRecorder::work(ThreadId, StreamId S, OpId Op, const std::vector<Range> &Touched,
                            Correlation C) {
  prepareStream(S);
  std::uint32_t LabelId = label(Op, LabelUse::Work);
  std::lock_guard<std::mutex> Guard(Lock);
  std::vector<std::uint32_t> Ids;
  for (const Range &R : Touched) {
    if (Block *B = Blocks.lookup(R.Begin, false))
      touch(*B, Ids);
    // A range that runs past its first block touches the ones after it too
    // (a copy over several tensors of one segment); a few are enough to draw.
    if (R.Size != WholeAllocation && R.Size > 1)
      for (int Extra = 0; Extra < 8; ++Extra) {
        Block *Last = Ids.empty() ? nullptr : Blocks.byId(Ids.back());
        if (!Last || Last->Base + Last->Size >= R.end())
          break;
        Block *Next = Blocks.lookup(Last->Base + Last->Size, false);
        if (!Next || Next == Last)
          break;
        touch(*Next, Ids);
      }
  }
  addWork(S, LabelId, std::move(Ids), C);
}

Slot TimelineRecorder::markerSlot(StreamId S, SlotKind Kind, Handle Event) {
  Slot Marker;
  Marker.Stream = S;
  Marker.Kind = Kind;
  Marker.HostNs = now();
  Marker.Label = Kind == SlotKind::EventRecord ? 0 : 1; // the two labels made first
  Marker.Event = Event;
  return Marker;
}

void TimelineRecorder::eventRecorded(ThreadId, Handle Event, StreamId S) {
  prepareStream(S);
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished || S == NoStream)
    return;
  Slot Record = markerSlot(S, SlotKind::EventRecord, Event);
  Events[Event] = EventState{S, Schedule.nextSeq(), false, 0, streamTid(S)};
  addSlot(std::move(Record));
}

void TimelineRecorder::streamWaitsEvent(ThreadId, StreamId S, Handle Event) {
  prepareStream(S);
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished || S == NoStream)
    return;
  Slot Wait = markerSlot(S, SlotKind::EventWait, Event);
  if (auto It = Events.find(Event); It != Events.end()) {
    const EventState &E = It->second;
    std::uint64_t Id = NextFlow++;
    FlowEnd From{Id, true, E.Tid, EventFlow};
    if (E.Placed) {
      Wait.WaitUntil = E.End;
      flowEnd(From, flowTime(From, E.End - std::min<std::uint64_t>(E.End, StreamSchedule::MarkerNs), E.End),
              FlowNames[EventFlow]);
    } else {
      Wait.WaitsFor = E.Seq;
      Schedule.attach(E.Stream, E.Seq, From);
    }
    Wait.Flows.push_back(FlowEnd{Id, false, streamTid(S), EventFlow});
  }
  addSlot(std::move(Wait));
}

void TimelineRecorder::eventDestroyed(Handle Event) {
  std::lock_guard<std::mutex> Guard(Lock);
  Events.erase(Event);
}

void TimelineRecorder::hostSynced(ThreadId T, HostSyncKind Kind, StreamId S, Handle Event) {
  prepareStream(S);
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return;
  std::uint64_t Tid = std::uint64_t(T) + 1;
  if (!HostLaneWritten[T]) {
    HostLaneWritten[T] = true;
    laneNames(HostPid, Tid, "host thread " + std::to_string(T), "");
  }
  std::string What;
  switch (Kind) {
  case HostSyncKind::Stream: {
    std::lock_guard<std::mutex> Names_(NameLock);
    auto It = StreamNames.find(S);
    What = "synchronize " + (It != StreamNames.end() ? It->second : std::string("a stream"));
    break;
  }
  case HostSyncKind::Event: {
    char Text[64];
    std::snprintf(Text, sizeof(Text), "synchronize event 0x%llx", static_cast<unsigned long long>(Event));
    What = Text;
    break;
  }
  case HostSyncKind::Device:
    What = "synchronize device";
    break;
  }
  beginEvent(Scratch, "i", HostPid, Tid, now());
  Scratch += ",\"s\":\"t\",\"cat\":\"sync\",\"name\":";
  appendQuoted(Scratch, What);
  Scratch += "}";
  emit(Scratch);
}

// --- memory --------------------------------------------------------------------------------

void TimelineRecorder::countersChanged(std::uint64_t Ns) {
  beginEvent(Scratch, "C", BlocksPid, 0, Ns);
  Scratch += ",\"name\":\"pool blocks\",\"args\":{\"live bytes\":";
  appendNumber(Scratch, LiveBytes);
  Scratch += ",\"held back bytes\":";
  appendNumber(Scratch, HeldBackBytes);
  Scratch += ",\"live blocks\":";
  appendNumber(Scratch, LiveBlocks);
  Scratch += "}}";
  emit(Scratch);
}

void TimelineRecorder::closeLifetime(const Block &B, std::uint64_t EndNs, const char *Ending) {
  if (!B.Lane)
    return;
  std::uint64_t Requested = B.State == Block::Phase::Live ? EndNs : B.RequestedNs;
  Requested = std::clamp(Requested, B.AllocatedNs, EndNs);
  auto Slice = [&](std::uint64_t From, std::uint64_t To, const std::string &Name, bool Held) {
    beginEvent(Scratch, "X", BlocksPid, B.Lane, From);
    Scratch += ",\"dur\":";
    appendMicros(Scratch, To - From);
    Scratch += ",\"cat\":\"";
    Scratch += Held ? "held back" : "lifetime";
    Scratch += "\",\"name\":";
    appendQuoted(Scratch, Name);
    Scratch += ",\"args\":{\"lifetime\":";
    appendNumber(Scratch, B.Lifetime);
    Scratch += ",\"bytes\":";
    appendNumber(Scratch, B.Size);
    if (B.AllocStream != NoStream) {
      Scratch += ",\"allocation stream\":";
      std::lock_guard<std::mutex> Guard(NameLock);
      auto It = StreamNames.find(B.AllocStream);
      appendQuoted(Scratch, It != StreamNames.end() ? It->second
                                                    : "stream #" + std::to_string(B.AllocStream));
    }
    {
      std::lock_guard<std::mutex> Guard(NameLock);
      const std::string &Fragment = Labels[B.AllocLabel].Fragment;
      // The allocation site's call and site, from its label's args.
      std::size_t Args = Fragment.find("\"args\":{");
      if (Args != std::string::npos && Args + 8 < Fragment.size()) {
        Scratch += ",\"allocated by\":{";
        Scratch += Fragment.substr(Args + 8);
        Scratch += '}';
      }
      if (B.ReleaseLabel) {
        const std::string &Release = Labels[B.ReleaseLabel].Fragment;
        std::size_t At = Release.find("\"args\":{");
        if (At != std::string::npos && At + 8 < Release.size()) {
          Scratch += ",\"released by\":{";
          Scratch += Release.substr(At + 8);
          Scratch += '}';
        }
      }
    }
    if (*Ending) {
      Scratch += ",\"end\":";
      appendQuoted(Scratch, Ending);
    }
    Scratch += "}}";
    emit(Scratch);
  };
  std::string Name = B.Lifetime > 1 ? "reused (lifetime " + std::to_string(B.Lifetime) + ")"
                                    : std::string("allocated");
  Slice(B.AllocatedNs, std::max(Requested, B.AllocatedNs + 1), Name, false);
  if (EndNs > Requested + 1)
    Slice(Requested + 1, EndNs, "release requested, held back", true);
  for (auto It = RaceTargets.begin(); It != RaceTargets.end();)
    if (It->Block == B.Id && It->InLifetime) {
      flowEnd(FlowEnd{It->Flow, false, It->Lane, RaceFlow}, It->InsideNs, FlowNames[RaceFlow]);
      It = RaceTargets.erase(It);
    } else {
      ++It;
    }
}

void TimelineRecorder::allocated(ThreadId, Range R, bool Pool, StreamId S, OpId Site) {
  prepareStream(S);
  std::uint32_t LabelId = label(Site, LabelUse::Allocation);
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return;
  std::uint64_t Ns = now();
  std::vector<Block> Closed;
  Block &B = Blocks.allocated(R, Pool, Ns, Closed);
  for (const Block &Old : Closed) {
    if (Old.State == Block::Phase::Live || Old.State == Block::Phase::ReleaseRequested) {
      closeLifetime(Old, Ns, "no release seen before the address was allocated again");
      if (Old.Pool) {
        --LiveBlocks;
        (Old.State == Block::Phase::Live ? LiveBytes : HeldBackBytes) -= Old.Size;
      }
    }
  }
  B.AllocStream = S;
  B.AllocLabel = LabelId;
  if (Pool) {
    ++LiveBlocks;
    LiveBytes += B.Size;
    // The peaks are sampled when an allocation is made, because that is when
    // what the allocator holds costs memory: a release completed within the
    // same free call is never counted as held back.
    PeakLiveBytes = std::max(PeakLiveBytes, LiveBytes + HeldBackBytes);
    PeakLiveBlocks = std::max(PeakLiveBlocks, LiveBlocks);
    PeakHeldBackBytes = std::max(PeakHeldBackBytes, HeldBackBytes);
    countersChanged(Ns);
  }
}

void TimelineRecorder::releaseRequested(ThreadId, Addr Base, StreamId S, OpId Site) {
  prepareStream(S);
  std::uint32_t LabelId = label(Site, LabelUse::Release);
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return;
  Block *B = Blocks.at(Base);
  if (!B || B->State != Block::Phase::Live)
    return;
  B->State = Block::Phase::ReleaseRequested;
  B->RequestedNs = now();
  B->ReleaseLabel = LabelId;
  if (B->Pool) {
    LiveBytes -= B->Size;
    HeldBackBytes += B->Size;
    countersChanged(B->RequestedNs);
  }
}

void TimelineRecorder::released(ThreadId, Addr Base, OpId Site) {
  std::uint32_t LabelId = Site != NoOp ? label(Site, LabelUse::Release) : 0;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return;
  Block *B = Blocks.at(Base);
  if (!B || B->State == Block::Phase::Released)
    return;
  std::uint64_t Ns = now();
  if (B->State == Block::Phase::Live) {
    B->RequestedNs = Ns;
    if (B->Pool) {
      LiveBytes -= B->Size;
      HeldBackBytes += B->Size;
    }
  }
  if (!B->ReleaseLabel)
    B->ReleaseLabel = LabelId;
  B->State = Block::Phase::ReleaseRequested;
  closeLifetime(*B, Ns, "");
  if (B->Pool) {
    HeldBackBytes -= B->Size;
    --LiveBlocks;
    countersChanged(Ns);
  }
  Blocks.released(*B);
}

// --- findings ----------------------------------------------------------------------------

void TimelineRecorder::finding(const Finding &F, std::string_view Headline) {
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return;
  if (++FindingMarkers > MaxFindingMarkers)
    return;
  Block *B = Blocks.lookup(F.Bytes.Begin, false);
  if (!B)
    B = Blocks.lookup(F.Allocation.Begin, false);
  if (!B)
    return;
  if (Blocks.ensureLane(*B))
    writeBlockLane(*B);
  std::uint64_t Ns = now();
  beginEvent(Scratch, "i", BlocksPid, B->Lane, Ns);
  Scratch += ",\"s\":\"t\",\"cat\":\"finding\",\"name\":";
  appendQuoted(Scratch, Headline);
  Scratch += ",\"args\":{\"kind\":\"";
  Scratch += findingKindName(F.Kind);
  Scratch += "\",\"block\":\"";
  Scratch += blockLetters(B->Letter);
  Scratch += "\"}}";
  emit(Scratch);
  // A report is on disk as soon as it is made; so is its marker, with what
  // led to it, in case the corruption it found kills the program.
  Writer.flushNow();

  // The arrow: from the racing access to the reuse (or the new access).
  const BlockUse *From = nullptr, *To = nullptr;
  for (const BlockUse &U : B->Uses) {
    if (U.Stream == F.Unordered.Stream)
      From = &U;
    if (F.NewAccess.Stream != NoStream && U.Stream == F.NewAccess.Stream)
      To = &U;
  }
  if (!From || From->Seq == 0)
    return;
  std::uint64_t Id = NextFlow++;
  bindFlow(From->Stream, From->Seq, From->Placed, From->Start, From->End,
           FlowEnd{Id, true, From->Tid, RaceFlow});
  FlowEnd Arrive{Id, false, 0, RaceFlow};
  if (To && To != From && To->Seq) {
    Arrive.Tid = To->Tid;
    bindFlow(To->Stream, To->Seq, To->Placed, To->Start, To->End, Arrive);
    return;
  }
  // The reuse: the next work on the block by the stream of the allocation
  // that could be handed it (the write that corrupts the read), when it
  // comes; until then, and for a release judged at the release itself, the
  // arrow ends in the block's lifetime slice, drawn when the block is released.
  if (F.ReusedBy.Stream != NoStream && RaceTargets.size() < MaxFindingMarkers) {
    RaceTargets.push_back(
        RaceTarget{Id, B->Id, F.ReusedBy.Stream, B->Lane, B->AllocatedNs + 1, false});
    return;
  }
  Arrive.Tid = B->Lane;
  std::uint64_t At = F.ReusedBy.Stream != NoStream || F.ReusedBy.Op != NoOp
                         ? B->AllocatedNs + 1
                         : (B->State == Block::Phase::Live ? Ns : B->RequestedNs);
  At = std::max(At, B->AllocatedNs);
  // The lifetime slice this end binds to is drawn when the lifetime closes:
  // the end goes after it, so that a cut between them cannot keep the end.
  if (B->State != Block::Phase::Released) {
    RaceTargets.push_back(RaceTarget{Id, B->Id, NoStream, B->Lane, At, true});
    return;
  }
  flowEnd(Arrive, At, FlowNames[RaceFlow]);
}

// --- GPU time ------------------------------------------------------------------------------

void TimelineRecorder::gpuInterval(std::uint32_t CorrelationId, std::uint64_t Start,
                                   std::uint64_t End) {
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return;
  auto Rel = [this](std::uint64_t T) { return T > Origin ? T - Origin : 0; };
  Schedule.gpuInterval(CorrelationId, Rel(Start), Rel(End));
}

void TimelineRecorder::endOfGpuBatch() {
  std::lock_guard<std::mutex> Guard(Lock);
  if (!Finished)
    Schedule.endOfGpuBatch();
}

// --- the end -----------------------------------------------------------------------------------

std::string TimelineRecorder::closingEvents(const std::string &Note) {
  const StreamSchedule::Stats &St = Schedule.stats();
  std::string Out;
  beginEvent(Out, "M", 0, 0, 0);
  Out += ",\"name\":\"streamlife_summary\",\"args\":{\"slots\":";
  appendNumber(Out, St.Slots);
  Out += ",\"placed_by_gpu_time\":";
  appendNumber(Out, St.PlacedByGpu);
  Out += ",\"placed_by_order_without_record\":";
  appendNumber(Out, St.PlacedByOrder);
  Out += ",\"unmatched_activity_records\":";
  appendNumber(Out, St.UnmatchedRecords);
  Out += ",\"block_lanes\":";
  appendNumber(Out, Blocks.lanes());
  Out += ",\"peak_pool_blocks\":";
  appendNumber(Out, PeakLiveBlocks);
  Out += ",\"peak_pool_bytes\":";
  appendNumber(Out, PeakLiveBytes);
  Out += ",\"peak_held_back_bytes\":";
  appendNumber(Out, PeakHeldBackBytes);
  Out += ",\"finding_markers\":";
  appendNumber(Out, std::min(FindingMarkers, MaxFindingMarkers));
  Out += ",\"findings_not_marked\":";
  appendNumber(Out, FindingMarkers > MaxFindingMarkers ? FindingMarkers - MaxFindingMarkers : 0);
  Out += ",\"events_dropped_by_limit\":";
  appendNumber(Out, Writer.droppedEvents());
  Out += "}}";
  std::string Text = Note;
  if (Writer.limitReached()) {
    if (!Text.empty())
      Text += "; ";
    Text += "the timeline reached its limit of " + bytesText(Settings.ByteLimit) + " (" +
            std::to_string(Writer.droppedEvents()) +
            " later events not written; raise --timeline-limit or narrow the run)";
  }
  if (!Text.empty()) {
    Out += ",\n";
    std::string Event;
    beginEvent(Event, "i", 0, 0, now());
    Event += ",\"s\":\"g\",\"cat\":\"streamlife\",\"name\":";
    appendQuoted(Event, "streamlife: " + Text);
    Event += "}";
    Out += Event;
  }
  return Out;
}

bool TimelineRecorder::finish(const std::string &Note, std::string &Error) {
  std::lock_guard<std::mutex> Guard(Lock);
  if (Finished)
    return true;
  Schedule.placeAll();
  std::uint64_t Ns = now();
  std::vector<const Block *> Open;
  Blocks.forEach([&](Block &B) {
    if (B.State != Block::Phase::Released)
      Open.push_back(&B);
  });
  for (const Block *B : Open)
    closeLifetime(*B, Ns, "live at the end of the trace");
  // Race arrows whose reuse never wrote the block end in its lifetime.
  for (const RaceTarget &R : RaceTargets)
    flowEnd(FlowEnd{R.Flow, false, R.Lane, RaceFlow}, R.InsideNs, FlowNames[RaceFlow]);
  RaceTargets.clear();
  Finished = true;
  return Writer.finish(closingEvents(Note), Error);
}

} // namespace rt
} // namespace streamlife
