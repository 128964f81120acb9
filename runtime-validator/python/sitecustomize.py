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

It also feeds CuPy's memory pool to the validator (see _feed_cupy_pool).

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


def _feed_cupy_pool():
    """CuPy's default memory pool is a caching allocator like PyTorch's: a
    freed block goes back to the free list of the stream it was allocated on
    and is handed to the next allocation on that stream, with no ordering.
    Its allocations and frees never reach the CUDA API, so the validator
    learns them through CuPy's own memory hooks (cupy.cuda.MemoryHook:
    malloc_postprocess, free_preprocess), registered as a SAME_STREAM
    allocator of <streamlife/annotations.h>, as PyTorch's feed is. The hook
    is installed once `import cupy` has finished, in that thread and in every
    thread started later (CuPy keeps its hooks per thread)."""
    import ctypes
    import importlib.abc
    import importlib.util
    import sys
    import threading

    try:
        lib = ctypes.PyDLL(None)
        enabled = getattr(lib, "__streamlife_cupy_feed_enabled")
        register = getattr(lib, "__streamlife_register_allocator")
        allocated = getattr(lib, "__streamlife_block_allocated")
        released = getattr(lib, "__streamlife_block_released")
    except (OSError, AttributeError):
        return  # the validator is not loaded in this process
    if not enabled():
        return
    register.restype = ctypes.c_int
    register.argtypes = [ctypes.c_char_p, ctypes.c_int]
    allocated.restype = None
    allocated.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    released.restype = None
    released.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]

    def install():
        import cupy
        from cupy.cuda import memory_hook

        allocator = register(b"CuPy memory pool", 1)  # STREAMLIFE_REUSE_SAME_STREAM
        if not allocator:
            return
        # The pool keys its free lists by the current stream's handle.
        current_stream = getattr(cupy.cuda.stream, "get_current_stream_ptr", None)
        if current_stream is None:
            def current_stream():
                return cupy.cuda.get_current_stream().ptr
        stream_of = {}  # block -> the stream whose free list it returns to

        class StreamlifeFeed(memory_hook.MemoryHook):
            name = "streamlife"

            def malloc_postprocess(self, device_id, size, mem_size, mem_ptr, pmem_id):
                if mem_ptr:
                    stream = current_stream()
                    stream_of[mem_ptr] = stream
                    allocated(allocator, mem_ptr, mem_size, stream)

            def free_preprocess(self, device_id, mem_size, mem_ptr, pmem_id):
                # Before the pool takes the block back: no allocation can get
                # it before the validator knows it was released.
                stream = stream_of.pop(mem_ptr, None)
                if stream is not None:
                    released(allocator, mem_ptr, stream)

        feed = StreamlifeFeed()

        def attach():
            hooks = memory_hook.get_memory_hooks()
            if feed.name not in hooks:
                hooks[feed.name] = feed

        attach()
        bootstrap = threading.Thread._bootstrap_inner

        def bootstrap_with_feed(self):
            try:
                attach()
            except Exception:
                pass
            return bootstrap(self)

        threading.Thread._bootstrap_inner = bootstrap_with_feed

    class AfterCupyImport(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "cupy":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_then_feed(module):
                exec_module(module)
                try:
                    install()
                except Exception as error:  # never break the program
                    sys.stderr.write("streamlife: note: CuPy's memory pool is not validated: %s\n"
                                     % error)

            spec.loader.exec_module = exec_then_feed
            return spec

    sys.meta_path.insert(0, AfterCupyImport())


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
_feed_cupy_pool()
_import_next_sitecustomize()
