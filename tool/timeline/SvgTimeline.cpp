//===- SvgTimeline.cpp - a timeline as a static SVG picture ----------------===//
#include "SvgTimeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace streamlife::timeline {

namespace {

// --- geometry and style ------------------------------------------------------------

constexpr double LabelWidth = 230;
constexpr double RightMargin = 24;
constexpr double StreamLaneHeight = 28;
constexpr double BandHeight = 22;
constexpr double UseRowHeight = 18;
constexpr double SectionGap = 26;
constexpr double ChartHeight = 64;
constexpr double BreakWidth = 14;
constexpr double CharWidth = 6.1; ///< of 11px sans-serif, for fitting labels
const char *const Red = "#d62728";
const char *const Idle = "#bdbdbd";

/// Colours of blocks A, B, C, ... (a qualitative palette, no red: red is for
/// findings).
const char *const Palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                               "#edc948", "#9c755f", "#ff9da7", "#86bcb6", "#8cd17d",
                               "#bab0ac", "#499894"};

std::size_t letterIndex(const std::string &Letters) {
  std::size_t N = 0;
  for (char C : Letters)
    N = N * 26 + static_cast<std::size_t>(C - 'A' + 1);
  return N ? N - 1 : 0;
}

const char *blockColour(const std::string &Letter) {
  return Palette[letterIndex(Letter) % (sizeof(Palette) / sizeof(Palette[0]))];
}

std::string xml(const std::string &Text) {
  std::string Out;
  Out.reserve(Text.size());
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      if (static_cast<unsigned char>(C) >= 0x20 || C == '\n' || C == '\t')
        Out += C;
    }
  }
  return Out;
}

std::string num(double V) {
  char Text[32];
  std::snprintf(Text, sizeof(Text), "%.1f", V);
  std::string S = Text;
  if (S.size() > 2 && S.compare(S.size() - 2, 2, ".0") == 0)
    S.resize(S.size() - 2);
  return S;
}

/// Text cut to fit Pixels at 11px, with an ellipsis when cut.
std::string fit(const std::string &Text, double Pixels) {
  auto Max = static_cast<std::size_t>(std::max(0.0, Pixels / CharWidth));
  if (Text.size() <= Max)
    return Text;
  if (Max < 3)
    return "";
  return Text.substr(0, Max - 1) + "\xe2\x80\xa6";
}

std::string bytesText(double Bytes) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int U = 0;
  while (Bytes >= 1024 && U < 4) {
    Bytes /= 1024;
    ++U;
  }
  char Text[32];
  std::snprintf(Text, sizeof(Text), Bytes == std::floor(Bytes) ? "%.0f %s" : "%.1f %s", Bytes,
                Units[U]);
  return Text;
}

std::string firstBlock(const std::string &Blocks) { return Blocks.substr(0, Blocks.find(',')); }

// --- the time axis -------------------------------------------------------------------

/// Piecewise linear: stretches with no work are cut to BreakWidth.
class TimeAxis {
public:
  TimeAxis(double Begin, double End, double X0, double X1,
           std::vector<std::pair<double, double>> Busy) {
    if (End <= Begin)
      End = Begin + 1;
    std::sort(Busy.begin(), Busy.end());
    double Span = End - Begin;
    double MinGap = Span * 0.06;
    // The kept stretches: busy time with a margin, merged.
    std::vector<std::pair<double, double>> Keep;
    double Pad = Span * 0.005;
    for (auto [S, E] : Busy) {
      S = std::max(Begin, S - Pad);
      E = std::min(End, E + Pad);
      if (E < S)
        continue;
      if (!Keep.empty() && S - Keep.back().second < MinGap)
        Keep.back().second = std::max(Keep.back().second, E);
      else
        Keep.push_back({S, E});
    }
    if (Keep.empty())
      Keep.push_back({Begin, End});
    if (Keep.front().first - Begin < MinGap)
      Keep.front().first = Begin;
    if (End - Keep.back().second < MinGap)
      Keep.back().second = End;
    double KeptTime = 0;
    for (auto [S, E] : Keep)
      KeptTime += std::max(E - S, Span * 1e-6);
    std::size_t Breaks = Keep.size() - 1 + (Keep.front().first > Begin) + (Keep.back().second < End);
    double Pixels = X1 - X0 - BreakWidth * static_cast<double>(Breaks);
    double X = X0;
    if (Keep.front().first > Begin) {
      Segments.push_back({Begin, Keep.front().first, X, X + BreakWidth, true});
      X += BreakWidth;
    }
    for (std::size_t I = 0; I < Keep.size(); ++I) {
      double W = Pixels * std::max(Keep[I].second - Keep[I].first, Span * 1e-6) / KeptTime;
      Segments.push_back({Keep[I].first, Keep[I].second, X, X + W, false});
      X += W;
      double Next = I + 1 < Keep.size() ? Keep[I + 1].first : End;
      if (Next > Keep[I].second) {
        Segments.push_back({Keep[I].second, Next, X, X + BreakWidth, true});
        X += BreakWidth;
      }
    }
  }

