//===- CompilationDatabaseLoader.cpp - where compile commands come from ---===//
#include "CompilationDatabaseLoader.h"

#include "CheckRunner.h"
#include "CompileCommandAdjuster.h"
#include "FileFilter.h"
#include "NvccCommandTranslator.h"
#include "JsonInput.h"
#include "support/InputFile.h"

#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace streamlife::check {
namespace {

llvm::Error inputError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

/// One compile command per file: the first the database lists for it.
/// clang's tooling runs every command of a file, so a file that several
/// targets compile (or a generated database with thousands of entries for a
/// few files) was parsed once per entry, and nothing was reported until all
/// had run: 5,000 entries for 3 files, about 80 minutes (reliability sweep
/// row 86). Each file is parsed once (issue 8); the loader says how many
/// commands were left unused.
class FirstCommandDatabase : public clang::tooling::CompilationDatabase {
public:
  explicit FirstCommandDatabase(std::unique_ptr<clang::tooling::CompilationDatabase> Inner)
      : Inner(std::move(Inner)) {}

  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef FilePath) const override {
    std::vector<clang::tooling::CompileCommand> Commands = Inner->getCompileCommands(FilePath);
    if (Commands.size() > 1)
      Commands.resize(1);
    return Commands;
  }
  std::vector<std::string> getAllFiles() const override { return Inner->getAllFiles(); }
  std::vector<clang::tooling::CompileCommand> getAllCompileCommands() const override {
    std::vector<clang::tooling::CompileCommand> Commands;
    for (const std::string &File : getAllFiles())
      for (clang::tooling::CompileCommand &Command : getCompileCommands(File))
        Commands.push_back(std::move(Command));
    return Commands;
  }

private:
  std::unique_ptr<clang::tooling::CompilationDatabase> Inner;
};

} // namespace

llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
loadJsonCompilationDatabase(llvm::StringRef BuildDirOrFile) {
  llvm::SmallString<256> JsonPath(BuildDirOrFile);
  if (llvm::sys::fs::is_directory(JsonPath))
    llvm::sys::path::append(JsonPath, "compile_commands.json");
  else if (!llvm::sys::fs::exists(JsonPath))
    return inputError("build directory '" + BuildDirOrFile + "' does not exist");
  if (!llvm::sys::fs::exists(JsonPath))
    return inputError("no compile_commands.json in '" + BuildDirOrFile +
                      "' (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
  // JSONCompilationDatabase parses with the YAML parser, which prints syntax
  // errors itself (several lines) and may still return a partial database;
  // validate the JSON first so a broken file is one clear error.
  // Bounded in size and nesting: the parsers recurse per level.
  llvm::Expected<llvm::json::Value> Json = readJsonInput(JsonPath.str().str(), CompileDatabaseLimit);
  if (!Json)
    return inputError("broken compile database '" + JsonPath +
                      "': " + llvm::toString(Json.takeError()));
  if (!Json->getAsArray())
    return inputError("broken compile database '" + JsonPath +
                      "': expected an array of compile commands");
  // The format requires absolute "directory" values; a relative one is
  // resolved against our working directory by clang, and the files it lists
  // then look "not in the compile database". Say what is wrong instead.
  // An empty command would otherwise become "no such file: 'cuda'".
  for (size_t I = 0; I < Json->getAsArray()->size(); ++I) {
    const llvm::json::Object *Entry = (*Json->getAsArray())[I].getAsObject();
    if (!Entry)
      continue; // the database parser names the problem
    // clang's parser reads any scalar as a string: `"directory": 5` became
    // the folder "5", and clang's tooling aborted with "Cannot chdir into
    // "5"!" (exit 134, reliability sweep row 71).
    for (llvm::StringRef Key : {"directory", "file", "command", "output"})
      if (const llvm::json::Value *Value = Entry->get(Key); Value && !Value->getAsString())
        return inputError("broken compile database '" + JsonPath + "': entry " +
                          llvm::Twine(I + 1) + ": \"" + Key + "\" must be a string");
    if (const llvm::json::Value *Value = Entry->get("arguments");
        Value && (!Value->getAsArray() ||
                  llvm::any_of(*Value->getAsArray(), [](const llvm::json::Value &Argument) {
                    return !Argument.getAsString();
                  })))
      return inputError("broken compile database '" + JsonPath + "': entry " +
                        llvm::Twine(I + 1) + ": \"arguments\" must be an array of strings");
    if (std::optional<llvm::StringRef> Dir = Entry->getString("directory");
        Dir && !llvm::sys::path::is_absolute(*Dir))
      return inputError("broken compile database '" + JsonPath + "': entry " +
                        llvm::Twine(I + 1) + ": \"directory\" must be an absolute path, got '" +
                        *Dir + "'");
    const llvm::json::Array *Arguments = Entry->getArray("arguments");
    std::optional<llvm::StringRef> Command = Entry->getString("command");
    if ((Arguments && Arguments->empty()) ||
        (!Arguments && Command && Command->trim().empty()))
      return inputError("broken compile database '" + JsonPath + "': entry " +
                        llvm::Twine(I + 1) + " has an empty command");
  }
  std::string Message;
  std::unique_ptr<clang::tooling::CompilationDatabase> Database =
      clang::tooling::JSONCompilationDatabase::loadFromFile(
          JsonPath, Message, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Database) {
    // The parser's message may span lines; the contract is one line.
    std::replace(Message.begin(), Message.end(), '\n', ' ');
    return inputError("broken compile database '" + JsonPath + "': " + Message);
  }
  return std::move(Database);
}

llvm::Expected<LoadedDatabase> loadCompilationDatabase(const CheckOptions &Options,
                                                       llvm::StringRef ClangResourceDir) {
  CompileCommandSettings Settings;
  Settings.CudaPath = Options.CudaPath;
  Settings.ClangResourceDir = ClangResourceDir.str();

  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  std::vector<std::string> Candidates;
  if (Options.BuildDir) {
    auto Loaded = loadJsonCompilationDatabase(*Options.BuildDir);
    if (!Loaded)
      return Loaded.takeError();
    Database = std::move(*Loaded);
    // With -p, arguments after `--` extend each recorded command.
    Settings.ExtraArgs = Options.CompilerArgs;
    if (Options.Files.empty()) {
      // The database keeps its files in a hash map: sort them, so that the
      // report order is the same on every run and every machine.
      Candidates = Database->getAllFiles();
      llvm::sort(Candidates);
      if (Candidates.empty())
        return inputError("compile database in '" + *Options.BuildDir + "' lists no files");
    }
  } else {
    // The fixed command's working directory is the current one, like
    // clang-tidy's `FILE -- ARGS`.
    Database = std::make_unique<clang::tooling::FixedCompilationDatabase>(
        ".", Options.CompilerArgs);
  }
  // FILES named on the command line are validated here, before any parsing:
  // a typo should fail at once. Entries of the database are not: one whose
  // file is gone fails alone when it is checked (see CheckRunner), and the
  // rest of the database is still checked.
  bool FromDatabase = Options.Files.empty();
  if (!FromDatabase)
    for (const std::string &File : Options.Files)
      Candidates.push_back(absolutePath(File));

  // The stack every command goes through: the first command of each file,
  // nvcc commands translated, then (with -p) a command interpolated from the
  // nearest entry for a file the database does not list, as clangd and
  // clang-tidy do, then the adjustments for a host-side parse.
  clang::tooling::CompilationDatabase *Recorded = Database.get();
  auto Translated = std::make_unique<clang::tooling::ArgumentsAdjustingCompilations>(
      std::make_unique<FirstCommandDatabase>(std::move(Database)));
  Translated->appendArgumentsAdjuster(makeNvccTranslationAdjuster());
  std::unique_ptr<clang::tooling::CompilationDatabase> Interpolated = std::move(Translated);
  if (Options.BuildDir)
    Interpolated = clang::tooling::inferMissingCompileCommands(std::move(Interpolated));

  FileFilter Filter(Options);
  llvm::Error Errors = llvm::Error::success();
  LoadedDatabase Result;
  llvm::StringSet<> Seen;
  size_t FilteredOut = 0;
  for (size_t I = 0; I < Candidates.size(); ++I) {
    const std::string &File = Candidates[I];
    if (!Filter.accepts(File)) {
      ++FilteredOut;
      continue;
    }
    if (FromDatabase) {
      if (Seen.insert(File).second)
        Result.Files.push_back(File);
      continue;
    }
    llvm::StringRef Shown = Options.Files[I];
    llvm::sys::fs::file_status Status;
    if (std::error_code EC = llvm::sys::fs::status(File, Status)) {
      // A symbolic link loop is not "no such file".
      std::string Why = EC == std::errc::too_many_symbolic_link_levels
                            ? "symbolic link loop"
                        : EC == std::errc::no_such_file_or_directory ? "no such file"
                                                                     : EC.message();
      Errors = llvm::joinErrors(std::move(Errors), inputError(Shown + ": " + Why));
      continue;
    }
    if (llvm::sys::fs::is_directory(File)) {
      Errors = llvm::joinErrors(std::move(Errors),
                                inputError(Shown + ": " + NotASourceFile));
      continue;
    }
    // A file and a link to it (or another spelling) are one file, checked
    // and reported once, under the first name given.
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(File, Real))
      Real = File;
    if (!Seen.insert(Real).second)
      continue;
    if (Options.BuildDir && Recorded->getCompileCommands(File).empty()) {
      std::vector<clang::tooling::CompileCommand> Inferred =
          Interpolated->getCompileCommands(File);
      llvm::StringRef From = Inferred.empty() ? "" : llvm::StringRef(Inferred.front().Heuristic);
      if (!From.consume_front("inferred from ")) {
        Errors = llvm::joinErrors(
            std::move(Errors),
            inputError(Shown + ": not in the compile database of '" + *Options.BuildDir + "'"));
        continue;
      }
      Result.InterpolatedFiles.push_back({File, absolutePath(From)});
    }
    Result.Files.push_back(File);
  }
  if (!Errors && Result.Files.empty() && FilteredOut)
    return inputError("no files to check: --files/--exclude left none of the " +
                      llvm::Twine(FilteredOut) + " candidate file" +
                      (FilteredOut == 1 ? "" : "s"));
  if (Errors)
    return std::move(Errors);

  llvm::StringMap<size_t> Unknown;
  for (const std::string &File : Result.Files) {
    std::vector<clang::tooling::CompileCommand> Commands = Recorded->getCompileCommands(File);
    if (size_t N = Commands.size(); N > 1) {
      ++Result.FilesWithSeveralCommands;
      Result.UnusedCommands += N - 1;
      if (Result.FirstFileWithSeveralCommands.empty())
        Result.FirstFileWithSeveralCommands = File;
    }
    if (!Commands.empty() && !Commands.front().CommandLine.empty() &&
        isNvccCommand(Commands.front().CommandLine.front()))
      for (std::string &Option : translateNvccCommand(Commands.front().CommandLine).UnknownOptions)
        if (Unknown[Option]++ == 0)
          Result.UnknownNvccOptions.push_back({Option, 0});
  }
  for (auto &[Option, Commands] : Result.UnknownNvccOptions)
    Commands = Unknown[Option];
  auto Adjusted =
      std::make_unique<clang::tooling::ArgumentsAdjustingCompilations>(std::move(Interpolated));
  Adjusted->appendArgumentsAdjuster(makeCompileCommandAdjuster(std::move(Settings)));
  Result.Database = std::move(Adjusted);
  return std::move(Result);
}

} // namespace streamlife::check
