//===- TraceEventWriter.h - a trace-event JSON file, streamed -*- C++ -*-===//
//
// Writes the Chrome/Perfetto trace-event format (the JSON Array Format that
// ui.perfetto.dev and chrome://tracing open) while the program runs, so that
// the validator's memory stays flat however long the run is:
//   * events are appended to a buffer that goes to disk when it holds 1 MiB
//     or when it is older than 100 ms (a crash loses at most that much), and
//     whenever the recorder asks (a finding is on disk before the program
//     can die of the corruption it found); the opening "[" is on disk at once,
//     so even a process that dies at its first call leaves a trace to close;
//   * the file is written under the name FILE.partial and renamed to FILE when
//     the trace is finished; a reader never takes an unfinished trace for a
//     finished one, and a process that dies leaves FILE.partial, whose every
//     line but the last one is a complete event (finishPartialTrace() closes it);
//   * each event is one line: "[" first, then events separated by ",\n", then
//     "]" when finished, so the file is strict JSON and a truncated one is a
//     valid prefix that the trace viewers also accept;
//   * a byte limit caps the file: the first event that would cross it is
//     dropped, and so is every later one; finish() then writes a note saying
//     how many were dropped (the closing events have a reserve of their own);
//   * the cap keeps whole arrows only: the first end of a flow is held back
//     until its second end comes, and the two are appended together or
//     dropped together. The caller appends each end after the slice it binds
//     to, so the cut, which keeps a prefix of what was appended, keeps an
//     arrow's slices whenever it keeps the arrow (a lone end, or an end bound
//     to no slice, is an error to the trace viewers). What is held is bounded
//     by the arrows in flight, and is let go at the cut.
//
// Not thread-safe: the recorder calls it under its lock.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_TIMELINE_TRACEEVENTWRITER_H
#define STREAMLIFE_RT_TIMELINE_TRACEEVENTWRITER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace streamlife {
namespace rt {

class TraceEventWriter {
public:
  TraceEventWriter() = default;
  TraceEventWriter(const TraceEventWriter &) = delete;
  TraceEventWriter &operator=(const TraceEventWriter &) = delete;
  /// Leaves FILE.partial as it is when finish() was never called.
  ~TraceEventWriter();

  /// Creates FILE.partial (replacing a stale one left by a dead process, never
  /// following a link) after checking that FILE can be replaced. ByteLimit 0
  /// means no limit. False with a one-line reason in Error.
  bool open(const std::string &Path, std::uint64_t ByteLimit, std::string &Error);
  bool isOpen() const { return Fd >= 0; }

  /// Appends one event (a JSON object, no separator). False when the byte
  /// limit dropped it.
  bool append(std::string_view Event);
  /// Appends one end ("s" or "f" event) of flow Id, after the slice it binds
  /// to: the first end is held, the second appends both, or drops both when
  /// they would cross the limit. False when the limit dropped it (or its
  /// pair). A held end whose flow never gets its second end is not written.
  bool appendFlowEnd(std::uint64_t Id, std::string_view Event);
  /// Writes the buffer out when it is older than the flush interval.
  void flushIfDue(std::uint64_t NowNs);
  /// Writes the buffer out now.
  void flushNow() { flush(); }
  /// Appends the closing events (outside the limit), closes the array,
  /// writes everything out and renames FILE.partial to FILE.
  bool finish(std::string_view ClosingEvents, std::string &Error);

  bool limitReached() const { return Dropped != 0; }
  /// First ends waiting for their second.
  std::size_t heldFlowEnds() const { return HeldFlowEnds.size(); }
  std::uint64_t droppedEvents() const { return Dropped; }
  std::uint64_t writtenEvents() const { return Events; }
  std::uint64_t bytes() const { return Bytes; }
  const std::string &path() const { return Path; }
  const std::string &partialPath() const { return Partial; }

private:
  bool flush();
  /// True when Add more bytes fit; else the cut: this and every later event
  /// are dropped (Count of them now), and so are the held flow ends.
  bool fits(std::size_t Add, std::uint64_t Count);
  /// Appends an event that fits.
  void put(std::string_view Event);

  std::string Path;
  std::string Partial;
  int Fd = -1;
  std::uint64_t Limit = 0;
  std::uint64_t Bytes = 0; ///< appended so far, separators included
  std::uint64_t Events = 0;
  std::uint64_t Dropped = 0;
  std::uint64_t LastFlushNs = 0;
  bool WriteFailed = false;
  std::string Buffer;
  /// Flow id -> its first end, until the second comes (empty after the cut).
  std::unordered_map<std::uint64_t, std::string> HeldFlowEnds;
};

/// The name a trace is written under until it is finished.
std::string partialTracePath(const std::string &Path);

/// Closes the trace a process left unfinished at Partial (it died before its
/// exit handlers ran): drops a last incomplete line, appends Note as a global
/// instant event, closes the array and renames it to its final name. False
/// with a reason when Partial is not a trace this writer started.
bool finishPartialTrace(const std::string &Partial, const std::string &Note, std::string &Error);

/// Appends Ns nanoseconds as trace-event microseconds ("12.345").
void appendMicros(std::string &Out, std::uint64_t Ns);

} // namespace rt
} // namespace streamlife

#endif
