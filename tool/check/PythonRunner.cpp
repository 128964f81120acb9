//===- PythonRunner.cpp - `streamlife check` on Python files --------------===//
#include "PythonRunner.h"

#include "CheckRunner.h"
#include "PythonCheck.h"
#include "RetiredConfigKeys.h"
#include "Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace streamlife::check {
namespace {

/// The .clang-tidy key of the device-module spellings (PyDeviceModules).
constexpr llvm::StringLiteral DeviceModulesKey = "streamlife-python.DeviceModules";
/// The .clang-tidy key of PyCheckOptions::WaitBeforeFree (true/false).
constexpr llvm::StringLiteral WaitBeforeFreeKey = "streamlife-python.WaitBeforeFree";

/// Whether the comma-separated \p List names \p CheckName (`streamlife-*`
/// globs; an empty list names every check).
bool listNames(llvm::StringRef List, llvm::StringRef CheckName) {
  List = List.trim();
  if (List.empty())
    return true;
  llvm::SmallVector<llvm::StringRef, 4> Names;
  List.split(Names, ',', -1, false);
  for (llvm::StringRef Name : Names) {
    Name = Name.trim();
    if (Name == CheckName || (Name.ends_with("*") && CheckName.starts_with(Name.drop_back())))
      return true;
  }
  return false;
}

/// The part of \p Line after its comment marker '#', outside string quotes
/// as far as a line can tell.
llvm::StringRef commentOf(llvm::StringRef Line) {
  char Quote = 0;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quote) {
      if (C == '\\')
        ++I;
      else if (C == Quote)
        Quote = 0;
    } else if (C == '\'' || C == '"') {
      Quote = C;
    } else if (C == '#') {
      return Line.drop_front(I + 1);
    }
  }
  return {};
}

/// `NOLINT`, `NOLINT(a, b)` (and NOLINTNEXTLINE with \p Marker), or flake8's
/// `noqa` / `noqa: a, b`, anywhere in the comment.
bool commentSuppresses(llvm::StringRef Comment, llvm::StringRef Marker,
                       bool AllowNoqa, llvm::StringRef CheckName) {
  for (size_t At = Comment.find(Marker); At != llvm::StringRef::npos;
       At = Comment.find(Marker, At + 1)) {
    llvm::StringRef Rest = Comment.drop_front(At + Marker.size());
    if (Rest.starts_with("NEXTLINE"))
      continue; // NOLINT is a prefix of NOLINTNEXTLINE
    if (!Rest.starts_with("("))
      return true;
    size_t Close = Rest.find(')');
    if (Close != llvm::StringRef::npos && listNames(Rest.slice(1, Close), CheckName))
      return true;
  }
  if (!AllowNoqa)
    return false;
  std::string Lower = Comment.lower();
  for (size_t At = Lower.find("noqa"); At != std::string::npos; At = Lower.find("noqa", At + 1)) {
    llvm::StringRef Rest = Comment.drop_front(At + 4).ltrim(' ');
    if (!Rest.starts_with(":"))
      return true; // bare noqa: everything on the line
    // flake8 codes end at the first character that is not part of a list.
    llvm::StringRef Codes = Rest.drop_front(1).take_until(
        [](char C) { return C == '#' || C == ';'; });
    if (listNames(Codes.split("  ").first, CheckName))
      return true;
  }
  return false;
}

SourceLocationInfo locate(const python::PyCheckResult &Result, ir::SiteId Id) {
  SourceLocationInfo Location;
  if (Id == ir::NoId)
    return Location;
  const ir::Site &S = Result.Lowered.Module.site(Id);
  Location.Path = S.File;
  Location.Line = S.Line;
  Location.Column = S.Column;
  Location.LineText = Result.lineText(S.File, S.Line).str();
  return Location;
}

} // namespace

