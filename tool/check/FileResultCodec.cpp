//===- FileResultCodec.cpp - a FileResult across a pipe -------------------===//
#include "FileResultCodec.h"

namespace streamlife::check {
namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

Value encode(const SourceLocationInfo &Location) {
  return Object{{"path", Location.Path},
                {"line", Location.Line},
                {"column", Location.Column},
                {"text", Location.LineText}};
}

Value encode(const Diagnostic &Diag) {
  Array Notes;
  for (const DiagnosticNote &Note : Diag.Notes)
    Notes.push_back(Object{{"message", Note.Message}, {"location", encode(Note.Location)}});
  Array Fix;
  for (const TextEdit &Edit : Diag.Fix)
    Fix.push_back(Object{{"path", Edit.Path},
                         {"offset", Edit.Offset},
                         {"length", Edit.Length},
                         {"text", Edit.Replacement}});
  return Object{{"check", Diag.CheckName},
                {"error", Diag.Level == Severity::Error},
                {"message", Diag.Message},
                {"location", encode(Diag.Location)},
                {"notes", std::move(Notes)},
                {"fix", std::move(Fix)}};
}

Array encode(const std::vector<Diagnostic> &Diags) {
  Array Result;
  for (const Diagnostic &Diag : Diags)
    Result.push_back(encode(Diag));
  return Result;
}

bool decode(const Value &V, std::string &Out) {
  if (auto S = V.getAsString()) {
    Out = S->str();
    return true;
  }
  return false;
}

bool decode(const Value &V, unsigned &Out) {
  if (auto N = V.getAsUINT64()) {
    Out = static_cast<unsigned>(*N);
    return true;
  }
  return false;
}

bool decode(const Value *V, SourceLocationInfo &Out) {
  const Object *O = V ? V->getAsObject() : nullptr;
  return O && O->get("path") && decode(*O->get("path"), Out.Path) && O->get("line") &&
         decode(*O->get("line"), Out.Line) && O->get("column") &&
         decode(*O->get("column"), Out.Column) && O->get("text") &&
         decode(*O->get("text"), Out.LineText);
}

bool decode(const Value &V, Diagnostic &Out) {
  const Object *O = V.getAsObject();
  if (!O)
    return false;
  std::optional<bool> IsError = O->getBoolean("error");
  const Array *Notes = O->getArray("notes");
  if (!IsError || !Notes || !O->get("check") || !decode(*O->get("check"), Out.CheckName) ||
      !O->get("message") || !decode(*O->get("message"), Out.Message) ||
      !decode(O->get("location"), Out.Location))
    return false;
  Out.Level = *IsError ? Severity::Error : Severity::Warning;
  for (const Value &N : *Notes) {
    const Object *NO = N.getAsObject();
    DiagnosticNote Note;
    if (!NO || !NO->get("message") || !decode(*NO->get("message"), Note.Message) ||
        !decode(NO->get("location"), Note.Location))
      return false;
    Out.Notes.push_back(std::move(Note));
  }
  const Array *Fix = O->getArray("fix");
  if (!Fix)
    return false;
  for (const Value &F : *Fix) {
    const Object *FO = F.getAsObject();
    TextEdit Edit;
    if (!FO || !FO->get("path") || !decode(*FO->get("path"), Edit.Path) || !FO->get("offset") ||
        !decode(*FO->get("offset"), Edit.Offset) || !FO->get("length") ||
        !decode(*FO->get("length"), Edit.Length) || !FO->get("text") ||
        !decode(*FO->get("text"), Edit.Replacement))
      return false;
    Out.Fix.push_back(std::move(Edit));
  }
  return true;
}

bool decode(const Array *A, std::vector<Diagnostic> &Out) {
  if (!A)
    return false;
  for (const Value &V : *A) {
    Diagnostic Diag;
    if (!decode(V, Diag))
      return false;
    Out.push_back(std::move(Diag));
  }
  return true;
}

} // namespace

std::string encodeFileResult(const FileResult &Result) {
  Array ConfigurationErrors;
  for (const std::string &Message : Result.ConfigurationErrors)
    ConfigurationErrors.push_back(Message);
  Value Document = Object{{"path", Result.Path},
                          {"findings", encode(Result.Findings)},
                          {"compileErrors", encode(Result.CompileErrors)},
                          {"failure", Result.Failure},
                          {"configurationErrors", std::move(ConfigurationErrors)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << Document;
  OS.flush();
  return Text;
}

std::optional<FileResult> decodeFileResult(llvm::StringRef Text) {
  llvm::Expected<Value> Parsed = llvm::json::parse(Text);
  if (!Parsed) {
    llvm::consumeError(Parsed.takeError());
    return std::nullopt;
  }
  const Object *O = Parsed->getAsObject();
  FileResult Result;
  if (!O || !O->get("path") || !decode(*O->get("path"), Result.Path) ||
      !O->get("failure") || !decode(*O->get("failure"), Result.Failure) ||
      !decode(O->getArray("findings"), Result.Findings) ||
      !decode(O->getArray("compileErrors"), Result.CompileErrors))
    return std::nullopt;
  const Array *Config = O->getArray("configurationErrors");
  if (!Config)
    return std::nullopt;
  for (const Value &V : *Config) {
    std::string Message;
    if (!decode(V, Message))
      return std::nullopt;
    Result.ConfigurationErrors.push_back(std::move(Message));
  }
  return Result;
}

} // namespace streamlife::check
