//===- PythonStacks.cpp - the shadow-stack tracer and the code table -------===//
#include "callsites/PythonStacks.h"

#include "callsites/PythonApi.h"
#include "callsites/PythonFrameWalker.h"

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

namespace detail {
std::atomic<bool> PythonStacksAttached{false};
} // namespace detail

namespace {

// PyTrace_* values, unchanged since Python 2. A profile function sees calls
// and returns (of Python and C functions), never lines.
constexpr int TraceCall = 0, TraceReturn = 3;

/// Code objects seen by the tracer, named once. Entries are never removed: the
/// table keeps a reference to each code object, so its address is never reused
/// for another one.
struct CodeTable {
  std::mutex Lock;
  std::unordered_map<const void *, std::uint32_t> Ids;
  std::vector<PyFrameText> Names; ///< index = id - 1 (Line unused)
};
CodeTable &codes() {
  static CodeTable *Table = new CodeTable; // outlives exit-time reports
  return *Table;
}

struct ShadowFrame {
  const void *Frame = nullptr;
  PyFrameRef Ref;
};
/// The calling thread's Python stack, innermost last. Written only by the
/// tracer on this thread (GIL held), read only by this thread's callbacks.
thread_local std::vector<ShadowFrame> Shadow;
thread_local std::unordered_map<const void *, std::uint32_t> LocalCodeIds;

std::string stringAttribute(const PythonApi &Py, PyObj *Object, const char *Name) {
  PyObj *Value = Py.GetAttrString(Object, Name);
  if (!Value) {
    Py.ErrClear();
    return "?";
  }
  const char *Text = Py.UnicodeAsUTF8(Value);
  std::string Result = Text ? Text : "?";
  if (!Text)
    Py.ErrClear();
  Py.DecRef(Value);
  return Result;
}

/// The id of Frame's code object; names it on first sight. GIL held.
std::uint32_t codeIdOf(const PythonApi &Py, PyObj *Frame) {
  PyObj *Code = Py.FrameGetCode(Frame);
  if (!Code)
    return 0;
  if (auto It = LocalCodeIds.find(Code); It != LocalCodeIds.end()) {
    Py.DecRef(Code);
    return It->second;
  }
  std::uint32_t Id;
  {
    CodeTable &T = codes();
    std::unique_lock<std::mutex> Guard(T.Lock);
    auto It = T.Ids.find(Code);
    if (It != T.Ids.end()) {
      Id = It->second;
    } else {
      Guard.unlock(); // attribute lookups run Python code paths; never under our lock
      std::string File = stringAttribute(Py, Code, "co_filename");
      std::string Function = stringAttribute(Py, Code, "co_name");
      Py.IncRef(Code); // kept for the life of the process (see CodeTable)
      Id = internPythonCode(Code, std::move(File), std::move(Function));
    }
  }
  Py.DecRef(Code);
  LocalCodeIds.emplace(Code, Id);
  return Id;
}

PyFrameRef refOf(const PythonApi &Py, PyObj *Frame) {
  PyFrameRef R;
  R.Code = codeIdOf(Py, Frame);
  int Line = Py.FrameGetLineNumber(Frame);
  R.Line = Line > 0 ? static_cast<std::uint32_t>(Line) : 0;
  return R;
}

/// Rebuilds the shadow stack from the live frames (the tracer was installed
/// mid-stack, or a generator switched frames). GIL held.
void resync(const PythonApi &Py, PyObj *Frame) {
  std::vector<ShadowFrame> Stack;
  PyObj *F = Frame;
  Py.IncRef(F);
  while (F && Stack.size() < 256) {
    Stack.push_back(ShadowFrame{F, refOf(Py, F)});
    PyObj *Back = Py.FrameGetBack(F);
    Py.DecRef(F);
    F = Back;
  }
  if (F)
    Py.DecRef(F);
  Shadow.assign(Stack.rbegin(), Stack.rend());
}

/// The profile function: keeps the shadow stack in step with Python calls and
/// returns. Line events are not asked for: a trace function that runs on
/// every line slows the whole program down (and, from Python 3.12, makes the
/// interpreter instrument every line). A caller's line is read once, when it
/// calls a Python function (it cannot change until that call returns); the
/// innermost frame's line is read when a CUDA call captures the stack.
int onProfile(PyObj *, PyObj *Frame, int What, PyObj *) {
  const PythonApi &Py = pythonApi();
  switch (What) {
  case TraceCall:
    if (Shadow.empty()) {
      resync(Py, Frame); // attached mid-stack: learn the callers too
    } else {
      ShadowFrame &Caller = Shadow.back();
      int Line = Py.FrameGetLineNumber(const_cast<void *>(Caller.Frame));
      Caller.Ref.Line = Line > 0 ? static_cast<std::uint32_t>(Line) : 0;
      Shadow.push_back(ShadowFrame{Frame, refOf(Py, Frame)});
    }
    break;
  case TraceReturn:
    if (Shadow.empty() || Shadow.back().Frame != Frame)
      resync(Py, Frame);
    if (!Shadow.empty())
      Shadow.pop_back();
    break;
  default: // C calls and returns, exceptions: the Python stack is unchanged
    break;
  }
  return 0;
}

} // namespace

