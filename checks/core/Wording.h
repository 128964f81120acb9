//===--- Wording.h - streamlife ---------------------------------*- C++ -*-===//
//
// Every sentence a user reads from the static checks, once, for all front
// ends (as ruff keeps a rule's message with its violation): the warning and
// the notes that tell its story in order (where the buffer was allocated,
// the racing use, why a wait did not help, what to do). The text is built
// from the IR alone (names' spellings, stream keys), so a front end only
// maps each SiteId back to its own location (clang: a SourceLocation;
// Python: file, line, column) and attaches what only it can make (fix-its).
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_WORDING_H
#define STREAMLIFE_CHECKS_CORE_WORDING_H

#include "Findings.h"
#include "Rules.h"
#include <string>
#include <vector>

namespace streamlife {
namespace core {

/// One step of a finding's story, at a site of the IR.
struct StoryNote {
  SiteId Site = NoId;
  std::string Text;
  /// What to do: a front end that can make the change shows its fix right
  /// after this note (Story::FixNote).
  bool IsAdvice = false;
};

/// One finding as the user reads it.
struct Story {
  Rule Id;
  SiteId Site = NoId; ///< where the warning is
  std::string Message;
  std::vector<StoryNote> Notes; ///< in story order
  /// The note that goes with a fix-it, for a front end that plans one; empty
  /// when the finding has no mechanical fix.
  std::string FixNote;
};

Story tell(const ir::Module &M, const FreeBeforeWaitFinding &Finding);
Story tell(const ir::Module &M, const MissingConsumerEventFinding &Finding);
Story tell(const ir::Module &M, const UseBeforeAllocFinding &Finding);
Story tell(const ir::Module &M, const HandOffFinding &Finding);

/// streamlife-record-stream-in-loop is syntactic (no IR): its words, for the
/// front end to place at the call and the loop. \p Buffer is the receiver
/// as written.
struct RecordStreamInLoopWords {
  std::string Message;  ///< at the call
  std::string LoopNote; ///< at the loop
  std::string Advice;   ///< at the call
};
RecordStreamInLoopWords recordStreamInLoop(llvm::StringRef Buffer);
/// The same reached through calls: the loop calls \p Callee, which calls
/// record_stream on \p Buffer in \p Recorder (itself, or through its own
/// calls); the words at the record_stream call (Advice) and along the way
/// are the notes'.
RecordStreamInLoopWords recordStreamInLoopThroughCall(llvm::StringRef Buffer,
                                                      llvm::StringRef Recorder,
                                                      llvm::StringRef Callee);
/// "'_transfer' calls record_stream on 'tensor.data' here", at the call.
std::string recordStreamCalledHere(llvm::StringRef Function,
                                   llvm::StringRef Buffer);
/// "'process' calls '_transfer' here", along the way to it.
std::string callsHere(llvm::StringRef Function, llvm::StringRef Callee);

/// "stream 'ag'", "the legacy default stream", "the per-thread default
/// stream", "the current stream".
std::string describeStream(const ir::Module &M, const StreamKey &S);

/// The note of a finding that involves the per-thread default stream: where
/// the legacy default stream's implicit synchronization would have ordered
/// what races, the story says once which default stream the file has.
std::string perThreadDefaultStreamNote(bool FileDefaultIsPerThread);

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_WORDING_H