  double x(double T) const {
    if (T <= Segments.front().T0)
      return Segments.front().X0;
    for (const Segment &S : Segments)
      if (T <= S.T1)
        return S.X0 + (S.X1 - S.X0) * (S.T1 > S.T0 ? (T - S.T0) / (S.T1 - S.T0) : 0);
    return Segments.back().X1;
  }

  struct Segment {
    double T0, T1, X0, X1;
    bool Cut;
  };
  const std::vector<Segment> &segments() const { return Segments; }

private:
  std::vector<Segment> Segments;
};

/// 1, 2 or 5 times a power of ten, so that about Count ticks fit in Span.
double niceStep(double Span, double Count) {
  double Raw = Span / std::max(Count, 1.0);
  double Power = std::pow(10.0, std::floor(std::log10(Raw)));
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (M * Power >= Raw)
      return M * Power;
  return 10 * Power;
}

// --- the picture ---------------------------------------------------------------------------

class Picture {
public:
  Picture(const Trace &T, const SvgOptions &O, std::vector<std::string> &Notes)
      : T(T), O(O), Notes(Notes) {}

  std::string render() {
    chooseWindow();
    chooseBlocks();
    TimeAxis Axis(Begin, End, LabelWidth, O.Width - RightMargin, busyTimes());
    A = &Axis;
    double Y = header();
    Y = axis(Y);
    Y = streams(Y);
    Y = blocks(Y);
    Y = memoryChart(Y);
    arrows();
    findingMarkers();
    Y = footer(Y);
    std::string Out;
    Out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(O.Width) + "\" height=\"" +
           num(Y) + "\" viewBox=\"0 0 " + num(O.Width) + " " + num(Y) +
           "\" font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\" font-size=\"11\">\n";
    Out += defs();
    Out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + num(O.Width) + "\" height=\"" +
           num(Y) + "\" fill=\"#ffffff\"/>\n";
    Out += Body;
    Out += Overlay;
    Out += "</svg>\n";
    return Out;
  }

private:
  // --- what to draw ---
  void chooseWindow() {
    Begin = std::isfinite(O.Window.From) ? O.Window.From : std::min(T.Begin, T.End);
    End = std::isfinite(O.Window.To) ? O.Window.To : T.End;
    if (!std::isfinite(Begin))
      Begin = 0;
    if (End <= Begin)
      End = Begin + 1;
  }

  void chooseBlocks() {
    std::set<std::string> WithFindings;
    for (const FindingMarker &M : T.Findings)
      WithFindings.insert(M.Block);
    std::vector<const BlockLane *> All;
    for (const BlockLane &B : T.Blocks)
      All.push_back(&B);
    std::stable_sort(All.begin(), All.end(), [&](const BlockLane *L, const BlockLane *R) {
      return WithFindings.count(L->Letter) > WithFindings.count(R->Letter);
    });
    if (All.size() > O.MaxBlocks) {
      Notes.push_back(std::to_string(All.size() - O.MaxBlocks) + " of " +
                      std::to_string(All.size()) +
                      " blocks not drawn (--blocks " + std::to_string(O.MaxBlocks) + ")");
      All.resize(O.MaxBlocks);
    }
    std::stable_sort(All.begin(), All.end(), [](const BlockLane *L, const BlockLane *R) {
      return letterIndex(L->Letter) < letterIndex(R->Letter);
    });
    Drawn = All;
  }

