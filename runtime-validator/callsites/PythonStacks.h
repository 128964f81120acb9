//===- PythonStacks.h - Python call sites without taking the GIL -*- C++ -*-===//
//
// In a Python program the call site a user wants is a Python line (`del w`,
// `out = x @ w`), not the libtorch frames under it. But the validator learns
// of an operation inside a CUDA callback or an allocator's trace tracker,
// where reading Python state is only safe while the thread holds the GIL, and
// PyTorch releases the GIL around most operators (the kernel launch of
// `x @ w` runs without it). Taking the GIL there could deadlock.
//
// So the Python stack is kept where reading it is always safe: a profile
// function (PyEval_SetProfile), installed on each Python thread by the
// sitecustomize module `streamlife run` puts on PYTHONPATH, runs with the GIL
// held at every Python call and return and maintains a per-thread shadow stack
// of (code, line) in plain memory. A caller's line is stored when it calls (it
// cannot change before that call returns); the innermost frame's line is read
// when a callback copies the stack, from the frame's own immutable line table
// (no Python object is touched, nothing is allocated, no GIL). Code objects
// are named (file, function) once, by the profile function, under the GIL.
//
// This is the fallback: the frame walker (PythonFrameWalker.h) reads the
// interpreter's frames at capture time instead and costs nothing between CUDA
// calls; the profile function is used where the walker does not know the
// interpreter's layout (or with python_frame_walker=0).
//
// Cost: one C call per Python call and return, none per line (a trace
// function with line events made Python-heavy training steps 1.5-3x slower);
// programs that install their own profiler (cProfile) replace ours on that
// thread and lose Python frames from then on.
//
// Python is found through dlsym in the running process; nothing here links
// against or includes Python.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CALLSITES_PYTHONSTACKS_H
#define STREAMLIFE_RT_CALLSITES_PYTHONSTACKS_H

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace streamlife {
namespace rt {

/// One Python frame: a code id (named by describePythonFrame) and a line.
struct PyFrameRef {
  std::uint32_t Code = 0; ///< 0: none
  std::uint32_t Line = 0;
  bool operator==(const PyFrameRef &O) const { return Code == O.Code && Line == O.Line; }
};

/// Most Python frames kept per call site.
constexpr int MaxPythonFrames = 32;

/// Copies the calling thread's Python stack, innermost first, from the frame
/// walker when it is active, else from the shadow stack; 0 when the thread
/// runs no Python code (or, with the profile function, none traced).
int capturePythonStack(PyFrameRef *Out, int Max);

struct PyFrameText {
  std::string File;
  std::string Function;
  std::uint32_t Line = 0;
};
PyFrameText describePythonFrame(PyFrameRef F);
/// "pipeline (/path/script.py:30)".
std::string formatPythonFrame(PyFrameRef F);
/// True for files of PyTorch's own Python package and of the standard library
/// (contextlib, threading...): frames a user does not want as the call site.
bool isLibraryPythonFile(std::string_view File);

/// Where Python stacks come from in this process.
enum class PythonStackSource {
  None,            ///< not a Python process
  FrameWalker,     ///< read from the interpreter's frames (PythonFrameWalker.h), every thread
  ProfileFunction, ///< the shadow stack of a profile function, installed per thread
};

/// Called by the sitecustomize module (through ctypes.PyDLL, GIL held) on the
/// main thread, and again on each new thread while the source is the profile
/// function. The first call tries the frame walker when TryWalker is set; when
/// it is refused, WalkerWhy says why and the profile function is installed on
/// the calling thread.
PythonStackSource attachPythonStacks(bool TryWalker, std::string &WalkerWhy);

namespace detail {
extern std::atomic<bool> PythonStacksAttached;
} // namespace detail

/// False until a stack source was attached (or a test set a shadow stack):
/// until then no thread has a Python stack, and every CUDA call of a native
/// program skips asking for one with a single load.
inline bool pythonStacksAttached() { return detail::PythonStacksAttached.load(std::memory_order_acquire); }

/// For tests: names a fake code object (as the tracer does on first sight).
std::uint32_t internPythonCode(const void *Code, std::string File, std::string Function);
/// A new code id named (File, Function), for code objects identified some
/// other way (the frame walker keys them without holding a reference).
std::uint32_t addPythonCode(std::string File, std::string Function);
/// For tests: replaces the calling thread's shadow stack (innermost last).
void setShadowStackForTesting(const PyFrameRef *Frames, int Count);

} // namespace rt
} // namespace streamlife

#endif
