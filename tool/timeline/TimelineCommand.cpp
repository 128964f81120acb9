//===- TimelineCommand.cpp - `streamlife timeline FILE --svg OUT.svg` ------===//
//
// Reads a trace written by `streamlife run --timeline` (TraceModel.h) and
// draws it (SvgTimeline.h), or says what it holds. Plain C++, no LLVM, so that
// it builds wherever `streamlife run` does (the GPU machine renders the
// pictures of its own runs).
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"
#include "SvgTimeline.h"
#include "TraceModel.h"
#include "cli/Renderers.h"

#include "support/AtomicFile.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace streamlife {
namespace {

int usageError(const std::string &Message) {
  std::fprintf(stderr, "streamlife timeline: error: %s (try 'streamlife timeline --help')\n",
               Message.c_str());
  return ExitUsage;
}

/// "250us", "1.5ms", "2s", "800ns", "40" (us) -> microseconds.
bool parseTime(const std::string &Text, double &Us) {
  const char *Begin = Text.c_str();
  char *End = nullptr;
  double Value = std::strtod(Begin, &End);
  if (End == Begin || !std::isfinite(Value) || Value < 0)
    return false;
  std::string Unit = End;
  if (Unit.empty() || Unit == "us" || Unit == "\xc2\xb5s")
    Us = Value;
  else if (Unit == "ns")
    Us = Value / 1e3;
  else if (Unit == "ms")
    Us = Value * 1e3;
  else if (Unit == "s")
    Us = Value * 1e6;
  else
    return false;
  return true;
}

bool parseCount(const std::string &Text, long Min, long Max, long &Out) {
  char *End = nullptr;
  long Value = std::strtol(Text.c_str(), &End, 10);
  if (Text.empty() || *End || Value < Min || Value > Max)
    return false;
  Out = Value;
  return true;
}

void printSummary(const timeline::Trace &T, const std::string &Path) {
  std::printf("%s: %s\n", Path.c_str(),
              T.Clock == "gpu" ? "GPU work at its GPU time (CUPTI activity records)"
                               : "GPU work in stream order at its enqueue time (no GPU times)");
  if (!T.Command.empty())
    std::printf("  command: %s\n", T.Command.c_str());
  std::printf("  span: %s to %s\n", timeline::formatMicros(T.Begin < T.End ? T.Begin : 0).c_str(),
              timeline::formatMicros(T.End).c_str());
  std::printf("  streams: %zu\n", T.Streams.size());
  for (const timeline::StreamLane &S : T.Streams)
    std::printf("    %s: %zu operations\n", S.Name.c_str(), S.Slices.size());
  std::printf("  blocks: %zu\n", T.Blocks.size());
  for (const timeline::BlockLane &B : T.Blocks)
    std::printf("    block %s: %s, %zu lifetimes\n", B.Letter.c_str(), B.Name.c_str(),
                B.Lifetimes.size());
  std::printf("  findings: %zu\n", T.Findings.size());
  for (const timeline::FindingMarker &F : T.Findings)
    std::printf("    at %s on block %s: %s\n", timeline::formatMicros(F.At).c_str(),
                F.Block.c_str(), F.Text.c_str());
  for (const std::string &Note : T.Notes)
    std::printf("  note: %s\n", Note.c_str());
}

} // namespace

int runTimelineCommand(int Argc, const char **Argv) {
  std::string Input, Svg;
  timeline::SvgOptions Options;
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    std::string Value;
    bool HasValue = false;
    auto Eq = Arg.find('=');
    if (Arg.rfind("--", 0) == 0 && Eq != std::string::npos) {
      Value = Arg.substr(Eq + 1);
      Arg = Arg.substr(0, Eq);
      HasValue = true;
    }
    auto Next = [&](std::string &Out) {
      if (HasValue) {
        Out = Value;
        return true;
      }
      if (I + 1 >= Argc)
        return false;
      Out = Argv[++I];
      return true;
    };
    if (Arg == "--help" || Arg == "-h") {
      std::fputs(cli::renderHelp(timelineCommandDoc()).c_str(), stdout);
      return ExitClean;
    }
    if (Arg == "--svg") {
      if (!Next(Svg) || Svg.empty())
        return usageError("--svg needs a file name");
    } else if (Arg == "--from" || Arg == "--to") {
      std::string Text;
      double Us = 0;
      if (!Next(Text) || !parseTime(Text, Us))
        return usageError(Arg + " needs a time such as 250us, 1.5ms or 2s, not '" + Text + "'");
      (Arg == "--from" ? Options.Window.From : Options.Window.To) = Us;
    } else if (Arg == "--blocks") {
      std::string Text;
      long N = 0;
      if (!Next(Text) || !parseCount(Text, 0, 100000, N))
        return usageError("--blocks needs a number of blocks (0 to 100000), not '" + Text + "'");
      Options.MaxBlocks = static_cast<std::size_t>(N);
    } else if (Arg == "--width") {
      std::string Text;
      long N = 0;
      if (!Next(Text) || !parseCount(Text, 400, 20000, N))
        return usageError("--width needs a width in pixels (400 to 20000), not '" + Text + "'");
      Options.Width = static_cast<int>(N);
    } else if (Arg.size() > 1 && Arg[0] == '-') {
      return usageError("unknown option '" + Arg + "'");
    } else if (Input.empty()) {
      Input = Argv[I];
    } else {
      return usageError("one trace at a time: '" + Input + "' and '" + Arg + "'");
    }
  }
  if (Input.empty())
    return usageError("no trace given");
  if (Options.Window.To <= Options.Window.From)
    return usageError("--to must be later than --from");

  timeline::Trace T;
  std::string Error;
  if (!timeline::readTrace(Input, Options.Window, T, Error)) {
    std::fprintf(stderr, "streamlife timeline: error: %s\n", Error.c_str());
    return ExitUsage;
  }
  if (Svg.empty()) {
    printSummary(T, Input);
    return ExitClean;
  }
  std::vector<std::string> Notes;
  std::string Picture = timeline::renderSvg(T, Options, Notes);
  if (!writeFileAtomically(Svg, Picture, Error)) {
    std::fprintf(stderr, "streamlife timeline: error: cannot write '%s': %s\n", Svg.c_str(),
                 Error.c_str());
    return ExitUsage;
  }
  for (const std::string &Note : Notes)
    std::fprintf(stderr, "streamlife timeline: note: %s\n", Note.c_str());
  std::fprintf(stderr, "streamlife timeline: wrote %s: %zu streams, %zu blocks, %zu findings\n",
               Svg.c_str(), T.Streams.size(), T.Blocks.size(), T.Findings.size());
  return ExitClean;
}

} // namespace streamlife
