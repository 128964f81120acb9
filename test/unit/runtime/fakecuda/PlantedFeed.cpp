//===- PlantedFeed.cpp - a feed library put into the feed cache by a test ---===//
//
// Stands for a libstreamlife_torch-<KEY>.so found in the cache folder. Its
// constructor says that it ran (a line appended to $PLANTED_FEED_MARKER), so a
// test can tell whether the validator loaded it; its attach entry point fails
// without giving a reason, as a feed whose attach threw an exception with an
// empty message would.
//
//===----------------------------------------------------------------------===//
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

__attribute__((constructor)) static void plantedFeedRan() {
  const char *Marker = std::getenv("PLANTED_FEED_MARKER");
  if (!Marker || !*Marker)
    return;
  int Fd = open(Marker, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (Fd < 0)
    return;
  static const char Line[] = "planted feed ran\n";
  ssize_t Ignored = write(Fd, Line, sizeof(Line) - 1);
  (void)Ignored;
  close(Fd);
}

extern "C" __attribute__((visibility("default"))) int streamlife_torch_attach(char *Why,
                                                                               std::size_t Size) {
  if (Size)
    Why[0] = '\0';
  return -1;
}
