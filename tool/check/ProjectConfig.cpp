//===- ProjectConfig.cpp - the project's .clang-tidy files, validated -----===//
#include "ProjectConfig.h"

#include "RetiredConfigKeys.h"
#include "support/InputFile.h"

#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"

namespace streamlife::check {
namespace {

llvm::Error validateOne(llvm::StringRef ConfigPath, std::vector<std::string> &Warnings) {
  // Found by searching up from the sources: a link to /dev/zero there must
  // not be read until memory runs out.
  std::string Text, Why;
  if (!readInputFile(ConfigPath.str(), ConfigFileLimit, Text, Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read '" + ConfigPath + "': " + Why);
  std::vector<RetiredKeyUse> Retired;
  Text = withoutRetiredKeys(Text, &Retired);
  for (const RetiredKeyUse &Use : Retired)
    Warnings.push_back(retiredKeyWarning(ConfigPath, Use));
  std::string First;
  auto Parsed = clang::tidy::parseConfigurationWithDiags(
      llvm::MemoryBufferRef(Text, ConfigPath), [&](const llvm::SMDiagnostic &Diag) {
        if (First.empty())
          First = (ConfigPath + ":" + llvm::Twine(Diag.getLineNo()) + ":" +
                   llvm::Twine(Diag.getColumnNo() + 1) +
                   ": invalid configuration: " + Diag.getMessage())
                      .str();
      });
  if (!Parsed && First.empty())
    First = (ConfigPath + ": invalid configuration: " + Parsed.getError().message()).str();
  if (First.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), First);
}

} // namespace

llvm::Error ProjectConfigValidator::validate(llvm::ArrayRef<std::string> Files) {
  // Same switch as clang-tidy's (and CheckRunner's): no project files at all.
  if (llvm::sys::Process::GetEnv("CLANG_NO_DEFAULT_CONFIG"))
    return llvm::Error::success();
  llvm::Error Errors = llvm::Error::success();
  for (const std::string &File : Files) {
    llvm::SmallString<256> Dir(File);
    llvm::sys::fs::make_absolute(Dir);
    llvm::sys::path::remove_filename(Dir);
    for (llvm::StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
      if (!VisitedDirs.insert(D).second)
        break; // this folder and its parents are done
      llvm::SmallString<256> Config(D);
      llvm::sys::path::append(Config, ".clang-tidy");
      if (llvm::sys::fs::is_regular_file(Config))
        if (llvm::Error E = validateOne(Config, Warnings))
          Errors = llvm::joinErrors(std::move(Errors), std::move(E));
    }
  }
  return Errors;
}

} // namespace streamlife::check
