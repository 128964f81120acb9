//===- RuleCatalog.cpp - what each streamlife check is about --------------===//
#include "RuleCatalog.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#ifndef STREAMLIFE_PROJECT_URL
#define STREAMLIFE_PROJECT_URL ""
#endif
#ifndef STREAMLIFE_CHECK_DOCS_URL
#define STREAMLIFE_CHECK_DOCS_URL ""
#endif

namespace streamlife::check {
namespace {

struct KnownRule {
  llvm::StringLiteral Name;
  llvm::StringLiteral Short;
  llvm::StringLiteral Full;
};

const KnownRule KnownRules[] = {
    {"streamlife-free-before-wait",
     "buffer released while another stream may still use it",
     "A stream-ordered release (cudaFreeAsync, cuMemFreeAsync) on the "
     "allocation stream is not ordered after a use of the buffer on another "
     "stream: the caching allocator may hand the block to the next allocation "
     "on the allocation stream while the consumer still reads it. Record an "
     "event on the consumer stream after its last use and make the allocation "
     "stream wait on it before the release."},
    {"streamlife-missing-consumer-event",
     "allocation stream waits on a stale consumer event",
     "The allocation stream waits on an event recorded on the consumer stream "
     "before the consumer's last use of the buffer, or on nothing recorded "
     "after it, so the wait does not cover that use."},
    {"streamlife-use-before-alloc",
     "buffer used on another stream before that stream is ordered after its "
     "allocation",
     "A stream-ordered allocation on one stream is used on another stream "
     "before the second stream waits for an event recorded after the "
     "allocation: the block may still be in use by its previous lifetime, or "
     "not yet allocated."},
    {"streamlife-record-stream-in-loop",
     "record_stream/recordStream inside a loop",
     "record_stream makes the caching allocator poll the recorded stream "
     "before reusing the block, so memory reuse becomes nondeterministic and "
     "memory grows in hot loops; order the release with an event wait instead."},
};

/// "streamlife-free-before-wait" -> "FreeBeforeWait".
std::string friendlyName(llvm::StringRef CheckName) {
  CheckName.consume_front("streamlife-");
  llvm::SmallVector<llvm::StringRef, 8> Words;
  CheckName.split(Words, '-', -1, /*KeepEmpty=*/false);
  std::string Name;
  for (llvm::StringRef Word : Words)
    Name += (llvm::Twine(llvm::toUpper(Word.front())) + Word.drop_front()).str();
  return Name;
}

} // namespace

llvm::StringRef projectUrl() { return STREAMLIFE_PROJECT_URL; }

RuleDescription describeRule(llvm::StringRef CheckName) {
  RuleDescription Result;
  Result.FriendlyName = friendlyName(CheckName);
  llvm::StringRef DocsUrl = STREAMLIFE_CHECK_DOCS_URL;
  if (!DocsUrl.empty())
    Result.HelpUri = (DocsUrl + CheckName + ".md").str();
  for (const KnownRule &Rule : KnownRules) {
    if (Rule.Name == CheckName) {
      Result.ShortDescription = Rule.Short.str();
      Result.FullDescription = Rule.Full.str();
      return Result;
    }
  }
  Result.ShortDescription = ("streamlife check " + llvm::Twine(CheckName)).str();
  Result.FullDescription = Result.ShortDescription;
  return Result;
}

} // namespace streamlife::check