  std::vector<std::pair<double, double>> busyTimes() const {
    std::vector<std::pair<double, double>> Busy;
    for (const StreamLane &S : T.Streams)
      for (const Slice &Sl : S.Slices)
        if (Sl.Kind == SliceKind::Work)
          Busy.push_back({Sl.Start, Sl.End});
    for (const FindingMarker &M : T.Findings)
      Busy.push_back({M.At, M.At});
    return Busy;
  }

  double x(double T) const { return A->x(T); }

  // --- sections ---
  double header() {
    std::string Command = T.Command.empty() ? std::string("(unknown command)") : T.Command;
    Body += "<text class=\"title\" x=\"16\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
            xml(fit("streamlife timeline: " + Command, (O.Width - 32) * 11 / 16)) + "</text>\n";
    std::string Clock = T.Clock == "gpu"
                            ? "GPU work at its GPU time (CUPTI activity records), host events at "
                              "their host time"
                            : "no GPU times: GPU work drawn at its enqueue time, in stream order "
                              "(positions show order, not duration)";
    Body += "<text class=\"clock\" x=\"16\" y=\"42\" fill=\"#444\">" +
            xml(Clock + " \xc2\xb7 " + formatMicros(Begin) + " to " + formatMicros(End)) +
            "</text>\n";
    std::size_t Uses = 0;
    for (const BlockLane &B : T.Blocks)
      if (B.Pool)
        ++Uses;
    std::string Summary = std::to_string(T.Findings.size()) +
                          (T.Findings.size() == 1 ? " finding" : " findings") + " \xc2\xb7 " +
                          std::to_string(T.Blocks.size()) + " blocks used (" +
                          std::to_string(Uses) + " pool blocks)";
    // The run's peaks, sampled at allocations (a release completed within its
    // free call is not held back); the counters where the trace has no summary.
    double PeakBlocks = 0, PeakBytes = 0, PeakHeld = 0;
    for (const CounterSample &C : T.Counters) {
      PeakBlocks = std::max(PeakBlocks, C.LiveBlocks);
      PeakBytes = std::max(PeakBytes, C.LiveBytes + C.HeldBackBytes);
      PeakHeld = std::max(PeakHeld, C.HeldBackBytes);
    }
    auto FromSummary = [&](const char *Key, double &Value) {
      if (auto It = T.Summary.find(Key); It != T.Summary.end())
        Value = It->second;
    };
    FromSummary("peak_pool_blocks", PeakBlocks);
    FromSummary("peak_pool_bytes", PeakBytes);
    FromSummary("peak_held_back_bytes", PeakHeld);
    if (!T.Counters.empty()) {
      Summary += " \xc2\xb7 at most " + num(PeakBlocks) + " pool blocks allocated at once (" +
                 bytesText(PeakBytes) + ")";
      if (PeakHeld > 0)
        Summary += ", up to " + bytesText(PeakHeld) + " held back after release";
    }
    Body += "<text class=\"summary\" x=\"16\" y=\"58\" fill=\"#444\">" + xml(Summary) + "</text>\n";
    return 70;
  }

  double axis(double Y) {
    double Base = Y + 18;
    Body += "<g class=\"axis\">\n";
    Body += "<line x1=\"" + num(LabelWidth) + "\" y1=\"" + num(Base) + "\" x2=\"" +
            num(O.Width - RightMargin) + "\" y2=\"" + num(Base) + "\" stroke=\"#888\"/>\n";
    for (const TimeAxis::Segment &S : A->segments()) {
      if (S.Cut) {
        // A break: the stretch of idle time that was cut.
        Body += "<text class=\"break\" x=\"" + num((S.X0 + S.X1) / 2) + "\" y=\"" +
                num(Base + 4) + "\" text-anchor=\"middle\" fill=\"#888\"><title>" +
                xml(formatMicros(S.T1 - S.T0) + " with no GPU work, not drawn to scale") +
                "</title>\xe2\x89\x88</text>\n";
        CutBands.push_back({S.X0, S.X1});
        continue;
      }
      double Step = niceStep(S.T1 - S.T0, std::max(1.0, (S.X1 - S.X0) / 110));
      for (double Tick = std::ceil(S.T0 / Step) * Step; Tick <= S.T1 + Step * 1e-9; Tick += Step) {
        double X = x(Tick);
        Body += "<line x1=\"" + num(X) + "\" y1=\"" + num(Base - 4) + "\" x2=\"" + num(X) +
                "\" y2=\"" + num(Base) + "\" stroke=\"#888\"/>";
        Body += "<text x=\"" + num(X) + "\" y=\"" + num(Base - 7) +
                "\" text-anchor=\"middle\" fill=\"#666\" font-size=\"10\">" +
                xml(formatMicros(Tick)) + "</text>\n";
      }
    }
    Body += "</g>\n";
    return Base + 8;
  }

