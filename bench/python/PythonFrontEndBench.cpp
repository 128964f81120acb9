//===--- PythonFrontEndBench.cpp - streamlife -----------------------------===//
//
// Time of the Python front end against tree-sitter's parse alone, per 1,000
// lines, measured side by side in one run over the same files:
//
//   streamlife-python-bench [--repeat N] FILES...
//
// "parse" is PySourceFile::parse (tree-sitter with the Python grammar);
// "check" is the whole front end from text to findings: parse, local imports,
// lowering into the IR, the core's analysis, the sentences. Each file is
// read once; both are timed N times (default 5) and the best time kept, to
// take the machine's noise out.
//
//===----------------------------------------------------------------------===//

#include "PythonCheck.h"
#include "PythonSyntax.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

using namespace streamlife::python;

namespace {

template <typename Fn> double bestSeconds(unsigned Repeat, Fn Work) {
  double Best = 1e30;
  for (unsigned I = 0; I < Repeat; ++I) {
    auto Start = std::chrono::steady_clock::now();
    Work();
    std::chrono::duration<double> Took = std::chrono::steady_clock::now() - Start;
    Best = std::min(Best, Took.count());
  }
  return Best;
}

} // namespace

int main(int Argc, char **Argv) {
  unsigned Repeat = 5;
  std::vector<std::string> Paths;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg == "--repeat" && I + 1 < Argc)
      Repeat = std::max(1, std::atoi(Argv[++I]));
    else
      Paths.push_back(Arg.str());
  }
  if (Paths.empty()) {
    llvm::errs() << "usage: streamlife-python-bench [--repeat N] FILES...\n";
    return 2;
  }
  struct Input {
    std::string Path, Text;
    unsigned Lines;
  };
  std::vector<Input> Inputs;
  unsigned TotalLines = 0;
  for (const std::string &Path : Paths) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer) {
      llvm::errs() << "streamlife-python-bench: cannot read " << Path << "\n";
      return 2;
    }
    std::string Text = (*Buffer)->getBuffer().str();
    unsigned Lines = llvm::StringRef(Text).count('\n') + 1;
    TotalLines += Lines;
    Inputs.push_back({Path, std::move(Text), Lines});
  }
  unsigned Findings = 0, SyntaxErrors = 0;
  double Parse = bestSeconds(Repeat, [&] {
    for (const Input &In : Inputs)
      PySourceFile::parse(In.Path, In.Text);
  });
  double Check = bestSeconds(Repeat, [&] {
    Findings = SyntaxErrors = 0;
    for (const Input &In : Inputs) {
      PyCheckResult Result = checkPythonText(In.Path, In.Text);
      Findings += Result.Diagnostics.size();
      SyntaxErrors += Result.Syntax.has_value();
    }
  });
  double PerKLines = 1000.0 / TotalLines;
  llvm::outs() << llvm::formatv(
      "files {0}, lines {1}, findings {2}, syntax errors {3}, best of {4}\n",
      Inputs.size(), TotalLines, Findings, SyntaxErrors, Repeat);
  llvm::outs() << llvm::formatv("parse only: {0:F3} ms per 1,000 lines\n",
                                Parse * 1e3 * PerKLines);
  llvm::outs() << llvm::formatv("full check: {0:F3} ms per 1,000 lines\n",
                                Check * 1e3 * PerKLines);
  llvm::outs() << llvm::formatv("ratio check/parse: {0:F2}\n", Check / Parse);
  return 0;
}
