//===- PythonApi.h - the Python C API, found in the running process -*- C++ -*-===//
//
// The stable C API calls the Python call-site code uses (PythonStacks.cpp's
// profile function, PythonFrameWalker.cpp's calibration and walk), bound once
// with dlsym. Nothing in the validator includes or links against Python: in a
// process without it every pointer is null and both users stay off.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CALLSITES_PYTHONAPI_H
#define STREAMLIFE_RT_CALLSITES_PYTHONAPI_H

namespace streamlife {
namespace rt {

using PyObj = void;

struct PythonApi {
  using TraceFn = int (*)(PyObj *Self, PyObj *Frame, int What, PyObj *Arg);
  void (*SetProfile)(TraceFn, PyObj *) = nullptr;
  const char *(*GetVersion)() = nullptr;
  PyObj *(*ThreadStateGet)() = nullptr;  ///< PyThreadState_Get: GIL held
  PyObj *(*ThisThreadState)() = nullptr; ///< PyGILState_GetThisThreadState: any time
  PyObj *(*EvalGetFrame)() = nullptr;    ///< borrowed
  PyObj *(*FrameGetCode)(PyObj *) = nullptr; ///< new reference
  PyObj *(*FrameGetBack)(PyObj *) = nullptr; ///< new reference
  int (*FrameGetLineNumber)(PyObj *) = nullptr;
  int (*CodeAddr2Line)(PyObj *, int) = nullptr; ///< reads the immutable line table only
  PyObj *(*GetAttrString)(PyObj *, const char *) = nullptr;
  const char *(*UnicodeAsUTF8)(PyObj *) = nullptr;
  PyObj *(*UnicodeFromKindAndData)(int, const void *, long) = nullptr;
  long (*LongAsLong)(PyObj *) = nullptr;
  void (*IncRef)(PyObj *) = nullptr;
  void (*DecRef)(PyObj *) = nullptr;
  void (*ErrClear)() = nullptr;
  PyObj *CodeType = nullptr; ///< &PyCode_Type

  /// What the profile function needs.
  bool ProfileOk = false;
  /// What the frame walker needs (ProfileOk's calls included).
  bool WalkerOk = false;
};

/// Bound on first use; the same table afterwards.
const PythonApi &pythonApi();

} // namespace rt
} // namespace streamlife

#endif
