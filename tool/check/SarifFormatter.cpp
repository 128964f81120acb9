//===- SarifFormatter.cpp - SARIF 2.1.0 for code scanning -----------------===//
//
// What GitHub code scanning needs, and why each piece is here
// (docs.github.com, "SARIF support for code scanning"):
//  - tool.driver.rules lists every enabled check, in sorted order, so that a
//    rule's index does not depend on what was found; ruleId is the check name,
//    stable across runs ("the ruleId for a result has to be the same across
//    analysis");
//  - locations are relative to %SRCROOT% where possible, so two checkouts of
//    the same commit produce the same paths;
//  - partialFingerprints.primaryLocationLineHash de-duplicates alerts across
//    commits: it hashes the rule id and the whitespace-normalized text of the
//    flagged line (not its number, so the alert survives code moving up or
//    down), plus the occurrence count of that hash in the file, in the
//    "<hash>:<occurrence>" form GitHub's own uploader writes;
//  - the notes become relatedLocations, each referenced from the message.
// Compiler errors are not results: they go into the invocation's
// toolExecutionNotifications, and executionSuccessful turns false.
//
//===----------------------------------------------------------------------===//
#include "ReportFormatters.h"
#include "Fingerprint.h"
#include "RuleCatalog.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

namespace streamlife::check {
namespace {

constexpr llvm::StringLiteral SchemaUri =
    "https://json.schemastore.org/sarif-2.1.0.json";
constexpr llvm::StringLiteral SourceRootId = "%SRCROOT%";

/// RFC 3986 percent-encoding of a path; '/' separators are kept.
std::string encodeUriPath(llvm::StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("-._~/").contains(C))
      Out += C;
    else
      Out += llvm::formatv("%{0:X-2}", C).str();
  }
  return Out;
}

std::string toFileUri(llvm::StringRef AbsolutePath) {
  return "file://" + encodeUriPath(llvm::sys::path::convert_to_slash(AbsolutePath));
}

/// SARIF columns default to UTF-16 code units; clang's are bytes.
unsigned utf16Column(const SourceLocationInfo &Location) {
  llvm::StringRef Prefix =
      llvm::StringRef(Location.LineText).take_front(Location.Column - 1);
  unsigned Units = 0;
  for (unsigned char C : Prefix) {
    if ((C & 0xC0) == 0x80)
      continue; // continuation byte
    Units += (C >= 0xF0) ? 2 : 1; // 4-byte sequences are surrogate pairs
  }
  // A column past the line's end (e.g. at the newline) keeps its distance.
  if (Location.Column - 1 > Prefix.size())
    Units += Location.Column - 1 - Prefix.size();
  return Units + 1;
}

class SarifWriter {
public:
  SarifWriter(const CheckReport &Report, const SarifSettings &Settings)
      : Report(Report), Settings(Settings) {
    llvm::SmallString<256> Root(Settings.SourceRoot);
    if (!Root.ends_with(llvm::sys::path::get_separator()))
      Root += llvm::sys::path::get_separator(); // a directory URI ends in '/'
    SourceRoot = std::string(Root);
  }

  llvm::json::Value build() {
    llvm::json::Array Rules;
    for (const std::string &Check : Report.EnabledChecks)
      Rules.push_back(ruleFor(Check));
    llvm::json::Array Results;
    llvm::json::Array Notifications;
    for (const FileResult &File : Report.Files) {
      for (const Diagnostic &Finding : File.Findings)
        Results.push_back(resultFor(Finding, Rules));
      for (const Diagnostic &Error : File.CompileErrors)
        Notifications.push_back(notificationFor(Error));
      if (!File.Failure.empty()) {
        Diagnostic Failure;
        Failure.Message = File.Failure;
        Failure.Location.Path = File.Path;
        Notifications.push_back(notificationFor(Failure));
      }
    }
    // With a baseline, its findings that are gone are results too (SARIF
    // 2.1.0 §3.27.24: "absent").
    for (const Diagnostic &Finding : Report.AbsentFindings)
      Results.push_back(resultFor(Finding, Rules));
    bool Successful = Notifications.empty();
    llvm::json::Object Run{
        {"tool",
         llvm::json::Object{
             {"driver", driver(std::move(Rules))}}},
        {"originalUriBaseIds",
         llvm::json::Object{{SourceRootId, llvm::json::Object{{"uri", toFileUri(SourceRoot)}}}}},
        {"invocations",
         llvm::json::Array{llvm::json::Object{
             {"executionSuccessful", Successful},
             {"toolExecutionNotifications", std::move(Notifications)}}}},
        {"columnKind", "utf16CodeUnits"},
        {"results", std::move(Results)},
    };
    return llvm::json::Object{
        {"$schema", SchemaUri},
        {"version", "2.1.0"},
        {"runs", llvm::json::Array{std::move(Run)}},
    };
  }

private:
  llvm::json::Object driver(llvm::json::Array Rules) {
    llvm::json::Object Driver{
        {"name", "streamlife"},
        {"version", Settings.ToolVersion},
        {"semanticVersion", Settings.ToolVersion},
        {"rules", std::move(Rules)},
    };
    if (!projectUrl().empty())
      Driver["informationUri"] = projectUrl();
    return Driver;
  }

