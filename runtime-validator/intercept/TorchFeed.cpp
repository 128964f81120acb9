//===- TorchFeed.cpp - feed PyTorch's caching allocator into the engine ----===//
//
// PyTorch's default CUDA allocator cudaMallocs large segments once and hands
// out blocks from them; frees and reuse never reach the CUDA API, so without
// this feed a PyTorch program's cross-stream lifetime bugs are invisible.
//
// Mechanism (measured on the H200 machine, torch 2.11+cu130; see README):
//   1. Trigger: the first cuMemAlloc (or, with expandable segments,
//      cuMemAddressReserve / cuMemCreate) made while libc10_cuda.so is loaded.
//      PyTorch's first segment allocation happens inside its allocator, which
//      exists and is initialized by then: a tracker attached before
//      torch.cuda.init() would be silently dropped (runtime-notes section 8),
//      one attached here sees the ALLOC of the very block this segment is for.
//      The allocator's lock is a recursive mutex, and we run on the thread
//      that holds it.
//   2. The feed (runtime-validator/torch/TorchAllocatorFeed.cpp, embedded in
//      this library) is compiled with the system C++ compiler against the
//      installed torch's own headers, once per torch build: the cache key is
//      torch's version and git hash, the C++ ABI of libc10, the size and time
//      of libc10_cuda.so, the compiler and the feed's source. The result is
//      cached in the cache_dir option, $XDG_CACHE_HOME/streamlife,
//      ~/.cache/streamlife, $XDG_RUNTIME_DIR/streamlife or, last,
//      ${TMPDIR:-/tmp}/streamlife-cache-<uid>; later runs only dlopen it.
//      Whoever can write a cached feed runs code in every validated program
//      (as root when root runs one), so the cache folder and each feed are
//      used only when private to this user (support/PrivatePaths.h), the
//      folder is created 0700, the build happens in a fresh mkdtemp folder,
//      and what is loaded is the descriptor that was checked.
//   3. The feed registers the allocator through the public annotation
//      interface and attaches a trace tracker; ALLOC / FREE_REQUESTED /
//      FREE_COMPLETED become annotation events, queued under the allocator's
//      lock and replayed at the next CUDA call (Annotations.cpp).
// With backend:cudaMallocAsync there is nothing to feed: the driver's
// stream-ordered allocator is intercepted directly. Without PyTorch nothing
// happens; when anything fails we say so once and go on with raw CUDA.
//
//===----------------------------------------------------------------------===//
#include "intercept/TorchFeed.h"

#include "config/Options.h"
#include "report/CallSiteNames.h"

#include "support/PrivatePaths.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char **environ;

