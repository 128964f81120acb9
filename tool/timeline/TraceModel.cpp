//===- TraceModel.cpp - a streamlife timeline, read back -------------------===//
#include "TraceModel.h"

#include "JsonValue.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace streamlife::timeline {

namespace {

constexpr int StreamsPid = 1;
constexpr int BlocksPid = 2;

struct PendingFlow {
  bool HaveStart = false, HaveEnd = false;
  Arrow A;
};

/// Builds a Trace from events in any order.
class Reader {
public:
  Reader(const ReadWindow &W, Trace &T) : W(W), T(T) {}

  void event(const JsonValue &E) {
    std::string Ph = E.string("ph");
    int Pid = static_cast<int>(E.number("pid"));
    auto Tid = static_cast<std::uint64_t>(E.number("tid"));
    double Ts = E.number("ts");
    double Dur = E.number("dur");
    T.TraceEnd = std::max(T.TraceEnd, Ts + Dur);
    if (Ph == "M")
      return metadata(E, Pid, Tid);
    if (Ph == "X")
      return slice(E, Pid, Tid, Ts, Ts + Dur);
    if (Ph == "i")
      return instant(E, Pid, Tid, Ts);
    if (Ph == "s" || Ph == "f")
      return flow(E, Ph == "s", Pid, Tid, Ts);
    if (Ph == "C" && Pid == BlocksPid)
      return counter(E, Ts);
  }

  void finish() {
    for (auto &[Id, F] : Flows)
      if (F.HaveStart && F.HaveEnd && meets(std::min(F.A.From, F.A.To), std::max(F.A.From, F.A.To)))
        T.Arrows.push_back(F.A);
    for (auto &[Tid, S] : Streams)
      if (!S.Slices.empty() || !S.Name.empty())
        T.Streams.push_back(std::move(S));
    for (auto &[Tid, B] : Blocks) {
      for (auto &[UseTid, U] : Uses)
        if (UseBlock[UseTid] == B.Letter)
          B.Uses.push_back(std::move(U));
      if (!B.Lifetimes.empty() || std::any_of(B.Uses.begin(), B.Uses.end(),
                                              [](const UseLane &U) { return !U.Slices.empty(); }))
        T.Blocks.push_back(std::move(B));
    }
    auto ByStart = [](const auto &A, const auto &B) { return A.Start < B.Start; };
    for (StreamLane &S : T.Streams)
      std::sort(S.Slices.begin(), S.Slices.end(), ByStart);
    for (BlockLane &B : T.Blocks) {
      std::sort(B.Lifetimes.begin(), B.Lifetimes.end(), ByStart);
      for (UseLane &U : B.Uses)
        std::sort(U.Slices.begin(), U.Slices.end(), ByStart);
    }
    std::sort(T.Findings.begin(), T.Findings.end(),
              [](const FindingMarker &A, const FindingMarker &B) { return A.At < B.At; });
    std::sort(T.Counters.begin(), T.Counters.end(),
              [](const CounterSample &A, const CounterSample &B) { return A.At < B.At; });
  }

private:
  bool meets(double Start, double End) const { return End >= W.From && Start <= W.To; }
  void extend(double Start, double End) {
    T.Begin = std::min(T.Begin, std::max(Start, W.From));
    T.End = std::max(T.End, std::min(End, W.To));
  }

  void metadata(const JsonValue &E, int Pid, std::uint64_t Tid) {
    std::string Name = E.string("name");
    const JsonValue *Args = E.get("args");
    if (!Args)
      return;
    if (Name == "streamlife_trace") {
      T.Clock = Args->string("clock", "order");
      T.Command = Args->string("command");
    } else if (Name == "streamlife_summary") {
      T.Finished = true;
      for (const auto &[Key, Value] : Args->members())
        if (Value.isNumber())
          T.Summary[Key] = Value.value();
    } else if (Name == "thread_name" && Pid == StreamsPid) {
      Streams[Tid].Tid = Tid;
      Streams[Tid].Name = Args->string("name");
    } else if (Name == "thread_name" && Pid == BlocksPid) {
      std::string Letter = Args->string("block");
      if (Letter.empty())
        return;
      if (Args->get("stream")) {
        Uses[Tid].Tid = Tid;
        Uses[Tid].Stream = Args->string("stream");
        UseBlock[Tid] = Letter;
        return;
      }
      BlockLane &B = Blocks[Tid];
      B.Tid = Tid;
      B.Letter = Letter;
      B.Name = Args->string("name");
      B.Base = Args->string("base");
      B.Bytes = static_cast<std::uint64_t>(Args->number("bytes"));
      const JsonValue *Pool = Args->get("pool");
      B.Pool = !Pool || Pool->boolean();
    }
  }

  Slice makeSlice(const JsonValue &E, double Start, double End) {
    Slice S;
    S.Start = Start;
    S.End = End;
    std::string Category = E.string("cat");
    S.Kind = Category != "event"                ? SliceKind::Work
             : E.string("name") == "event wait" ? SliceKind::EventWait
                                                : SliceKind::EventRecord;
    S.Name = T.Texts.intern(E.string("name"));
    S.Category = T.Texts.intern(Category);
    if (const JsonValue *Args = E.get("args")) {
      S.Site = T.Texts.intern(Args->string("site"));
      S.Call = T.Texts.intern(Args->string("call"));
      S.Blocks = T.Texts.intern(Args->string("blocks"));
      S.GpuTime = Args->string("clock") == "gpu";
    }
    return S;
  }