  void sectionTitle(double Y, const std::string &Title) {
    Body += "<text class=\"section\" x=\"16\" y=\"" + num(Y) +
            "\" font-weight=\"bold\" fill=\"#222\">" + xml(Title) + "</text>\n";
    Body += "<line x1=\"16\" y1=\"" + num(Y + 4) + "\" x2=\"" + num(O.Width - RightMargin) +
            "\" y2=\"" + num(Y + 4) + "\" stroke=\"#ddd\"/>\n";
  }

  /// Draws the work of one lane, merging what is narrower than a pixel.
  void workSlices(const std::vector<Slice> &Slices, double Top, double Height, const char *Fixed) {
    std::size_t I = 0;
    while (I < Slices.size()) {
      const Slice &S = Slices[I];
      if (S.End < Begin || S.Start > End) {
        ++I;
        continue;
      }
      if (S.Kind != SliceKind::Work) {
        eventSlice(S, Top, Height);
        ++I;
        continue;
      }
      double X0 = x(std::max(S.Start, Begin)), X1 = x(std::min(S.End, End));
      std::size_t Merged = 1;
      while (X1 - X0 < 1.5 && I + Merged < Slices.size() &&
             Slices[I + Merged].Kind == SliceKind::Work && x(Slices[I + Merged].Start) - X1 < 1.0 &&
             Slices[I + Merged].Start <= End) {
        X1 = std::max(X1, x(std::min(Slices[I + Merged].End, End)));
        ++Merged;
      }
      std::string Block = firstBlock(T.Texts[S.Blocks]);
      const char *Fill = Fixed ? Fixed : Block.empty() ? Idle : blockColour(Block);
      double W = std::max(X1 - X0, 1.0);
      // Work on several blocks shows each block's colour in a band.
      std::vector<std::string> Letters;
      if (!Fixed) {
        const std::string &All = T.Texts[S.Blocks];
        for (std::size_t From = 0; From < All.size();) {
          std::size_t Comma = All.find(',', From);
          Letters.push_back(All.substr(From, Comma == std::string::npos ? std::string::npos
                                                                        : Comma - From));
          From = Comma == std::string::npos ? All.size() : Comma + 1;
        }
        if (Letters.size() > 4)
          Letters.resize(4);
      }
      const std::string &Name = T.Texts[S.Name];
      std::string Title = Merged > 1 ? std::to_string(Merged) + " operations from " + Name
                                     : Name;
      if (Merged == 1) {
        if (S.Call)
          Title += "\n" + T.Texts[S.Call];
        if (S.Site)
          Title += "\nat " + T.Texts[S.Site];
        if (S.Blocks)
          Title += "\nblocks " + T.Texts[S.Blocks];
      }
      Title += "\n" + formatMicros(S.Start) + " to " + formatMicros(Slices[I + Merged - 1].End) +
               (S.GpuTime ? " (GPU time)" : " (enqueue order)");
      Body += "<rect class=\"work\" data-block=\"" + xml(Block) + "\" data-name=\"" + xml(Name) +
              "\" x=\"" + num(X0) + "\" y=\"" + num(Top) + "\" width=\"" + num(W) +
              "\" height=\"" + num(Height) + "\" fill=\"" + Fill +
              "\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>" + xml(Title) + "</title></rect>";
      for (std::size_t B = 1; B < Letters.size(); ++B) {
        double Band = Height / static_cast<double>(Letters.size());
        Body += "<rect class=\"band\" data-block=\"" + xml(Letters[B]) + "\" x=\"" + num(X0) +
                "\" y=\"" + num(Top + Band * static_cast<double>(B)) + "\" width=\"" + num(W) +
                "\" height=\"" + num(Band) + "\" fill=\"" + blockColour(Letters[B]) +
                "\" pointer-events=\"none\"/>";
      }
      std::string Label = fit(Name, W - 6);
      if (!Label.empty())
        Body += "<text x=\"" + num(X0 + 3) + "\" y=\"" + num(Top + Height / 2 + 4) +
                "\" fill=\"#ffffff\" pointer-events=\"none\">" + xml(Label) + "</text>";
      Body += "\n";
      I += Merged;
    }
  }