int capturePythonStack(PyFrameRef *Out, int Max) {
  if (pythonFrameWalkerActive())
    return walkPythonStack(Out, Max);
  int N = 0;
  for (auto It = Shadow.rbegin(); It != Shadow.rend() && N < Max; ++It)
    Out[N++] = It->Ref;
  // The innermost frame is where the CUDA call comes from: its line now. The
  // GIL may be released here (PyTorch's bindings release it around ops), but
  // the frame is this thread's own, live and not running, and reading its
  // line only reads its code object's immutable line table.
  if (N > 0 && Shadow.back().Frame) {
    int Line = pythonApi().FrameGetLineNumber(const_cast<void *>(Shadow.back().Frame));
    Out[0].Line = Line > 0 ? static_cast<std::uint32_t>(Line) : 0;
  }
  return N;
}

std::uint32_t addPythonCode(std::string File, std::string Function) {
  CodeTable &T = codes();
  std::lock_guard<std::mutex> Guard(T.Lock);
  T.Names.push_back(PyFrameText{std::move(File), std::move(Function), 0});
  return static_cast<std::uint32_t>(T.Names.size());
}

std::uint32_t internPythonCode(const void *Code, std::string File, std::string Function) {
  CodeTable &T = codes();
  std::lock_guard<std::mutex> Guard(T.Lock);
  auto [It, New] = T.Ids.emplace(Code, static_cast<std::uint32_t>(T.Names.size() + 1));
  if (New)
    T.Names.push_back(PyFrameText{std::move(File), std::move(Function), 0});
  return It->second;
}

PyFrameText describePythonFrame(PyFrameRef F) {
  CodeTable &T = codes();
  std::lock_guard<std::mutex> Guard(T.Lock);
  PyFrameText Text;
  if (F.Code > 0 && F.Code <= T.Names.size())
    Text = T.Names[F.Code - 1];
  Text.Line = F.Line;
  return Text;
}

std::string formatPythonFrame(PyFrameRef F) {
  PyFrameText T = describePythonFrame(F);
  std::string Where = "(" + (T.File.empty() ? std::string("<unknown file>") : T.File) + ":" +
                      std::to_string(T.Line) + ")";
  return T.Function.empty() ? Where : T.Function + " " + Where;
}

bool isLibraryPythonFile(std::string_view File) {
  if (File.empty() || File.front() == '<') // <frozen importlib._bootstrap>, <string>
    return true;
  // The frameworks whose allocators and launches the validator models: the
  // user's line that called into them is the call site (site- or dist-packages).
  for (std::string_view Framework : {"-packages/torch/", "-packages/cupy/", "-packages/cupyx/",
                                     "-packages/cupy_backends/"})
    if (File.find(Framework) != std::string_view::npos)
      return true;
  // The validator's own sitecustomize (the CuPy feed's hooks run in it).
  constexpr std::string_view Ours = "/streamlife/python/sitecustomize.py";
  if (File.size() >= Ours.size() && File.substr(File.size() - Ours.size()) == Ours)
    return true;
  // The standard library: .../lib/python3.X/<module>.py, not a site-packages below it.
  std::size_t Lib = File.find("/lib/python3");
  return Lib != std::string_view::npos && File.find("-packages/", Lib) == std::string_view::npos;
}

PythonStackSource attachPythonStacks(bool TryWalker, std::string &WalkerWhy) {
  const PythonApi &Py = pythonApi();
  if (!Py.ProfileOk)
    return PythonStackSource::None;
  if (pythonFrameWalkerActive())
    return PythonStackSource::FrameWalker;
  // Only the first call tries: a refusal does not change on other threads.
  static std::atomic<bool> Tried{false};
  if (TryWalker && !Tried.exchange(true) && calibratePythonFrameWalker(WalkerWhy)) {
    detail::PythonStacksAttached.store(true, std::memory_order_release);
    return PythonStackSource::FrameWalker;
  }
  Shadow.clear();
  detail::PythonStacksAttached.store(true, std::memory_order_release); // before the first traced frame
  Py.SetProfile(onProfile, nullptr);
  return PythonStackSource::ProfileFunction;
}

void setShadowStackForTesting(const PyFrameRef *Frames, int Count) {
  detail::PythonStacksAttached.store(true, std::memory_order_release);
  Shadow.clear();
  for (int I = 0; I < Count; ++I)
    Shadow.push_back(ShadowFrame{nullptr, Frames[I]});
}

} // namespace rt
} // namespace streamlife