  void slice(const JsonValue &E, int Pid, std::uint64_t Tid, double Start, double End) {
    if (!meets(Start, End))
      return;
    extend(Start, End);
    if (Pid == StreamsPid) {
      Streams[Tid].Tid = Tid;
      Streams[Tid].Slices.push_back(makeSlice(E, Start, End));
    } else if (Pid == BlocksPid && Blocks.count(Tid)) {
      std::string Category = E.string("cat");
      Lifetime L;
      L.Start = Start;
      L.End = End;
      L.Name = E.string("name");
      L.HeldBack = Category == "held back";
      if (const JsonValue *Args = E.get("args")) {
        L.Number = static_cast<int>(Args->number("lifetime", 1));
        L.Ending = Args->string("end");
        if (const JsonValue *By = Args->get("allocated by"))
          L.AllocationSite = By->string("site", By->string("call"));
        if (const JsonValue *By = Args->get("released by"))
          L.ReleaseSite = By->string("site", By->string("call"));
      }
      Blocks[Tid].Lifetimes.push_back(std::move(L));
    } else if (Pid == BlocksPid) {
      Uses[Tid].Tid = Tid;
      Uses[Tid].Slices.push_back(makeSlice(E, Start, End));
    }
  }

  void instant(const JsonValue &E, int Pid, std::uint64_t Tid, double Ts) {
    if (E.string("s") == "g") {
      std::string Name = E.string("name");
      // The first global instant says which clock placed the work; the
      // others are the run's notes.
      if (Name.rfind("streamlife timeline:", 0) != 0)
        T.Notes.push_back(Name);
      return;
    }
    if (Pid != BlocksPid || E.string("cat") != "finding" || !meets(Ts, Ts))
      return;
    extend(Ts, Ts);
    FindingMarker M;
    M.At = Ts;
    M.Tid = Tid;
    M.Text = E.string("name");
    if (const JsonValue *Args = E.get("args")) {
      M.Kind = Args->string("kind");
      M.Block = Args->string("block");
    }
    T.Findings.push_back(std::move(M));
  }

  void flow(const JsonValue &E, bool Start, int Pid, std::uint64_t Tid, double Ts) {
    PendingFlow &F = Flows[static_cast<std::uint64_t>(E.number("id"))];
    F.A.Category = E.string("cat");
    if (Start) {
      F.HaveStart = true;
      F.A.From = Ts;
      F.A.FromPid = Pid;
      F.A.FromTid = Tid;
    } else {
      F.HaveEnd = true;
      F.A.To = Ts;
      F.A.ToPid = Pid;
      F.A.ToTid = Tid;
    }
  }

  void counter(const JsonValue &E, double Ts) {
    const JsonValue *Args = E.get("args");
    if (!Args || E.string("name") != "pool blocks")
      return;
    CounterSample C;
    C.At = Ts;
    C.LiveBytes = Args->number("live bytes");
    C.HeldBackBytes = Args->number("held back bytes");
    C.LiveBlocks = Args->number("live blocks");
    T.Counters.push_back(C); // all of them: the peaks before the window count too
  }

  const ReadWindow &W;
  Trace &T;
  std::map<std::uint64_t, StreamLane> Streams;
  std::map<std::uint64_t, BlockLane> Blocks;
  std::map<std::uint64_t, UseLane> Uses;
  std::map<std::uint64_t, std::string> UseBlock;
  std::map<std::uint64_t, PendingFlow> Flows;
};

} // namespace

TextId TextTable::intern(const std::string &Text) {
  if (Text.empty())
    return 0;
  auto [It, New] = Ids.emplace(Text, static_cast<TextId>(Texts.size()));
  if (New)
    Texts.push_back(Text);
  return It->second;
}

const BlockLane *Trace::block(const std::string &Letter) const {
  for (const BlockLane &B : Blocks)
    if (B.Letter == Letter)
      return &B;
  return nullptr;
}

bool readTrace(const std::string &Path, const ReadWindow &Window, Trace &Out, std::string &Error) {
  std::ifstream In(Path);
  if (!In) {
    Error = "cannot read '" + Path + "': " + std::strerror(errno);
    return false;
  }
  std::string Line;
  if (!std::getline(In, Line) || Line != "[") {
    Error = "'" + Path + "' is not a streamlife timeline (written by `streamlife run --timeline`)";
    return false;
  }
  Reader R(Window, Out);
  std::size_t Number = 1;
  std::string Pending; // a line that may be the incomplete last one
  std::size_t PendingNumber = 0;
  while (std::getline(In, Line)) {
    ++Number;
    if (!Pending.empty()) {
      Error = "'" + Path + "' line " + std::to_string(PendingNumber) + ": not a trace event: " +
              Pending.substr(0, 60);
      return false;
    }
    if (Line.empty() || Line == "]")
      continue;
    if (Line.back() == ',')
      Line.pop_back();
    JsonValue Event;
    std::string Why;
    if (!parseJson(Line, Event, Why) || !Event.isObject() || !Event.get("ph")) {
      // Only the last line of an unfinished trace may be cut off.
      Pending = Line;
      PendingNumber = Number;
      continue;
    }
    R.event(Event);
  }
  if (!Pending.empty())
    Out.Notes.push_back("the trace ends in an incomplete event (line " +
                        std::to_string(PendingNumber) + "); read up to the event before it");
  R.finish();
  if (!Out.Finished)
    Out.Notes.push_back("the trace was not finished: the program may have died while it was "
                        "written");
  return true;
}

} // namespace streamlife::timeline