  void eventSlice(const Slice &S, double Top, double Height) {
    double X0 = x(std::max(S.Start, Begin)), X1 = x(std::min(S.End, End));
    if (S.Kind == SliceKind::EventRecord) {
      // A small flag where the event is recorded.
      Body += "<path class=\"event-record\" d=\"M" + num(X0) + " " + num(Top) + " l0 " +
              num(Height) + " M" + num(X0) + " " + num(Top) + " l6 3 l-6 3 z\" stroke=\"#333\" "
              "fill=\"#333\"><title>event record " + xml(formatMicros(S.Start)) +
              "</title></path>\n";
      return;
    }
    double W = std::max(X1 - X0, 2.0);
    Body += "<rect class=\"event-wait\" x=\"" + num(X0) + "\" y=\"" + num(Top + Height / 2 - 3) +
            "\" width=\"" + num(W) + "\" height=\"6\" fill=\"url(#wait)\" stroke=\"#666\" "
            "stroke-width=\"0.5\"><title>waits for an event " + xml(formatMicros(S.Start)) +
            " to " + xml(formatMicros(S.End)) + "</title></rect>\n";
  }

  double streams(double Y) {
    sectionTitle(Y + 12, "CUDA streams");
    Y += 22;
    for (const StreamLane &S : T.Streams) {
      Body += "<g class=\"stream-lane\" data-name=\"" + xml(S.Name) + "\">\n";
      Body += "<rect x=\"" + num(LabelWidth) + "\" y=\"" + num(Y + 2) + "\" width=\"" +
              num(O.Width - RightMargin - LabelWidth) + "\" height=\"" +
              num(StreamLaneHeight - 4) + "\" fill=\"#f6f6f6\"/>\n";
      Body += "<text class=\"lane-label\" x=\"16\" y=\"" + num(Y + StreamLaneHeight / 2 + 4) +
              "\" fill=\"#222\">" + xml(fit(S.Name, LabelWidth - 24)) + "<title>" + xml(S.Name) +
              "</title></text>\n";
      workSlices(S.Slices, Y + 4, StreamLaneHeight - 8, nullptr);
      Body += "</g>\n";
      LaneY[{1, S.Tid}] = Y + StreamLaneHeight / 2;
      Y += StreamLaneHeight;
    }
    return Y + 6;
  }

