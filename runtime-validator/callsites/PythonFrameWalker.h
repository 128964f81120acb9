//===- PythonFrameWalker.h - Python stacks read from the interpreter -*- C++ -*-===//
//
// The cheap way to a Python call site. The profile-function tracer
// (PythonStacks.h) pays one C call per Python call and return whether or not a
// CUDA call ever follows; on a Python-heavy training step (FSDP2: about 135k
// Python calls per step) that was most of the validator's cost. The walker
// pays nothing between CUDA calls: when one is captured, it reads the calling
// thread's own interpreter frames (PyThreadState -> current _PyInterpreterFrame
// -> previous...), as profilers such as py-spy do from outside the process.
//
// Why reading them without the GIL is safe: the frames read are the calling
// thread's own, suspended below the C call that is being captured (PyTorch
// releases the GIL around its ops, but this thread cannot pop or push a frame
// until the capture returns); their code objects are kept alive by the frames;
// code objects, their names and line tables are immutable. Nothing is
// allocated in Python and no reference count is touched.
//
// Why it cannot misread: the frame layout is private to CPython and changes
// between minor versions. The walker knows 3.11, 3.12 and 3.13 (release
// builds with the GIL), and at start-up, under the GIL, it learns the offsets
// it cannot know from the version (where the thread state keeps the current
// frame, where a code object keeps its name), reading candidate memory with
// process_vm_readv so that a wrong guess fails instead of crashing, and then
// walks the start-up stack with the very code used at capture time and demands
// the same code objects, names and lines as the C API's own walk
// (PyEval_GetFrame, PyFrame_GetBack, PyFrame_GetLineNumber). Any difference,
// or another version, leaves the walker off and the profile function on.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CALLSITES_PYTHONFRAMEWALKER_H
#define STREAMLIFE_RT_CALLSITES_PYTHONFRAMEWALKER_H

#include "callsites/PythonStacks.h"

#include <cstddef>
#include <cstdint>

#include <string>

namespace streamlife {
namespace rt {

/// Learns and verifies the running interpreter's frame layout. The calling
/// thread must hold the GIL and run Python code (the sitecustomize module
/// calls it through ctypes.PyDLL). On success the walker is active for every
/// thread from then on; on failure Why says what did not match.
bool calibratePythonFrameWalker(std::string &Why);

/// True once calibratePythonFrameWalker succeeded.
bool pythonFrameWalkerActive();

/// "CPython 3.12" after a successful calibration.
std::string pythonFrameWalkerVersion();

/// Copies the calling thread's Python stack, innermost first, without the
/// GIL; 0 when the walker is off or the thread runs no Python code.
int walkPythonStack(PyFrameRef *Out, int Max);

/// One frame as the walker reads it, before it is named: everything its
/// PyFrameRef is made from (the code object with its immutable name objects,
/// which identify it, and the instruction index), so that equal raw frames name
/// equal PyFrameRefs. No padding and no initializers: stacks of them compare
/// with memcmp, and a capture's array of 32 is filled, never cleared.
struct RawPythonFrame {
  const void *Code, *File, *Name;
  std::int64_t Lasti;
};
/// walkPythonStack in two steps: the raw frames (a few loads each), with
/// Hash = hashRawPythonFrames(Out, N) computed as they are read...
int walkRawPythonStack(RawPythonFrame *Out, int Max, std::uint64_t &Hash);
/// ...and their names (code ids and lines), N of them into Out.
void describeRawPythonStack(const RawPythonFrame *Raw, int N, PyFrameRef *Out);
/// walkRawPythonStack compared with a stack read before (Expected, ExpectedN
/// frames: a remembered one) as it goes: Same when the thread's frames are
/// exactly those (then Out and Hash are not filled: the caller has them), or
/// else N, Out and Hash as walkRawPythonStack gives them. A stack that matches
/// costs no stores, no hash and no memcmp afterwards (PythonCallSites.h).
int walkRawPythonStackExpecting(const RawPythonFrame *Expected, int ExpectedN, RawPythonFrame *Out, int Max,
                                std::uint64_t &Hash, bool &Same);

/// What a remembered raw stack is looked up by (PythonCallSites.h): its code
/// objects and instructions, frame by frame. The walk mixes each frame in as it
/// reads it, so that a capture passes over its frames once.
constexpr std::uint64_t RawPythonStackSeed = 0x9E3779B97F4A7C15ull;
inline std::uint64_t mixRawPythonFrame(std::uint64_t H, const void *Code, std::int64_t Lasti) {
  // A multiply and a rotate per frame: the product's well-mixed high bits come
  // down to where the next frame and the slot index read them.
  H = (H ^ reinterpret_cast<std::uintptr_t>(Code) ^ static_cast<std::uint64_t>(Lasti) << 40) * 0xBF58476D1CE4E5B9ull;
  return H << 29 | H >> 35;
}
/// The same hash from frames already read (the reference the walk must match).
std::uint64_t hashRawPythonFrames(const RawPythonFrame *Raw, int N);

/// For tests: where a synthetic interpreter keeps what calibration measures
/// (the frame fields themselves are CPython 3.Minor's).
struct SyntheticPythonLayout {
  int Minor = 12;
  std::ptrdiff_t ThreadFrameSlot = 0, CFrameCurrent = -1; ///< -1: the slot holds the frame
  const void *CodeType = nullptr;
  std::ptrdiff_t CodeUnits = 0, CodeFile = 0, CodeName = 0;
};
/// For tests: the capture-time walk over ThreadState's frames laid out as S says.
int walkRawPythonStackForTesting(const SyntheticPythonLayout &S, const void *ThreadState, RawPythonFrame *Out,
                                 int Max, std::uint64_t &Hash);
/// For tests: walkRawPythonStackExpecting over a synthetic interpreter.
int walkRawPythonStackExpectingForTesting(const SyntheticPythonLayout &S, const void *ThreadState,
                                          const RawPythonFrame *Expected, int ExpectedN, RawPythonFrame *Out,
                                          int Max, std::uint64_t &Hash, bool &Same);

} // namespace rt
} // namespace streamlife

#endif
