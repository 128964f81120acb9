//===- DriverDoc.cpp - the command lines of `streamlife` and its wrapper ---===//
//
// The driver's own options and the pages of the commands that have no option
// table of their own: `streamlife` (which dispatches to check and run) and
// `streamlife-clang-tidy` (clang-tidy with the plugin; its options are
// clang-tidy's).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#ifndef STREAMLIFE_PROJECT_URL
#define STREAMLIFE_PROJECT_URL "https://github.com/streamlife/streamlife"
#endif

namespace streamlife {
namespace {

cli::OptionDoc flag(const char *Long, const char *Help) {
  cli::OptionDoc Option;
  Option.Long = Long;
  Option.Help = Help;
  return Option;
}

cli::OptionDoc choice(const char *Long, const char *Value, std::vector<std::string> Choices,
                      const char *Help) {
  cli::OptionDoc Option = flag(Long, Help);
  Option.Value = Value;
  Option.Kind = cli::ValueKind::Choice;
  Option.Choices = std::move(Choices);
  return Option;
}

cli::Paragraph documentation() {
  return cli::text("README.md and docs/ (each check's page, runtime.md for the runtime "
                   "validator, troubleshooting.md for every error message and its fix, ci/ "
                   "and editors.md) are installed in share/doc/streamlife/ under the "
                   "installation prefix, and online at " STREAMLIFE_PROJECT_URL ".");
}

} // namespace

cli::CommandDoc driverCommandDoc() {
  cli::CommandDoc Doc;
  Doc.Name = "streamlife";
  Doc.Summary = "find cross-CUDA-stream buffer-lifetime bugs, statically and at run time";
  Doc.Synopsis = {"streamlife check [options] FILES... [-- COMPILER_ARGS]",
                  "streamlife compdb -p BUILD_DIR [-o OUT]",
                  "streamlife run [options] -- CMD ARGS...",
                  "streamlife timeline FILE --svg OUT.svg [options]",
                  "streamlife --print-plugin-path | --print-runtime-path | --version"};
  Doc.Description = {
      cli::text("A caching or stream-ordered allocator knows only the stream a block was "
                "allocated on, and hands a freed block to the next allocation on that "
                "stream. When another stream still reads the block as the host releases "
                "it, the next allocation overwrites it during the read: silent, "
                "timing-dependent corruption. The fix: record an event on the consumer "
                "stream after its last use, make the allocation stream wait on it, then "
                "release."),
      cli::text("streamlife finds these bugs statically in C++, CUDA and Python (PyTorch) "
                "source (streamlife check, and the clang-tidy plugin through "
                "streamlife-clang-tidy), and at run time in unmodified CUDA and Python "
                "programs (streamlife run)."),
  };
  Doc.Subcommands = {
      {"check", "find cross-stream buffer-lifetime bugs in C++, CUDA and Python source"},
      {"compdb", "write the compile database as check reads it (nvcc commands translated), "
                 "for clang-tidy and editors"},
      {"run", "run a CUDA or Python program under the runtime validator (libstreamlife_rt.so)"},
      {"timeline", "draw the timeline a validated run wrote (run --timeline) as an SVG picture"},
  };
  Doc.Options = {
      flag("--print-plugin-path", "the clang-tidy plugin that came with streamlife, for "
                                  "clang-tidy-22 --load=PATH (editors, run-clang-tidy)"),
      flag("--print-runtime-path", "the runtime library (libstreamlife_rt.so), for LD_PRELOAD"),
      choice("--print-man-page", "PAGE",
             {"streamlife", "streamlife-check", "streamlife-compdb", "streamlife-run",
              "streamlife-timeline",
              "streamlife-clang-tidy"},
             "print a man page (the build installs them)"),
      choice("--print-completion", "SHELL", {"bash", "zsh"},
             "print the shell completion script (the build installs both)"),
      flag("--version", "print the version and exit"),
      flag("--help", "print this help and exit; 'streamlife <command> --help' describes a "
                     "command's options"),
  };
  Doc.Options.back().Short = "-h";
  Doc.Sections = {
      {"exit status",
       {cli::item("0", "clean"), cli::item("1", "findings (streamlife check)"),
        cli::item("2", "usage or input error; one line on standard error says which"),
        cli::text("streamlife run exits with the program's own status unless "
                  "--error-exitcode is given (streamlife-run(1)).")}},
      {"documentation", {documentation()}},
  };
  Doc.SeeAlso = {"streamlife-check(1)", "streamlife-compdb(1)", "streamlife-run(1)",
                 "streamlife-clang-tidy(1)", "clang-tidy(1)"};
  return Doc;
}

cli::CommandDoc clangTidyWrapperDoc() {
  cli::CommandDoc Doc;
  Doc.Name = "streamlife-clang-tidy";
  Doc.Summary = "clang-tidy 22 with the streamlife checks loaded";
  Doc.Synopsis = {"streamlife-clang-tidy [clang-tidy options] FILES... [-- COMPILER_ARGS]"};
  Doc.Description = {
      cli::text("Runs clang-tidy 22 with --load=PLUGIN, where PLUGIN is the clang-tidy module "
                "installed with streamlife (streamlife --print-plugin-path), and passes every "
                "argument on. Editors and scripts that run clang-tidy (VS Code's clang-tidy "
                "extension, Emacs flycheck, Vim/Neovim ALE, run-clang-tidy "
                "-clang-tidy-binary) can use it as their clang-tidy."),
      cli::text("Without a --checks argument it adds --checks=streamlife-*, which "
                "clang-tidy appends to what the project's .clang-tidy enables, so the "
                "streamlife checks run with or without one; a --checks given is passed on "
                "as it is (clang-tidy takes one)."),
      cli::text("On a CMake + nvcc project, give it the database streamlife compdb "
                "writes (-p build/streamlife): clang's driver does not read nvcc's "
                "options."),
  };
  Doc.Takes = cli::CommandDoc::Operands::Files;
  Doc.Sections = {
      {"environment",
       {cli::item("CLANG_TIDY", "the clang-tidy to run instead of the one found at build "
                                "time (it must be clang-tidy 22: the plugin loads only into "
                                "the major it was built for)")}},
      {"examples",
       {cli::verbatim("streamlife compdb -p build -o build/streamlife\n"
                      "streamlife-clang-tidy -p build/streamlife src/pipeline.cu\n"
                      "run-clang-tidy-22 -p build/streamlife -load \"$(streamlife --print-plugin-path)\" -checks='-*,streamlife-*'")}},
      {"documentation",
       {cli::text("docs/editors.md (VS Code, Emacs, Vim/Neovim) and docs/example.clang-tidy."),
        documentation()}},
  };
  Doc.SeeAlso = {"streamlife(1)", "streamlife-check(1)", "streamlife-compdb(1)",
                 "clang-tidy(1)"};
  return Doc;
}

} // namespace streamlife
