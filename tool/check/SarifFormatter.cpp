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
//  - the notes become relatedLocations, each referenced from the message;
//  - a fix-it becomes a result's `fixes` entry (SARIF 2.1.0 section 3.55):
//    one artifactChange per file, its replacements as byte ranges
//    (deletedRegion byteOffset/byteLength, exact whatever the encoding) and
//    insertedContent text; the description is the finding's "fix: ..." note.
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

#include <map>
#include <vector>

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

/// SARIF columns default to UTF-16 code units; clang's are bytes. The source
/// cache counts them on the whole line (LineText may be a clipped window).
unsigned utf16Column(const SourceLocationInfo &Location) {
  if (Location.Utf16Column)
    return Location.Utf16Column;
  return Location.Column;
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

  /// Streams the document: only one result is ever held as a JSON value, so
  /// memory does not grow with the number of findings (the whole document as
  /// one llvm::json::Value took 3.5 GB for 18,000 findings). Object keys are
  /// written in sorted order, as llvm::json prints a Value, so the output is
  /// the same as it was.
  void write(llvm::raw_ostream &OS) {
    // The rules table first: every enabled check, then any reported check that
    // is not enabled, so that ruleIndex is known before the results.
    std::vector<std::string> Rules(Report.EnabledChecks.begin(), Report.EnabledChecks.end());
    for (const std::string &Check : Rules)
      RuleIndex.try_emplace(Check, RuleIndex.size());
    bool Successful = true;
    for (const FileResult &File : Report.Files) {
      Successful &= File.CompileErrors.empty();
      for (const Diagnostic &Finding : File.Findings)
        if (RuleIndex.try_emplace(Finding.CheckName, RuleIndex.size()).second)
          Rules.push_back(Finding.CheckName);
      Successful &= File.Failure.empty();
    }
    // With a baseline, its findings that are gone are results too (SARIF
    // 2.1.0 section 3.27.24: "absent").
    for (const Diagnostic &Finding : Report.AbsentFindings)
      if (RuleIndex.try_emplace(Finding.CheckName, RuleIndex.size()).second)
        Rules.push_back(Finding.CheckName);

    llvm::json::OStream J(OS, 2);
    J.object([&] {
      J.attribute("$schema", SchemaUri);
      J.attributeArray("runs", [&] {
        J.object([&] {
          J.attribute("columnKind", "utf16CodeUnits");
          J.attributeArray("invocations", [&] {
            J.object([&] {
              J.attribute("executionSuccessful", Successful);
              J.attributeArray("toolExecutionNotifications", [&] {
                for (const FileResult &File : Report.Files) {
                  for (const Diagnostic &Error : File.CompileErrors)
                    J.value(notificationFor(Error));
                  if (!File.Failure.empty()) {
                    Diagnostic Failure;
                    Failure.Message = File.Failure;
                    Failure.Location.Path = File.Path;
                    J.value(notificationFor(Failure));
                  }
                }
              });
            });
          });
          J.attribute("originalUriBaseIds",
                      llvm::json::Object{
                          {SourceRootId, llvm::json::Object{{"uri", toFileUri(SourceRoot)}}}});
          J.attributeArray("results", [&] {
            for (const FileResult &File : Report.Files)
              for (const Diagnostic &Finding : File.Findings)
                J.value(resultFor(Finding));
            for (const Diagnostic &Finding : Report.AbsentFindings)
              J.value(resultFor(Finding));
          });
          J.attributeObject("tool", [&] {
            J.attributeObject("driver", [&] {
              if (!projectUrl().empty())
                J.attribute("informationUri", projectUrl());
              J.attribute("name", "streamlife");
              J.attributeArray("rules", [&] {
                for (const std::string &Check : Rules)
                  J.value(ruleFor(Check));
              });
              J.attribute("semanticVersion", Settings.ToolVersion);
              J.attribute("version", Settings.ToolVersion);
            });
          });
        });
      });
      J.attribute("version", "2.1.0");
    });
    OS << '\n';
  }

private:
  llvm::json::Value ruleFor(llvm::StringRef Check) {
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

  llvm::json::Value resultFor(const Diagnostic &Finding) {
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
    if (!Finding.Fix.empty())
      Result["fixes"] = llvm::json::Array{fixFor(Finding)};
    return Result;
  }

  llvm::json::Value fixFor(const Diagnostic &Finding) {
    std::string Description = "apply the suggested fix";
    for (const DiagnosticNote &Note : Finding.Notes)
      if (llvm::StringRef(Note.Message).starts_with("fix: ")) {
        Description = llvm::StringRef(Note.Message).drop_front(5).str();
        break;
      }
    // Files in order, replacements by offset within each.
    std::map<std::string, std::vector<const TextEdit *>> ByFile;
    for (const TextEdit &Edit : Finding.Fix)
      ByFile[Edit.Path].push_back(&Edit);
    llvm::json::Array Changes;
    for (auto &[Path, Edits] : ByFile) {
      llvm::sort(Edits, [](const TextEdit *A, const TextEdit *B) { return A->Offset < B->Offset; });
      llvm::json::Array Replacements;
      for (const TextEdit *Edit : Edits)
        Replacements.push_back(llvm::json::Object{
            {"deletedRegion", llvm::json::Object{{"byteOffset", Edit->Offset},
                                                 {"byteLength", Edit->Length}}},
            {"insertedContent", llvm::json::Object{{"text", Edit->Replacement}}}});
      Changes.push_back(llvm::json::Object{{"artifactLocation", artifactLocation(Path)},
                                           {"replacements", std::move(Replacements)}});
    }
    return llvm::json::Object{{"description", llvm::json::Object{{"text", Description}}},
                              {"artifactChanges", std::move(Changes)}};
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
  SarifWriter(Report, Settings).write(OS);
}

} // namespace streamlife::check
