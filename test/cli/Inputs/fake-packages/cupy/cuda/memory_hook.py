"""As cupy/cuda/memory_hook.pyx: hooks are kept per thread."""
import collections
import threading

_state = threading.local()


def get_memory_hooks():
    hooks = getattr(_state, "memory_hooks", None)
    if hooks is None:
        hooks = collections.OrderedDict()
        _state.memory_hooks = hooks
    return hooks


class MemoryHook(object):
    name = "MemoryHook"

    def malloc_preprocess(self, **kwargs):
        pass

    def malloc_postprocess(self, **kwargs):
        pass

    def free_preprocess(self, **kwargs):
        pass

    def free_postprocess(self, **kwargs):
        pass
