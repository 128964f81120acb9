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

    # A second copy of this hook (another install's, or this folder under a
    # second spelling) runs after the first: attach once.
    if getattr(sys, "_streamlife_hook_attached", False):
        return
    sys._streamlife_hook_attached = True
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
    """Runs the sitecustomize Python would have run without this one: the
    first on sys.path after the entry this hook was found in. A second copy
    of the hook found there (another installation's, or this folder under a
    second spelling) does the same from its own entry on, so the chain only
    moves forward along the path and ends; folders are compared by real
    path, and a hook folder seen once is skipped."""
    import importlib.machinery
    import importlib.util
    import os
    import sys

    def real(entry):
        return os.path.realpath(entry or ".")

    here = os.path.dirname(os.path.realpath(__file__))
    seen = getattr(sys, "_streamlife_hook_folders", set())
    seen.add(here)
    sys._streamlife_hook_folders = seen
    entries = list(sys.path)
    # The entry the previous hook of the chain loaded this one from; the
    # first hook was found by Python at the first entry that is its folder.
    start = getattr(sys, "_streamlife_hook_entry", None)
    if start is None:
        start = next((i for i, entry in enumerate(entries) if real(entry) == here), -1)
    for index in range(start + 1, len(entries)):
        if real(entries[index]) in seen:
            continue
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entries[index]])
        if spec is None or spec.loader is None:
            continue
        sys._streamlife_hook_entry = index
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
        return


_attach_streamlife()
_import_next_sitecustomize()