namespace streamlife {
namespace rt {

namespace {

// TorchAllocatorFeedSource and AnnotationsHeaderSource, generated at build time.
#include "TorchFeedSource.inc"

enum TorchFeedState : int {
  TorchFeedWaiting = 0, ///< no PyTorch (yet), or its allocator is not initialized
  TorchFeedAttached,    ///< the trace tracker feeds the annotation queue
  TorchFeedNotNeeded,   ///< PyTorch uses cudaMallocAsync: the CUDA API shows everything
  TorchFeedFailed,      ///< said so once; raw CUDA is still validated
};
std::atomic<int> FeedState{TorchFeedWaiting};

std::uint64_t fnv(std::uint64_t H, const std::string &Text) {
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

bool exists(const std::string &Path) { return access(Path.c_str(), F_OK) == 0; }

/// Writes Text to a new file Path (never through a planted name or link).
bool writeNewFile(const std::string &Path, const std::string &Text) {
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (Fd < 0)
    return false;
  std::size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = ::write(Fd, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Done += static_cast<std::size_t>(N);
  }
  return ::close(Fd) == 0 && Done == Text.size();
}

/// "2.11.0+cu130" from torch/version.py's `__version__ = '2.11.0+cu130'`.
std::string pythonAssignment(const std::string &Text, const std::string &Name) {
  std::size_t At = Text.find("\n" + Name + " ");
  if (At == std::string::npos && Text.compare(0, Name.size(), Name) == 0)
    At = 0;
  else if (At != std::string::npos)
    ++At;
  if (At == std::string::npos)
    return "";
  std::size_t Open = Text.find_first_of("'\"", At);
  std::size_t Eol = Text.find('\n', At);
  if (Open == std::string::npos || Open > Eol)
    return "";
  std::size_t Close = Text.find(Text[Open], Open + 1);
  return Close == std::string::npos ? "" : Text.substr(Open + 1, Close - Open - 1);
}

std::string cacheDirectory(const Options &Opts) {
  if (!Opts.cache_dir.empty())
    return Opts.cache_dir;
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
    return std::string(Xdg) + "/streamlife";
  if (const char *Home = std::getenv("HOME"); Home && *Home)
    return std::string(Home) + "/.cache/streamlife";
  // No home (systemd units, cron, env -i): the per-user runtime folder, else
  // a folder of our own in the temporary folder, created 0700 and refused
  // when someone else made it first.
  if (const char *Runtime = std::getenv("XDG_RUNTIME_DIR"); Runtime && *Runtime)
    return std::string(Runtime) + "/streamlife";
  const char *Tmp = std::getenv("TMPDIR");
  return std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/streamlife-cache-" + std::to_string(geteuid());
}

/// Runs Argv with our preload and options removed from the environment (the
/// compiler is not the program under validation); output goes to Log.
int runQuietly(const std::vector<std::string> &Argv, const std::string &Log) {
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E)
    if (std::strncmp(*E, "LD_PRELOAD=", 11) && std::strncmp(*E, "STREAMLIFE_OPTIONS=", 19))
      Env.emplace_back(*E);
  std::vector<char *> EnvP, ArgP;
  for (std::string &E : Env)
    EnvP.push_back(E.data());
  EnvP.push_back(nullptr);
  for (const std::string &A : Argv)
    ArgP.push_back(const_cast<char *>(A.c_str()));
  ArgP.push_back(nullptr);
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, 1, Log.c_str(),
                                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_adddup2(&Actions, 1, 2);
  pid_t Child;
  int Rc = posix_spawnp(&Child, ArgP[0], &Actions, nullptr, ArgP.data(), EnvP.data());
  posix_spawn_file_actions_destroy(&Actions);
  if (Rc != 0)
    return -1;
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

struct TorchInstall {
  std::string Root;    ///< .../site-packages/torch
  std::string Version; ///< "2.11.0+cu130"
  std::string Key;     ///< cache key (hex)
  int CxxAbi = 1;
};

bool findTorch(void *C10Cuda, TorchInstall &T, const Options &Opts, std::string &Why) {
  link_map *Map = nullptr;
  if (dlinfo(C10Cuda, RTLD_DI_LINKMAP, &Map) != 0 || !Map || !Map->l_name) {
    Why = "cannot locate libc10_cuda.so";
    return false;
  }
  std::string Lib = Map->l_name;
  std::size_t Slash = Lib.rfind('/');
  std::string LibDir = Slash == std::string::npos ? "." : Lib.substr(0, Slash);
  T.Root = LibDir.substr(0, LibDir.rfind('/'));
  if (!exists(T.Root + "/include/c10/cuda/CUDACachingAllocator.h")) {
    Why = "no PyTorch C++ headers under " + T.Root + "/include";
    return false;
  }
  std::string VersionPy = readFile(T.Root + "/version.py");
  T.Version = pythonAssignment(VersionPy, "__version__");
  std::string Git = pythonAssignment(VersionPy, "git_version");
  // std::string in C++ signatures: new ABI names it std::__cxx11::basic_string.
  void *C10 = dlopen("libc10.so", RTLD_LAZY | RTLD_NOLOAD);
  T.CxxAbi = C10 && dlsym(C10, "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_"
                                "stringIcSt11char_traitsIcESaIcEEE")
                 ? 1
                 : 0;
  if (C10)
    dlclose(C10);
  struct stat St {};
  stat(Lib.c_str(), &St);
  std::uint64_t H = 1469598103934665603ull;
  for (const std::string &Part :
       {std::string(TorchAllocatorFeedSource), std::string(AnnotationsHeaderSource), T.Version, Git,
        std::to_string(T.CxxAbi), std::to_string(St.st_size), std::to_string(St.st_mtime),
        Opts.cxx})
    H = fnv(H, Part + '\0');
  char Hex[17];
  std::snprintf(Hex, sizeof(Hex), "%016llx", static_cast<unsigned long long>(H));
  T.Key = Hex;
  return true;
}

std::vector<std::string> cudaIncludeDirectories(const TorchInstall &T) {
  std::vector<std::string> Candidates = {STREAMLIFE_CUDA_INCLUDE_DIR};
  for (const char *Env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *Root = std::getenv(Env); Root && *Root)
      Candidates.push_back(std::string(Root) + "/include");
  Candidates.push_back("/usr/local/cuda/include");
  std::string SitePackages = T.Root.substr(0, T.Root.rfind('/'));
  for (const char *Wheel : {"/nvidia/cu13/include", "/nvidia/cuda_runtime/include"})
    Candidates.push_back(SitePackages + Wheel);
  std::vector<std::string> Found;
  for (const std::string &Dir : Candidates)
    if (exists(Dir + "/cuda_runtime_api.h"))
      Found.push_back(Dir);
  return Found;
}

/// Opens the cached feed for loading when it is there and private to this
/// user: the descriptor, -1 when it is missing (Why empty) or refused.
int openCachedFeed(const std::string &Library, std::string &Why) {
  bool Missing = false;
  int Fd = openPrivateFile(Library, Why, &Missing);
  if (Fd < 0 && Missing)
    Why.clear();
  else if (Fd < 0)
    Why = "refusing to load the cached feed: " + Why;
  return Fd;
}

/// Compiles the feed into a fresh private folder in Dir and renames it to
/// Library. False with a reason.
bool compileFeed(const InterceptContext &I, const TorchInstall &T, const std::string &Dir,
                 const std::string &Library, std::string &Why) {
  std::string Work = Dir + "/build-" + T.Key + "-XXXXXX";
  if (!mkdtemp(Work.data())) {
    Why = "cannot create a build folder in " + Dir + ": " + std::strerror(errno);
    return false;
  }
  std::string Source = Work + "/TorchAllocatorFeed.cpp";
  std::string Header = Work + "/streamlife/annotations.h";
  if (mkdir((Work + "/streamlife").c_str(), 0700) != 0 ||
      !writeNewFile(Source, TorchAllocatorFeedSource) ||
      !writeNewFile(Header, AnnotationsHeaderSource)) {
    Why = "cannot write the feed's source in " + Work + ": " + std::strerror(errno);
    return false;
  }
  std::string Temp = Work + "/libstreamlife_torch.so";
  std::vector<std::string> Argv = {I.options().cxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-w",
                                   "-D_GLIBCXX_USE_CXX11_ABI=" + std::to_string(T.CxxAbi),
                                   "-I" + Work, "-I" + T.Root + "/include"};
  for (const std::string &Include : cudaIncludeDirectories(T))
    Argv.push_back("-I" + Include);
  for (const std::string &Arg :
       {Source, std::string("-o"), Temp, "-L" + T.Root + "/lib", std::string("-lc10_cuda"),
        std::string("-lc10"), "-Wl,-rpath," + T.Root + "/lib"})
    Argv.push_back(Arg);
  auto Start = std::chrono::steady_clock::now();
  std::string Log = Work + "/compile.log";
  int Rc = runQuietly(Argv, Log);
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  // The linker gives 0777 less the umask; a cached feed is the user's alone.
  if (Rc != 0 || chmod(Temp.c_str(), 0700) != 0 ||
      std::rename(Temp.c_str(), Library.c_str()) != 0) {
    Why = "compiling the allocator feed with '" + I.options().cxx + "' failed (" +
          (Rc < 0 ? std::string("could not run it") : "exit " + std::to_string(Rc)) + "; see " +
          Log + ")";
    return false;
  }
  for (const std::string &Done : {Source, Header, Log})
    unlink(Done.c_str());
  rmdir((Work + "/streamlife").c_str());
  rmdir(Work.c_str());
  char Text[64];
  std::snprintf(Text, sizeof(Text), "%.1f", Seconds);
  I.note("compiled the PyTorch allocator feed for torch " +
                (T.Version.empty() ? std::string("(unknown version)") : T.Version) + " in " +
                Text + " s; cached as " + Library);
  return true;
}

/// A descriptor of the cached feed for this torch (compiled now if needed),
/// checked to be private to this user; -1 with a reason on failure.
int buildFeed(const InterceptContext &I, const TorchInstall &T, std::string &Library, std::string &Why) {
  std::string Dir = cacheDirectory(I.options());
  if (!makePrivateDirectory(Dir, Why)) {
    Why = "the feed cache folder is not private to this user (" + Why +
          "; a feed there could have been planted by someone else: set cache_dir to a folder of "
          "your own)";
    return -1;
  }
  Library = Dir + "/libstreamlife_torch-" + T.Key + ".so";
  int Fd = openCachedFeed(Library, Why);
  if (Fd >= 0 || !Why.empty())
    return Fd;
  if (!compileFeed(I, T, Dir, Library, Why))
    return -1;
  return openCachedFeed(Library, Why);
}

/// One attempt; returns the new state.
int attach(const InterceptContext &I, void *C10Cuda) {
  std::string Why;
  TorchInstall T;
  if (!findTorch(C10Cuda, T, I.options(), Why))
    return I.note("PyTorch's caching allocator is not validated: " + Why +
                         "; raw CUDA calls still are"),
           TorchFeedFailed;
  std::string Library;
  int Fd = buildFeed(I, T, Library, Why);
  // What was checked is what is loaded: the open descriptor, not the name.
  // The descriptor stays open: ld.so knows the feed by this name, and a later
  // dlopen of the same /proc/self/fd path (by the program, of a descriptor
  // reusing the number) would otherwise be handed our feed.
  std::string FdPath = "/proc/self/fd/" + std::to_string(Fd);
  void *Feed = Fd < 0 ? nullptr : dlopen(FdPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (Fd >= 0 && !Feed)
    ::close(Fd);
  using AttachFn = int (*)(char *, std::size_t);
  auto Attach = Feed ? reinterpret_cast<AttachFn>(dlsym(Feed, "streamlife_torch_attach")) : nullptr;
  // The feed's frames and locks are the validator's, whatever ld.so calls it
  // (the first descriptor's path, if an earlier attempt loaded it): noted
  // before its first line runs.
  Dl_info FeedInfo;
  if (Attach && dladdr(reinterpret_cast<void *>(Attach), &FeedInfo) && FeedInfo.dli_fname)
    noteValidatorModule(FeedInfo.dli_fname);
  if (!Attach) {
    if (Why.empty())
      Why = std::string("cannot load ") + Library + ": " + (Feed ? "no entry point" : dlerror());
    I.note("PyTorch's caching allocator is not validated: " + Why +
                  "; raw CUDA calls still are");
    return TorchFeedFailed;
  }
  char Message[512] = "";
  int Code = Attach(Message, sizeof(Message));
  Message[sizeof(Message) - 1] = '\0';
  switch (Code) {
  case 1:
    if (I.options().verbosity > 0)
      I.note("attached to PyTorch's caching allocator (torch " + T.Version +
                    ") through its allocator trace tracker");
    return TorchFeedAttached;
  case 0:
    return TorchFeedWaiting; // not initialized yet: the next trigger tries again
  case 2:
    if (I.options().verbosity > 0)
      I.note(std::string("PyTorch uses the ") + (*Message ? Message : "(unnamed)") +
                    " allocator backend: its blocks are validated through the CUDA API");
    return TorchFeedNotNeeded;
  default:
    // The feed names its reason; a failure it did not explain (an exception
    // with an empty what(), a code it should not return) still says which.
    I.note("PyTorch's caching allocator is not validated: " +
                  (*Message ? std::string(Message)
                            : "the allocator feed's attach failed with code " +
                                  std::to_string(Code) + " and gave no reason") +
                  "; raw CUDA calls still are");
    return TorchFeedFailed;
  }
}

} // namespace

void maybeAttachTorchFeed(const InterceptContext &I) {
  if (FeedState.load(std::memory_order_acquire) != TorchFeedWaiting || !I.options().torch_feed)
    return;
  static std::atomic<bool> Busy{false};
  if (Busy.exchange(true))
    return; // another thread is attaching
  if (void *C10Cuda = dlopen("libc10_cuda.so", RTLD_LAZY | RTLD_NOLOAD)) {
    FeedState.store(attach(I, C10Cuda), std::memory_order_release);
    dlclose(C10Cuda);
  }
  Busy.store(false);
}

bool torchFeedAttached() { return FeedState.load(std::memory_order_relaxed) == TorchFeedAttached; }

} // namespace rt
} // namespace streamlife