llvm::ArrayRef<llvm::StringRef> pythonCheckNames() {
  // Every rule of the catalog has a Python side; sorted, as clang-tidy lists
  // enabled checks.
  static const std::vector<llvm::StringRef> Names = [] {
    std::vector<llvm::StringRef> Sorted;
    for (const core::RuleInfo &Rule : core::rules())
      Sorted.push_back(Rule.Name);
    llvm::sort(Sorted);
    return Sorted;
  }();
  return Names;
}

bool isSuppressed(llvm::StringRef LineText, llvm::StringRef PreviousLine,
                  llvm::StringRef CheckName) {
  return commentSuppresses(commentOf(LineText), "NOLINT", /*AllowNoqa=*/true, CheckName) ||
         commentSuppresses(commentOf(PreviousLine), "NOLINTNEXTLINE", /*AllowNoqa=*/false,
                           CheckName);
}

llvm::Expected<python::PyCheckOptions> pythonOptionsFor(const std::string &Path) {
  python::PyCheckOptions Options;
  // Same switch as clang-tidy's: tests must not pick up a stray .clang-tidy.
  if (llvm::sys::Process::GetEnv("CLANG_NO_DEFAULT_CONFIG"))
    return Options;
  std::unique_ptr<clang::tidy::FileOptionsProvider> Provider = makeRetiredKeyTolerantProvider(
      clang::tidy::ClangTidyOptions::getDefaults(), clang::tidy::ClangTidyOptions());
  clang::tidy::ClangTidyOptions Found = Provider->getOptions(Path);
  auto invalid = [&](llvm::StringRef Key, const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   ".clang-tidy: invalid option '" + Key + "' for '" + Path +
                                       "': " + Why);
  };
  auto Entry = Found.CheckOptions.find(DeviceModulesKey);
  if (Entry != Found.CheckOptions.end())
    if (std::optional<std::string> Error =
            python::PyDeviceModules::parse(Entry->second.Value, Options.DeviceModules))
      return invalid(DeviceModulesKey, *Error);
  Entry = Found.CheckOptions.find(WaitBeforeFreeKey);
  if (Entry != Found.CheckOptions.end()) {
    // clang-tidy's spellings of a boolean option.
    std::optional<bool> On = llvm::StringSwitch<std::optional<bool>>(
                                 llvm::StringRef(Entry->second.Value).trim().lower())
                                 .Case("true", true)
                                 .Case("1", true)
                                 .Case("false", false)
                                 .Case("0", false)
                                 .Default(std::nullopt);
    if (!On)
      return invalid(WaitBeforeFreeKey,
                     "expected true or false, not '" + Entry->second.Value + "'");
    Options.WaitBeforeFree = *On;
  }
  return Options;
}

FileResult checkPythonFile(const std::string &Path,
                           const python::PyCheckOptions &Options) {
  FileResult Result;
  Result.Path = Path;
  python::PyCheckResult Checked;
  runOnCheckThread(Path, [&] { Checked = python::checkPythonFile(Path, Options); });
  if (!Checked.ReadError.empty()) {
    Result.Failure = "cannot read: " + Checked.ReadError;
    return Result;
  }
  if (Checked.Syntax) {
    Result.Failure = "line " + std::to_string(Checked.Syntax->Line) + ": " +
                     Checked.Syntax->What + " (not valid Python)";
    return Result;
  }
  for (const python::PyDiagnostic &D : Checked.Diagnostics) {
    Diagnostic Finding;
    Finding.CheckName = D.Check;
    Finding.Level = Severity::Warning;
    Finding.Message = D.Message;
    Finding.Location = locate(Checked, D.Site);
    if (Finding.Location.Path == Path &&
        isSuppressed(Finding.Location.LineText,
                     Checked.lineText(Path, Finding.Location.Line - 1), D.Check))
      continue;
    for (const auto &[Site, Text] : D.Notes)
      Finding.Notes.push_back({Text, locate(Checked, Site)});
    Result.Findings.push_back(std::move(Finding));
  }
  return Result;
}

} // namespace streamlife::check
