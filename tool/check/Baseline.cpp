//===- Baseline.cpp - --baseline: only what is new ------------------------===//
#include "Baseline.h"

#include "Fingerprint.h"
#include "JsonInput.h"
#include "support/InputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cstring>

namespace streamlife::check {
namespace {

using llvm::json::Array;
using llvm::json::Object;

llvm::Error baselineError(llvm::StringRef Path, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "baseline '" + Path + "': " + Why);
}

std::string stringAt(const Object *O, llvm::StringRef Key) {
  if (!O)
    return "";
  std::optional<llvm::StringRef> S = O->getString(Key);
  return S ? S->str() : "";
}

unsigned unsignedAt(const Object *O, llvm::StringRef Key) {
  if (!O)
    return 0;
  std::optional<int64_t> N = O->getInteger(Key);
  return N && *N > 0 ? static_cast<unsigned>(*N) : 0;
}

/// "%2Fa%20b" -> "/a b".
std::string percentDecode(llvm::StringRef Text) {
  std::string Out;
  for (size_t I = 0; I < Text.size(); ++I) {
    unsigned Byte;
    if (Text[I] == '%' && I + 2 < Text.size() &&
        !Text.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Out += static_cast<char>(Byte);
      I += 2;
    } else {
      Out += Text[I];
    }
  }
  return Out;
}

std::string pathFromArtifact(const Object *Artifact, llvm::StringRef SourceRoot) {
  std::string Uri = stringAt(Artifact, "uri");
  if (llvm::StringRef(Uri).starts_with("file://"))
    return percentDecode(llvm::StringRef(Uri).drop_front(strlen("file://")));
  llvm::SmallString<256> Path(SourceRoot);
  llvm::sys::path::append(Path, percentDecode(Uri));
  llvm::sys::path::native(Path);
  return std::string(Path);
}

llvm::Error readSarif(const Object &Document, llvm::StringRef Path,
                      llvm::StringRef SourceRoot, Baseline &Out) {
  const Array *Runs = Document.getArray("runs");
  if (!Runs)
    return baselineError(Path, "SARIF without 'runs'");
  for (const llvm::json::Value &RunValue : *Runs) {
    const Object *Run = RunValue.getAsObject();
    const Array *Results = Run ? Run->getArray("results") : nullptr;
    if (!Results)
      continue;
    for (const llvm::json::Value &ResultValue : *Results) {
      const Object *Result = ResultValue.getAsObject();
      if (!Result)
        return baselineError(Path, "a SARIF result is not an object");
      // Results the earlier run itself listed as gone are not in it.
      if (stringAt(Result, "baselineState") == "absent")
        continue;
      const Object *Fingerprints = Result->getObject("partialFingerprints");
      std::string Fingerprint = stringAt(Fingerprints, FingerprintKey);
      if (Fingerprint.empty())
        return baselineError(Path, llvm::Twine("a result has no '") + FingerprintKey +
                                       "' fingerprint (not written by streamlife check)");
      Diagnostic Finding;
      Finding.Fingerprint = Fingerprint;
      Finding.CheckName = stringAt(Result, "ruleId");
      Finding.Message = stringAt(Result->getObject("message"), "text");
      const Array *Locations = Result->getArray("locations");
      const Object *Physical =
          Locations && !Locations->empty() && (*Locations)[0].getAsObject()
              ? (*Locations)[0].getAsObject()->getObject("physicalLocation")
              : nullptr;
      if (Physical) {
        Finding.Location.Path =
            pathFromArtifact(Physical->getObject("artifactLocation"), SourceRoot);
        const Object *Region = Physical->getObject("region");
        Finding.Location.Line = unsignedAt(Region, "startLine");
        Finding.Location.Column = unsignedAt(Region, "startColumn");
        Finding.Location.LineText =
            stringAt(Region ? Region->getObject("snippet") : nullptr, "text");
      }
      Out.Findings.push_back(std::move(Finding));
    }
  }
  return llvm::Error::success();
}

llvm::Error readJson(const Object &Document, llvm::StringRef Path, Baseline &Out) {
  const Array *Findings = Document.getArray("findings");
  if (!Findings)
    return baselineError(Path, "JSON report without 'findings'");
  for (const llvm::json::Value &Value : *Findings) {
    const Object *Entry = Value.getAsObject();
    if (!Entry)
      return baselineError(Path, "a finding is not an object");
    std::string Fingerprint = stringAt(Entry, "fingerprint");
    if (Fingerprint.empty())
      return baselineError(Path, "a finding has no 'fingerprint' (written by an older "
                                 "streamlife check?)");
    Diagnostic Finding;
    Finding.Fingerprint = Fingerprint;
    Finding.CheckName = stringAt(Entry, "check");
    Finding.Message = stringAt(Entry, "message");
    const Object *Location = Entry->getObject("location");
    Finding.Location.Path = stringAt(Location, "file");
    Finding.Location.Line = unsignedAt(Location, "line");
    Finding.Location.Column = unsignedAt(Location, "column");
    Out.Findings.push_back(std::move(Finding));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Baseline> loadBaseline(llvm::StringRef Path, llvm::StringRef SourceRoot) {
  // Often a downloaded CI artifact: bounded in size and nesting.
  llvm::Expected<llvm::json::Value> Json = readJsonInput(Path.str(), BaselineFileLimit);
  if (!Json)
    return baselineError(Path, llvm::toString(Json.takeError()));
  const Object *Document = Json->getAsObject();
  Baseline Result;
  if (Document && Document->get("runs")) {
    if (llvm::Error E = readSarif(*Document, Path, SourceRoot, Result))
      return E;
  } else if (Document && Document->get("findings") &&
             stringAt(Document->getObject("tool"), "name") == "streamlife") {
    if (llvm::Error E = readJson(*Document, Path, Result))
      return E;
  } else {
    return baselineError(Path, "neither a SARIF log nor a streamlife JSON report");
  }
  return Result;
}

void compareWithBaseline(CheckReport &Report, const Baseline &Earlier,
                         llvm::function_ref<bool(llvm::StringRef)> Checked) {
  // A multiset: two identical findings in the baseline match two now.
  llvm::StringMap<std::vector<const Diagnostic *>> Unmatched;
  for (const Diagnostic &Finding : Earlier.Findings)
    Unmatched[Finding.Fingerprint].push_back(&Finding);
  for (FileResult &File : Report.Files) {
    for (Diagnostic &Finding : File.Findings) {
      auto It = Unmatched.find(Finding.Fingerprint);
      if (It != Unmatched.end() && !It->second.empty()) {
        It->second.pop_back();
        Finding.State = BaselineState::Unchanged;
      } else {
        Finding.State = BaselineState::New;
      }
    }
  }
  // Absent, in the baseline's order.
  llvm::StringMap<unsigned> Remaining;
  for (const auto &Entry : Unmatched)
    Remaining[Entry.getKey()] = Entry.getValue().size();
  for (const Diagnostic &Finding : Earlier.Findings) {
    unsigned &Left = Remaining[Finding.Fingerprint];
    if (!Left)
      continue;
    --Left;
    if (!Checked(Finding.Location.Path)) {
      ++Report.BaselineFindingsNotChecked;
      continue;
    }
    Diagnostic Absent = Finding;
    Absent.State = BaselineState::Absent;
    Report.AbsentFindings.push_back(std::move(Absent));
  }
  Report.ComparedToBaseline = true;
}

} // namespace streamlife::check