  double blocks(double Y) {
    sectionTitle(Y + 12, "memory blocks (colour: the block a kernel reads or writes)");
    Y += 22;
    for (const BlockLane *B : Drawn) {
      const char *Colour = blockColour(B->Letter);
      Body += "<g class=\"block-lane\" data-block=\"" + xml(B->Letter) + "\">\n";
      Body += "<text class=\"lane-label\" x=\"16\" y=\"" + num(Y + BandHeight / 2 + 4) +
              "\" font-weight=\"bold\" fill=\"" + Colour + "\">block " + xml(B->Letter) +
              "<tspan font-weight=\"normal\" fill=\"#666\"> " +
              xml(bytesText(static_cast<double>(B->Bytes)) +
                  (B->Pool ? " pool block" : " device allocation")) +
              "</tspan><title>" + xml(B->Name) + "</title></text>\n";
      for (const Lifetime &L : B->Lifetimes) {
        if (L.End < Begin || L.Start > End)
          continue;
        double X0 = x(std::max(L.Start, Begin)), X1 = x(std::min(L.End, End));
        double W = std::max(X1 - X0, 1.0);
        std::string Title = L.Name + " (lifetime " + std::to_string(L.Number) + "), " +
                            formatMicros(L.Start) + " to " + formatMicros(L.End);
        if (!L.AllocationSite.empty())
          Title += "\nallocated at " + L.AllocationSite;
        if (!L.ReleaseSite.empty())
          Title += "\nreleased at " + L.ReleaseSite;
        if (!L.Ending.empty())
          Title += "\n" + L.Ending;
        Body += std::string("<rect class=\"") + (L.HeldBack ? "held-back" : "lifetime") +
                "\" data-lifetime=\"" + std::to_string(L.Number) + "\" x=\"" + num(X0) +
                "\" y=\"" + num(Y + 3) + "\" width=\"" + num(W) + "\" height=\"" +
                num(BandHeight - 6) + "\" fill=\"" +
                (L.HeldBack ? "url(#held-" + B->Letter + ")" : std::string(Colour)) +
                "\" fill-opacity=\"" + (L.HeldBack ? "1" : "0.22") + "\" stroke=\"" + Colour +
                "\"><title>" + xml(Title) + "</title></rect>";
        std::string Label = fit(L.HeldBack ? "held back" : L.Name, W - 6);
        if (!Label.empty())
          Body += "<text x=\"" + num(X0 + 3) + "\" y=\"" + num(Y + BandHeight / 2 + 4) +
                  "\" fill=\"#333\" pointer-events=\"none\">" + xml(Label) + "</text>";
        Body += "\n";
      }
      LaneY[{2, B->Tid}] = Y + BandHeight / 2;
      BlockTop[B->Letter] = Y;
      Y += BandHeight;
      for (const UseLane &U : B->Uses) {
        if (U.Slices.empty())
          continue;
        Body += "<g class=\"use-row\" data-stream=\"" + xml(U.Stream) + "\">\n";
        Body += "<text x=\"30\" y=\"" + num(Y + UseRowHeight / 2 + 4) +
                "\" fill=\"#666\" font-size=\"10\">" +
                xml(fit("used by " + U.Stream, LabelWidth - 40)) + "</text>\n";
        workSlices(U.Slices, Y + 2, UseRowHeight - 4, Colour);
        Body += "</g>\n";
        LaneY[{2, U.Tid}] = Y + UseRowHeight / 2;
        Y += UseRowHeight;
      }
      BlockBottom[B->Letter] = Y;
      Body += "</g>\n";
      Y += 6;
    }
    return Y + 4;
  }

  double memoryChart(double Y) {
    if (T.Counters.empty())
      return Y;
    sectionTitle(Y + 12, "pool memory (allocated, and held back after release)");
    Y += 22;
    double Peak = 1;
    for (const CounterSample &C : T.Counters)
      Peak = std::max(Peak, C.LiveBytes + C.HeldBackBytes);
    auto Py = [&](double Bytes) { return Y + ChartHeight - ChartHeight * Bytes / Peak; };
    std::string Live = "M" + num(x(Begin)) + " " + num(Py(0));
    std::string Held = Live;
    double Last = 0, LastHeld = 0;
    for (const CounterSample &C : T.Counters) {
      if (C.At > End)
        break;
      double X = x(std::max(C.At, Begin));
      if (C.At >= Begin) {
        Live += " L" + num(X) + " " + num(Py(Last));
        Held += " L" + num(X) + " " + num(Py(Last + LastHeld));
      }
      Last = C.LiveBytes;
      LastHeld = C.HeldBackBytes;
      Live += " L" + num(X) + " " + num(Py(Last));
      Held += " L" + num(X) + " " + num(Py(Last + LastHeld));
    }
    double XEnd = x(End);
    Live += " L" + num(XEnd) + " " + num(Py(Last)) + " L" + num(XEnd) + " " + num(Py(0)) + " Z";
    Held += " L" + num(XEnd) + " " + num(Py(Last + LastHeld)) + " L" + num(XEnd) + " " +
            num(Py(0)) + " Z";
    Body += "<g class=\"memory-chart\" data-peak-bytes=\"" + num(Peak) + "\">\n";
    // Held-back bytes stacked on the allocated ones: the top is what the
    // allocator holds.
    Body += "<path class=\"held-back-bytes\" d=\"" + Held +
            "\" fill=\"#fbd3a6\" stroke=\"#f28e2b\"/>\n";
    Body += "<path class=\"live-bytes\" d=\"" + Live + "\" fill=\"#b6c9e0\" stroke=\"#4e79a7\"/>\n";
    Body += "<text x=\"16\" y=\"" + num(Y + 12) + "\" fill=\"#222\">peak " + xml(bytesText(Peak)) +
            "</text>\n";
    Body += "<text x=\"16\" y=\"" + num(Y + 28) +
            "\" fill=\"#4e79a7\" font-size=\"10\">\xe2\x96\xa0 allocated</text>\n";
    Body += "<text x=\"16\" y=\"" + num(Y + 42) +
            "\" fill=\"#f28e2b\" font-size=\"10\">\xe2\x96\xa0 held back after release</text>\n";
    Body += "</g>\n";
    return Y + ChartHeight + 10;
  }

