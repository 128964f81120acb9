//===- AtomicFileTest.cpp - safe replacement of output files --------------===//
#include "support/AtomicFile.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace streamlife;

namespace {

class AtomicFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Pattern = ::testing::TempDir() + "atomicfile.XXXXXX";
    ASSERT_NE(mkdtemp(Pattern.data()), nullptr);
    Dir = Pattern;
  }
  void TearDown() override {
    for (const std::string &Name : entries())
      std::remove((Dir + "/" + Name).c_str());
    rmdir(Dir.c_str());
  }
  std::string path(const char *Name) const { return Dir + "/" + Name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> Names;
    if (DIR *D = opendir(Dir.c_str())) {
      while (dirent *E = readdir(D))
        if (std::string(E->d_name) != "." && std::string(E->d_name) != "..")
          Names.push_back(E->d_name);
      closedir(D);
    }
    return Names;
  }
  static std::string read(const std::string &Path) {
    std::ifstream In(Path);
    std::stringstream S;
    S << In.rdbuf();
    return S.str();
  }
  static void write(const std::string &Path, const std::string &Text) { std::ofstream(Path) << Text; }
  std::string Dir;
};

TEST_F(AtomicFileTest, CreatesAndReplacesRegularFiles) {
  std::string Error;
  ASSERT_TRUE(writeFileAtomically(path("r.json"), "one", Error)) << Error;
  EXPECT_EQ(read(path("r.json")), "one");
  ASSERT_TRUE(writeFileAtomically(path("r.json"), "two", Error)) << Error;
  EXPECT_EQ(read(path("r.json")), "two");
  EXPECT_EQ(entries(), std::vector<std::string>{"r.json"}); // no temporary left
}

TEST_F(AtomicFileTest, TargetIsUntouchedUntilCommit) {
  write(path("r.txt"), "previous");
  {
    AtomicFile File;
    std::string Error;
    ASSERT_TRUE(File.open(path("r.txt"), Error)) << Error;
    ASSERT_TRUE(File.write("new", Error));
    EXPECT_EQ(read(path("r.txt")), "previous");
    EXPECT_EQ(entries().size(), 2u); // the temporary beside it
  } // destroyed without commit: discarded
  EXPECT_EQ(read(path("r.txt")), "previous");
  EXPECT_EQ(entries(), std::vector<std::string>{"r.txt"});
}

TEST_F(AtomicFileTest, RefusesSymlinksAndLeavesThemAlone) {
  write(path("target"), "precious");
  ASSERT_EQ(symlink("target", path("link").c_str()), 0);
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(path("link"), "report", Error));
  EXPECT_EQ(Error, "is a symbolic link; name the file itself");
  EXPECT_EQ(read(path("target")), "precious");
  struct stat St;
  ASSERT_EQ(lstat(path("link").c_str(), &St), 0);
  EXPECT_TRUE(S_ISLNK(St.st_mode));
}

TEST_F(AtomicFileTest, RefusesFifosAndDirectories) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(path("fifo"), "x", Error));
  EXPECT_EQ(Error, "is a FIFO, not a regular file");
  EXPECT_FALSE(writeFileAtomically(Dir, "x", Error));
  EXPECT_EQ(Error, "is a directory");
  EXPECT_EQ(whyNotReplaceable("/dev/null"), "is a device, not a regular file");
}

TEST_F(AtomicFileTest, NeverFollowsAPlantedTemporaryName) {
  // The old writer used the fixed name "<report>.tmp", which anyone able to
  // write to the folder could plant as a link to a victim's file.
  write(path("victim"), "precious");
  ASSERT_EQ(symlink("victim", path("r.json.tmp").c_str()), 0);
  std::string Error;
  ASSERT_TRUE(writeFileAtomically(path("r.json"), "report", Error)) << Error;
  EXPECT_EQ(read(path("victim")), "precious");
  EXPECT_EQ(read(path("r.json")), "report");
}

TEST_F(AtomicFileTest, NewFileGetsTheUmaskModeAndAReplacedFileKeepsItsMode) {
  std::string Error;
  mode_t Old = umask(022);
  ASSERT_TRUE(writeFileAtomically(path("new"), "x", Error)) << Error;
  umask(Old);
  struct stat St;
  ASSERT_EQ(stat(path("new").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0644u);
  ASSERT_EQ(chmod(path("new").c_str(), 0640), 0);
  ASSERT_TRUE(writeFileAtomically(path("new"), "y", Error)) << Error;
  ASSERT_EQ(stat(path("new").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0640u);
}

// The rename needs only a writable folder: without these refusals a
// read-only file would be rewritten, and a hard link split from its twins.
TEST_F(AtomicFileTest, RefusesReadOnlyFiles) {
  write(path("vendored.cu"), "precious");
  ASSERT_EQ(chmod(path("vendored.cu").c_str(), 0444), 0);
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(path("vendored.cu"), "fixed", Error));
  EXPECT_EQ(Error, "is read-only (make it writable to let it be replaced)");
  EXPECT_EQ(read(path("vendored.cu")), "precious");
  EXPECT_EQ(entries(), std::vector<std::string>{"vendored.cu"});
}

TEST_F(AtomicFileTest, RefusesToSplitHardLinks) {
  write(path("a.cu"), "precious");
  ASSERT_EQ(link(path("a.cu").c_str(), path("b.cu").c_str()), 0);
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(path("a.cu"), "fixed", Error));
  EXPECT_EQ(Error, "has 2 hard links, which a replacement would split (the other names would keep "
                   "the old contents)");
  EXPECT_EQ(read(path("a.cu")), "precious");
  EXPECT_EQ(entries().size(), 2u);
}

// Run as root (a CI container fixing a developer's bind-mounted checkout),
// the replacement keeps the file's owner and group; and another user's file
// in a sticky shared folder (/tmp) is not replaced at all.
TEST_F(AtomicFileTest, KeepsOwnerAndGroup) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give a file to another user";
  write(path("src.cu"), "old");
  ASSERT_EQ(chown(path("src.cu").c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(path("src.cu").c_str(), 0600), 0);
  std::string Error;
  ASSERT_TRUE(writeFileAtomically(path("src.cu"), "new", Error)) << Error;
  struct stat St;
  ASSERT_EQ(stat(path("src.cu").c_str(), &St), 0);
  EXPECT_EQ(St.st_uid, 65534u);
  EXPECT_EQ(St.st_gid, 65534u);
  EXPECT_EQ(St.st_mode & 07777, 0600u);
  EXPECT_EQ(read(path("src.cu")), "new");
}

TEST_F(AtomicFileTest, RefusesAnotherUsersFileInAStickyFolder) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give a file to another user";
  write(path("r.json"), "theirs");
  ASSERT_EQ(chown(path("r.json").c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(Dir.c_str(), 01777), 0);
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(path("r.json"), "ours", Error));
  EXPECT_EQ(Error, "belongs to another user (uid 65534) in a shared folder; name a file of your own");
  EXPECT_EQ(read(path("r.json")), "theirs");
  ASSERT_EQ(chmod(Dir.c_str(), 0700), 0);
}

TEST_F(AtomicFileTest, MissingFolderIsAClearError) {
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(path("nope/r.json"), "x", Error));
  EXPECT_EQ(Error, "No such file or directory");
}

} // namespace
