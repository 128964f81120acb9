"""Python call sites for the streamlife runtime validator.

`streamlife run` puts this directory first on PYTHONPATH, so Python imports
this module at startup. When the validator (libstreamlife_rt.so) is loaded in
the process, this module lets it learn the interpreter's frame layout (here,
with the GIL held), after which the validator reads the Python stack of any
thread from the interpreter's frames when it reports a CUDA call or an
allocator event (it never takes the GIL for that). Where it does not know the
layout, it installs a profile function on every Python thread instead, which
keeps a shadow copy of the thread's stack. Without the validator nothing
happens.

Then the next `sitecustomize` on the path, if any, is imported as usual.
"""


def _attach_streamlife():
    import ctypes
    import sys
    import threading

    try:
        attach = getattr(ctypes.PyDLL(None), "__streamlife_python_attach")
    except (OSError, AttributeError):
        return  # the validator is not loaded in this process
    attach.restype = ctypes.c_int
    if attach() != 0:
        # 1: the validator reads every thread's frames itself (its frame walker);
        # -1: no Python call sites wanted.
        return

    def trace_new_thread(frame, event, arg):
        sys.settrace(None)
        attach()  # the validator's C-level profile function takes over on this thread
        return None

    threading.settrace(trace_new_thread)


def _import_next_sitecustomize():
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_attach_streamlife()
_import_next_sitecustomize()
