//===- RunCommandDoc.cpp - the command line of `streamlife run` -----------===//
//
// The runtime validator's option table (Options.inc) as `streamlife run`
// flags, with the texts around them: --help, the man page and the shell
// completions are rendered from this (tool/cli/).
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"

#include "config/Options.h"

#include <cstring>

#ifndef STREAMLIFE_PROJECT_URL
#define STREAMLIFE_PROJECT_URL "https://github.com/streamlife/streamlife"
#endif

namespace streamlife {
namespace {

/// What completes the value of a string option: the table knows types, not
/// what the strings name.
cli::ValueKind stringValueKind(const std::string &Name) {
  if (Name == "report" || Name == "suppressions" || Name == "log_path")
    return cli::ValueKind::File;
  if (Name == "cache_dir")
    return cli::ValueKind::Directory;
  if (Name == "cxx" || Name == "symbolizer_path")
    return cli::ValueKind::Command;
  return cli::ValueKind::Text;
}

cli::OptionDoc flagDoc(const rt::OptionInfo &Info) {
  cli::OptionDoc Option;
  Option.Long = rt::flagName(Info);
  Option.Help = Info.Help;
  switch (Info.Type) {
  case rt::OptionType::Int:
    Option.Value = "N";
    Option.Kind = cli::ValueKind::Number;
    break;
  case rt::OptionType::Bool:
    // --dedup alone means true (Options.cpp's parser, RunCommand.cpp).
    Option.Value = "BOOL";
    Option.Kind = cli::ValueKind::Choice;
    Option.Choices = {"0", "1", "true", "false"};
    Option.ValueOptional = true;
    break;
  case rt::OptionType::String:
    Option.Value = "VALUE";
    Option.Kind = stringValueKind(Info.Name);
    break;
  }
  // The default as the table writes it: 32, true, "g++"; "" is no default.
  std::string Default = Info.DefaultText;
  if (Default.size() >= 2 && Default.front() == '"' && Default.back() == '"')
    Default = Default.substr(1, Default.size() - 2);
  Option.Default = Default;
  return Option;
}

} // namespace

cli::CommandDoc runCommandDoc() {
  cli::CommandDoc Doc;
  Doc.Name = "streamlife run";
  Doc.Summary = "run a CUDA or Python program under the streamlife runtime validator";
  Doc.Synopsis = {"streamlife run [OPTIONS] -- CMD ARGS...",
                  "LD_PRELOAD=$(streamlife --print-runtime-path) "
                  "STREAMLIFE_OPTIONS=name=value:... CMD ARGS..."};
  Doc.Description = {
      cli::text("Runs CMD with the runtime validator (libstreamlife_rt.so) preloaded into "
                "it and every process it starts: CUDA C++ programs, and Python programs "
                "(PyTorch with its default caching allocator or cudaMallocAsync, and any "
                "other library that calls CUDA). The validator intercepts the CUDA API, "
                "keeps a happens-before model of streams, events and host threads, and "
                "reports a buffer released while another stream may still use it, a "
                "block reused too early, a use before allocation and a use after free, "
                "in every run, not only in the runs where the GPU happened to corrupt "
                "data. It never adds synchronization."),
      cli::text("Findings go to standard error, each starting 'streamlife: error: <kind>:', "
                "with the call sites of the accesses, the release and the allocation that "
                "could reuse the block; then a summary line per process that used CUDA "
                "(and one line per process plus a total when several did)."),
      cli::text("Python programs: streamlife run puts a sitecustomize module on PYTHONPATH, "
                "so reports show the Python lines (del weights, out = x @ weights) rather "
                "than libtorch's frames, and follows PyTorch's caching allocator through a "
                "small feed compiled once per torch build (--cxx, --cache-dir, "
                "--torch-feed)."),
      cli::text("Without the launcher, one process is validated with LD_PRELOAD and "
                "STREAMLIFE_OPTIONS (the same options, their names with '_' for '-'), as "
                "with the sanitizers' *SAN_OPTIONS."),
  };
  Doc.OptionsIntro = {
      cli::text("STREAMLIFE_OPTIONS names use '_' for '-' (error_exitcode=3). A flag with N or "
                "VALUE takes the next word or '=VALUE'; a [=BOOL] flag alone means true, and "
                "takes the next word as its value only before '--'."),
  };
  // STREAMLIFE_OPTIONS=help=1 lists the options from inside the program; the
  // launcher's --help is this text.
  for (const rt::OptionInfo &Info : rt::optionTable())
    if (std::strcmp(Info.Name, "help") != 0)
      Doc.Options.push_back(flagDoc(Info));
  cli::OptionDoc Help;
  Help.Long = "--help";
  Help.Short = "-h";
  Help.Help = "print this help and exit";
  Doc.Options.push_back(Help);
  Doc.Takes = cli::CommandDoc::Operands::Command;
  Doc.Sections = {
      {"report",
       {cli::text("--report FILE: the processes of one run (a wrapper shell, a Python "
                  "launcher, torchrun's ranks) merge their findings into the one JSON file, "
                  "each tagged with its pid and rank; a process that used no CUDA adds "
                  "nothing. '%p' in FILE gives one file per process instead.")}},
      {"exit status",
       {cli::text("CMD's own: a finding does not fail the program unless --error-exitcode is "
                  "given (as with UBSan; ASan and TSan fail by default). In CI, give "
                  "--error-exitcode (e.g. 66, as TSan)."),
        cli::item("N", "with --error-exitcode N (1-255), when any process of CMD's tree found "
                       "something, even if it ended with _exit() or a wrapper hid its status"),
        cli::item("2", "usage error (one line on standard error)"),
        cli::item("126", "CMD found but not executable"),
        cli::item("127", "CMD not found"),
        cli::text("If CMD is killed by a signal, streamlife run dies of the same signal. "
                  "Without the launcher (plain LD_PRELOAD), each process replaces only its "
                  "own exit status, at exit().")}},
      {"environment",
       {cli::item("STREAMLIFE_OPTIONS",
                  "options as name=value:name=value, read by every process; the flags of "
                  "streamlife run come after it and win"),
        cli::item("STREAMLIFE_RT_LIBRARY", "the runtime library to preload instead of the "
                                           "one installed with streamlife"),
        cli::item("LD_PRELOAD", "the runtime library is appended to it"),
        cli::item("PYTHONPATH", "share/streamlife/python (the sitecustomize hook) is put "
                                "first"),
        cli::item("XDG_CACHE_HOME", "compiled PyTorch feeds are cached in its streamlife/ "
                                    "(default ~/.cache/streamlife)")}},
      {"examples",
       {cli::verbatim("streamlife run -- ./pipeline\n"
                      "streamlife run --error-exitcode 66 --report streamlife.json -- python train.py\n"
                      "streamlife run --suppressions streamlife.supp -- torchrun --nproc-per-node 8 train.py\n"
                      "LD_PRELOAD=$(streamlife --print-runtime-path) STREAMLIFE_OPTIONS=error_exitcode=66 ./pipeline")}},
      {"documentation",
       {cli::text("docs/runtime.md: every option, allocators, Python frames, suppressions, CI "
                  "use, multi-process runs and the JSON report; docs/troubleshooting.md: every "
                  "error message and its fix. Installed in share/doc/streamlife/ under the "
                  "installation prefix, and online at " STREAMLIFE_PROJECT_URL
                  "/tree/main/docs.")}},
  };
  Doc.SeeAlso = {"streamlife(1)", "streamlife-check(1)", "ld.so(8)"};
  return Doc;
}

} // namespace streamlife
