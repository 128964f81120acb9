from . import memory_hook, stream, memory  # noqa: F401
from .memory_hook import MemoryHook  # noqa: F401
from .stream import get_current_stream  # noqa: F401
