//===- TimelineCommandDoc.cpp - the command line of `streamlife timeline` -===//
//
// --help, the man page and the shell completions are rendered from this
// (tool/cli/); TimelineCommand.cpp parses the same options.
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"

namespace streamlife {
namespace {

cli::OptionDoc option(const char *Long, const char *Value, cli::ValueKind Kind, const char *Help,
                      const char *Default = "") {
  cli::OptionDoc O;
  O.Long = Long;
  O.Value = Value;
  O.Kind = Kind;
  O.Help = Help;
  O.Default = Default;
  return O;
}

} // namespace

cli::CommandDoc timelineCommandDoc() {
  cli::CommandDoc Doc;
  Doc.Name = "streamlife timeline";
  Doc.Summary = "draw a validated run's timeline of streams and memory blocks as an SVG picture";
  Doc.Synopsis = {"streamlife timeline FILE --svg OUT.svg [--from T] [--to T] [--blocks N]",
                  "streamlife timeline FILE"};
  Doc.Description = {
      cli::text("Reads a timeline written by 'streamlife run --timeline FILE -- CMD' (a "
                "Chrome/Perfetto trace that ui.perfetto.dev and chrome://tracing also open) "
                "and draws it as a static SVG picture for CI artifacts, bug reports and "
                "documentation: CUDA streams as lanes on top, memory blocks as lanes below "
                "(each block's lifetimes, and per stream the work that touched it), every "
                "kernel, copy and memset coloured by the block it reads or writes, arrows from "
                "event records to the waits on them, and each finding as a numbered red "
                "marker on its block with an arrow from the racing access to the reuse. A "
                "chart of allocated and held-back pool memory shows each pipeline's peak."),
      cli::text("Without --svg, prints what the trace holds: its clock, streams, blocks, "
                "findings and notes."),
  };
  Doc.OptionsIntro = {cli::text(
      "Times are counted from the start of the trace, with a unit: 250us, 1.5ms, 2s, 800ns "
      "(a bare number is in microseconds).")};
  Doc.Options = {
      option("--svg", "OUT.svg", cli::ValueKind::File,
             "write the picture to OUT.svg (replaced atomically)"),
      option("--from", "T", cli::ValueKind::Text, "draw from time T on", "the trace's start"),
      option("--to", "T", cli::ValueKind::Text, "draw up to time T", "the trace's end"),
      option("--blocks", "N", cli::ValueKind::Number,
             "draw at most N block lanes: those with findings first, then in the order work "
             "first touched them",
             "16"),
      option("--width", "PIXELS", cli::ValueKind::Number, "the picture's width", "1280"),
  };
  cli::OptionDoc Help;
  Help.Long = "--help";
  Help.Short = "-h";
  Help.Help = "print this help and exit";
  Doc.Options.push_back(Help);
  Doc.Takes = cli::CommandDoc::Operands::Files;
  Doc.Sections = {
      {"exit status",
       {cli::item("0", "the picture was written (or the summary printed)"),
        cli::item("2", "a usage error, or FILE is not a streamlife timeline; one line on "
                       "stderr says which")}},
      {"examples",
       {cli::verbatim("streamlife run --timeline run.json -- python train.py\n"
                      "streamlife timeline run.json --svg run.svg\n"
                      "streamlife timeline run.json --svg step.svg --from 1.2s --to 1.3s "
                      "--blocks 6")}},
  };
  Doc.SeeAlso = {"streamlife(1)", "streamlife-run(1)"};
  return Doc;
}

} // namespace streamlife
