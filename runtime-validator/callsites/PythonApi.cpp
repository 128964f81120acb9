//===- PythonApi.cpp - binding the Python C API with dlsym ----------------===//
#include "callsites/PythonApi.h"

#include <dlfcn.h>

#include <type_traits>

namespace streamlife {
namespace rt {

namespace {

template <typename F> bool bind(F &Slot, const char *Name) {
  Slot = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, Name));
  return Slot != nullptr;
}

PythonApi bindAll() {
  PythonApi A;
  bool Profile = bind(A.SetProfile, "PyEval_SetProfile") & bind(A.FrameGetCode, "PyFrame_GetCode") &
                 bind(A.FrameGetLineNumber, "PyFrame_GetLineNumber") &
                 bind(A.FrameGetBack, "PyFrame_GetBack") &
                 bind(A.GetAttrString, "PyObject_GetAttrString") &
                 bind(A.UnicodeAsUTF8, "PyUnicode_AsUTF8") & bind(A.IncRef, "Py_IncRef") &
                 bind(A.DecRef, "Py_DecRef") & bind(A.ErrClear, "PyErr_Clear");
  bool Walker = bind(A.GetVersion, "Py_GetVersion") & bind(A.ThreadStateGet, "PyThreadState_Get") &
                bind(A.ThisThreadState, "PyGILState_GetThisThreadState") &
                bind(A.EvalGetFrame, "PyEval_GetFrame") & bind(A.CodeAddr2Line, "PyCode_Addr2Line") &
                bind(A.UnicodeFromKindAndData, "PyUnicode_FromKindAndData") &
                bind(A.LongAsLong, "PyLong_AsLong");
  A.CodeType = dlsym(RTLD_DEFAULT, "PyCode_Type");
  A.ProfileOk = Profile;
  A.WalkerOk = Profile && Walker && A.CodeType;
  return A;
}

} // namespace

const PythonApi &pythonApi() {
  static const PythonApi Api = bindAll();
  return Api;
}

} // namespace rt
} // namespace streamlife