  void arrows() {
    for (const Arrow &Ar : T.Arrows) {
      auto From = LaneY.find({Ar.FromPid, Ar.FromTid});
      auto To = LaneY.find({Ar.ToPid, Ar.ToTid});
      if (From == LaneY.end() || To == LaneY.end())
        continue;
      if (std::max(Ar.From, Ar.To) < Begin || std::min(Ar.From, Ar.To) > End)
        continue;
      double X0 = x(std::clamp(Ar.From, Begin, End)), X1 = x(std::clamp(Ar.To, Begin, End));
      double Y0 = From->second, Y1 = To->second;
      bool Race = Ar.Category == "race";
      double Bend = std::max(12.0, std::abs(Y1 - Y0) * 0.4);
      Overlay += std::string("<path class=\"arrow ") + (Race ? "race" : "event") + "\" d=\"M" +
                 num(X0) + " " + num(Y0) + " C" + num(X0 + Bend) + " " + num(Y0) + " " +
                 num(X1 - Bend) + " " + num(Y1) + " " + num(X1) + " " + num(Y1) +
                 "\" fill=\"none\" stroke=\"" + (Race ? Red : "#555") + "\" stroke-width=\"" +
                 (Race ? "2" : "1") + "\"" + (Race ? "" : " stroke-dasharray=\"3 2\"") +
                 " marker-end=\"url(#" + (Race ? "race-head" : "event-head") + ")\"><title>" +
                 (Race ? "the racing access and the reuse" : "event record to wait") +
                 "</title></path>\n";
    }
  }

  /// A finding's number: its first line's, in the order they first occur
  /// (the same bug at several times is one number, several markers).
  int findingNumber(const std::string &Text) {
    auto [It, New] = Numbers.emplace(Text, static_cast<int>(Numbers.size()) + 1);
    if (New)
      NumberedTexts.push_back(Text);
    return It->second;
  }

  void findingMarkers() {
    std::map<std::string, std::vector<double>> Placed; // block -> marker x's
    for (const FindingMarker &M : T.Findings) {
      int Number = findingNumber(M.Text);
      ++Occurrences[Number];
      auto Top = BlockTop.find(M.Block);
      if (Top == BlockTop.end() || M.At < Begin || M.At > End)
        continue;
      double X = x(M.At);
      // Markers closer than their size stack down the block's lane.
      double Row = 0;
      for (double Other : Placed[M.Block])
        if (std::abs(Other - X) < 16)
          Row += 1;
      Placed[M.Block].push_back(X);
      double Y0 = Top->second + Row * 17, Y1 = BlockBottom[M.Block];
      Overlay += "<g class=\"finding\" data-kind=\"" + xml(M.Kind) + "\" data-block=\"" +
                 xml(M.Block) + "\" data-number=\"" + std::to_string(Number) + "\">";
      Overlay += "<line x1=\"" + num(X) + "\" y1=\"" + num(Y0) + "\" x2=\"" + num(X) + "\" y2=\"" +
                 num(Y1) + "\" stroke=\"" + Red + "\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/>";
      Overlay += "<circle cx=\"" + num(X) + "\" cy=\"" + num(Y0) + "\" r=\"8\" fill=\"" + Red +
                 "\"/><text x=\"" + num(X) + "\" y=\"" + num(Y0 + 4) +
                 "\" text-anchor=\"middle\" fill=\"#ffffff\" font-weight=\"bold\" font-size=\"10\">" +
                 std::to_string(Number) + "</text>";
      Overlay += "<title>" + xml(M.Text) + "</title></g>\n";
    }
  }