  llvm::json::Value ruleFor(llvm::StringRef Check) {
    unsigned Index = RuleIndex.size();
    RuleIndex[Check] = Index;
    RuleDescription Description = describeRule(Check);
    // GitHub code scanning requires "help" (GH2012); "name" is the friendly
    // name SARIF recommends next to the stable id.
    llvm::json::Object Rule{
        {"id", Check},
        {"name", Description.FriendlyName},
        {"help", llvm::json::Object{{"text", Description.FullDescription}}},
        {"shortDescription", llvm::json::Object{{"text", Description.ShortDescription}}},
        {"fullDescription", llvm::json::Object{{"text", Description.FullDescription}}},
        {"defaultConfiguration", llvm::json::Object{{"level", "warning"}}},
        {"properties", llvm::json::Object{{"tags", llvm::json::Array{"correctness", "cuda"}}}},
    };
    if (!Description.HelpUri.empty())
      Rule["helpUri"] = Description.HelpUri;
    return Rule;
  }

  llvm::json::Value artifactLocation(llvm::StringRef Path) {
    if (Path.starts_with(SourceRoot))
      return llvm::json::Object{
          {"uri", encodeUriPath(llvm::sys::path::convert_to_slash(
                      Path.drop_front(SourceRoot.size())))},
          {"uriBaseId", SourceRootId}};
    return llvm::json::Object{{"uri", toFileUri(Path)}};
  }

  llvm::json::Value physicalLocation(const SourceLocationInfo &Location) {
    llvm::json::Object Physical{{"artifactLocation", artifactLocation(Location.Path)}};
    if (Location.hasPosition())
      Physical["region"] = llvm::json::Object{
          {"startLine", Location.Line},
          {"startColumn", utf16Column(Location)},
          {"snippet", llvm::json::Object{{"text", Location.LineText}}}};
    return Physical;
  }

  /// "<16 hex digits>:<occurrence>", see the file comment.
  std::string lineHash(const Diagnostic &Finding) {
    std::string Normalized = Finding.CheckName;
    Normalized += '\0';
    bool PendingSpace = false;
    for (char C : Finding.Location.LineText) {
      if (llvm::isSpace(C)) {
        PendingSpace = Normalized.back() != '\0';
        continue;
      }
      if (PendingSpace)
        Normalized += ' ';
      PendingSpace = false;
      Normalized += C;
    }
    std::string Hash = llvm::formatv("{0:x-16}", llvm::xxh3_64bits(Normalized)).str();
    unsigned Occurrence = ++Occurrences[Finding.Location.Path + "\n" + Hash];
    return Hash + ":" + std::to_string(Occurrence);
  }

  llvm::json::Value resultFor(const Diagnostic &Finding, llvm::json::Array &Rules) {
    if (!RuleIndex.count(Finding.CheckName))
      Rules.push_back(ruleFor(Finding.CheckName)); // not enabled, yet reported
    llvm::json::Array Related;
    std::string Message = Finding.Message;
    for (size_t I = 0; I < Finding.Notes.size(); ++I) {
      const DiagnosticNote &Note = Finding.Notes[I];
      llvm::json::Object Location{{"id", static_cast<int64_t>(I)},
                                  {"message", llvm::json::Object{{"text", Note.Message}}}};
      if (!Note.Location.Path.empty())
        Location["physicalLocation"] = physicalLocation(Note.Location);
      Related.push_back(std::move(Location));
    }
    llvm::json::Object Result{
        {"ruleId", Finding.CheckName},
        {"ruleIndex", RuleIndex[Finding.CheckName]},
        {"level", Finding.Level == Severity::Error ? "error" : "warning"},
        {"message", llvm::json::Object{{"text", Message}}},
        {"locations",
         llvm::json::Array{llvm::json::Object{
             {"physicalLocation", physicalLocation(Finding.Location)}}}},
        {"partialFingerprints",
         llvm::json::Object{{"primaryLocationLineHash", lineHash(Finding)},
                            {FingerprintKey, Finding.Fingerprint}}},
    };
    switch (Finding.State) {
    case BaselineState::NotCompared:
      break;
    case BaselineState::New:
      Result["baselineState"] = "new";
      break;
    case BaselineState::Unchanged:
      Result["baselineState"] = "unchanged";
      break;
    case BaselineState::Absent:
      Result["baselineState"] = "absent";
      break;
    }
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    return Result;
  }

  llvm::json::Value notificationFor(const Diagnostic &Error) {
    llvm::json::Object Notification{
        {"level", "error"}, {"message", llvm::json::Object{{"text", Error.Message}}}};
    if (!Error.Location.Path.empty())
      Notification["locations"] = llvm::json::Array{
          llvm::json::Object{{"physicalLocation", physicalLocation(Error.Location)}}};
    return Notification;
  }

  const CheckReport &Report;
  const SarifSettings &Settings;
  std::string SourceRoot;
  llvm::StringMap<unsigned> RuleIndex;
  llvm::StringMap<unsigned> Occurrences;
};

} // namespace

void writeSarifReport(const CheckReport &Report, const SarifSettings &Settings,
                      llvm::raw_ostream &OS) {
  OS << llvm::formatv("{0:2}", SarifWriter(Report, Settings).build()) << '\n';
}

} // namespace streamlife::check
