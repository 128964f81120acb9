//===- RetiredConfigKeys.cpp - .clang-tidy keys clang-tidy no longer knows ---===//
#include "RetiredConfigKeys.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace streamlife::check {
namespace {

struct RetiredKey {
  llvm::StringRef Name;
  llvm::StringRef RemovedIn;
};

// Top-level keys of ClangTidyOptions that a released clang-tidy removed. Only
// keys whose removal left nothing for a configuration to mean belong here.
constexpr RetiredKey RetiredKeys[] = {
    {"AnalyzeTemporaryDtors", "clang-tidy 18"},
};

/// The retired key a top-level line starts, if any: `Key:` at column 0,
/// optionally quoted.
const RetiredKey *retiredKeyOf(llvm::StringRef Line) {
  if (Line.empty() || Line.front() == ' ' || Line.front() == '\t')
    return nullptr;
  llvm::StringRef Key = Line.split(':').first.rtrim();
  if (Key.size() == Line.size())
    return nullptr; // no colon: not a mapping entry
  if (Key.size() >= 2 && (Key.front() == '"' || Key.front() == '\'') &&
      Key.back() == Key.front())
    Key = Key.drop_front().drop_back();
  for (const RetiredKey &Retired : RetiredKeys)
    if (Key == Retired.Name)
      return &Retired;
  return nullptr;
}

bool continuesValue(llvm::StringRef Line) {
  return !Line.trim().empty() && (Line.front() == ' ' || Line.front() == '\t');
}

} // namespace

std::string withoutRetiredKeys(llvm::StringRef Text, std::vector<RetiredKeyUse> *Found) {
  std::string Out;
  Out.reserve(Text.size());
  unsigned LineNo = 0;
  bool InRetiredValue = false;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    bool HadNewline = Line.size() < Text.size();
    Text = Rest;
    ++LineNo;
    bool Drop = false;
    if (InRetiredValue && continuesValue(Line)) {
      Drop = true;
    } else if (const RetiredKey *Retired = retiredKeyOf(Line)) {
      Drop = InRetiredValue = true;
      if (Found)
        Found->push_back({Retired->Name.str(), LineNo, Retired->RemovedIn});
    } else {
      InRetiredValue = false;
    }
    // A dropped line stays as an empty one: later diagnostics keep their
    // line numbers.
    if (!Drop)
      Out += Line;
    if (HadNewline)
      Out += '\n';
  }
  return Out;
}

std::string retiredKeyWarning(llvm::StringRef ConfigPath, const RetiredKeyUse &Use) {
  return (ConfigPath + ":" + llvm::Twine(Use.Line) + ":1: key '" + Use.Key +
          "' was removed in " + Use.RemovedIn + " and is ignored")
      .str();
}

namespace {

/// The provider with one handler in place of its default: ".clang-tidy" read
/// by clang-tidy's parser after withoutRetiredKeys. (Its handler-taking
/// constructor leaves the file system unset, which the lookup dereferences:
/// set here, as the default constructor does.)
class RetiredKeyTolerantProvider : public clang::tidy::FileOptionsProvider {
public:
  RetiredKeyTolerantProvider(clang::tidy::ClangTidyOptions Defaults,
                             clang::tidy::ClangTidyOptions Overrides)
      : FileOptionsProvider(clang::tidy::ClangTidyGlobalOptions(), std::move(Defaults),
                            std::move(Overrides), handlers()) {
    FS = llvm::vfs::getRealFileSystem();
  }

private:
  static ConfigFileHandlers handlers() {
    ConfigFileHandlers Handlers;
    Handlers.emplace_back(".clang-tidy", [](llvm::MemoryBufferRef Config) {
      std::string Text = withoutRetiredKeys(Config.getBuffer());
      return clang::tidy::parseConfiguration(
          llvm::MemoryBufferRef(Text, Config.getBufferIdentifier()));
    });
    return Handlers;
  }
};

} // namespace

std::unique_ptr<clang::tidy::FileOptionsProvider>
makeRetiredKeyTolerantProvider(clang::tidy::ClangTidyOptions Defaults,
                               clang::tidy::ClangTidyOptions Overrides) {
  return std::make_unique<RetiredKeyTolerantProvider>(std::move(Defaults), std::move(Overrides));
}

} // namespace streamlife::check