  double footer(double Y) {
    Y += 8;
    for (const FindingMarker &M : T.Findings)
      findingNumber(M.Text);
    int Number = 0;
    for (const std::string &FindingText : NumberedTexts) {
      ++Number;
      int Times = Occurrences[Number];
      std::string Text = std::to_string(Number) + ". " + FindingText +
                         (Times > 1 ? " (" + std::to_string(Times) + " times)" : "");
      // Wrapped at the picture's width.
      auto PerLine = static_cast<std::size_t>((O.Width - 40) / CharWidth);
      bool First = true;
      while (!Text.empty()) {
        std::size_t Cut = Text.size() <= PerLine ? Text.size() : Text.rfind(' ', PerLine);
        if (Cut == std::string::npos || Cut == 0)
          Cut = std::min(Text.size(), PerLine);
        Body += std::string("<text class=\"finding-text\" x=\"") + (First ? "16" : "28") +
                "\" y=\"" + num(Y + 12) + "\" fill=\"" + Red + "\">" + xml(Text.substr(0, Cut)) +
                "</text>\n";
        Text = Text.substr(std::min(Text.size(), Cut + 1));
        First = false;
        Y += 15;
      }
    }
    for (const std::string &Note : T.Notes) {
      Body += "<text class=\"note\" x=\"16\" y=\"" + num(Y + 12) + "\" fill=\"#8a6d00\">" +
              xml(fit("note: " + Note, O.Width - 32)) + "</text>\n";
      Y += 15;
    }
    for (const std::string &Note : Notes) {
      Body += "<text class=\"note\" x=\"16\" y=\"" + num(Y + 12) + "\" fill=\"#8a6d00\">" +
              xml(fit("note: " + Note, O.Width - 32)) + "</text>\n";
      Y += 15;
    }
    Body += "<text class=\"legend\" x=\"16\" y=\"" + num(Y + 14) +
            "\" fill=\"#666\" font-size=\"10\">" +
            xml("colour: the block the work reads or writes (grey: no block) \xc2\xb7 flag: event "
                "record \xc2\xb7 striped bar: a stream waiting for an event \xc2\xb7 dashed "
                "arrow: record to wait \xc2\xb7 red: a finding, its arrow from the racing access "
                "to the reuse \xc2\xb7 \xe2\x89\x88: idle time cut") +
            "</text>\n";
    return Y + 26;
  }

  std::string defs() const {
    std::string D = "<defs>\n";
    D += "<marker id=\"race-head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
         "markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"#d62728\"/></marker>\n";
    D += "<marker id=\"event-head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" "
         "markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"#555\"/></marker>\n";
    D += "<pattern id=\"wait\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"4\" fill=\"#999\"/></pattern>\n";
    for (const BlockLane *B : Drawn)
      D += "<pattern id=\"held-" + xml(B->Letter) +
           "\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
           "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/><rect "
           "width=\"3\" height=\"6\" fill=\"" +
           blockColour(B->Letter) + "\" fill-opacity=\"0.6\"/></pattern>\n";
    D += "</defs>\n";
    return D;
  }

  const Trace &T;
  const SvgOptions &O;
  std::vector<std::string> &Notes;
  const TimeAxis *A = nullptr;
  double Begin = 0, End = 1;
  std::vector<const BlockLane *> Drawn;
  std::map<std::pair<int, std::uint64_t>, double> LaneY;
  std::map<std::string, double> BlockTop, BlockBottom;
  std::vector<std::pair<double, double>> CutBands;
  std::map<std::string, int> Numbers;
  std::vector<std::string> NumberedTexts;
  std::map<int, int> Occurrences;
  std::string Body, Overlay;
};

} // namespace

std::string formatMicros(double Us) {
  char Text[48];
  double A = std::abs(Us);
  if (A >= 1e6)
    std::snprintf(Text, sizeof(Text), "%g s", std::round(Us / 1e6 * 1000) / 1000);
  else if (A >= 1e3)
    std::snprintf(Text, sizeof(Text), "%g ms", std::round(Us / 1e3 * 1000) / 1000);
  else
    std::snprintf(Text, sizeof(Text), "%g us", std::round(Us * 1000) / 1000);
  return Text;
}

std::string renderSvg(const Trace &T, const SvgOptions &Options, std::vector<std::string> &Notes) {
  return Picture(T, Options, Notes).render();
}

} // namespace streamlife::timeline
