"""A pool with one free list per stream, as cupy/cuda/memory.pyx's
SingleDeviceMemoryPool: a freed block goes back to the free list of the stream
it was allocated on and the next allocation on that stream gets it. Blocks are
carved from one segment, allocated with cuMemAlloc through `device_malloc`
(set by the test program)."""
import threading

from . import memory_hook
from . import stream as stream_module

BLOCK = 4096
device_malloc = None  # device_malloc(ptr, size): the segment's cuMemAlloc


class PooledMemory(object):
    def __init__(self, pool, ptr, size, stream_ptr):
        self.pool, self.ptr, self.size, self.stream_ptr = pool, ptr, size, stream_ptr

    def __del__(self):
        hooks = memory_hook.get_memory_hooks()
        for hook in hooks.values():
            hook.free_preprocess(device_id=0, mem_size=self.size, mem_ptr=self.ptr,
                                 pmem_id=id(self))
        self.pool._free(self.ptr, self.stream_ptr)


class MemoryPool(object):
    def __init__(self, segment):
        self._segment = segment
        self._next = 0
        self._free_lists = {}
        self._lock = threading.Lock()
        device_malloc(segment, 64 * BLOCK)

    def malloc(self, size):
        stream_ptr = stream_module.get_current_stream().ptr
        with self._lock:
            free = self._free_lists.setdefault(stream_ptr, [])
            if free:
                ptr = free.pop()
            else:
                ptr = self._segment + self._next * BLOCK
                self._next += 1
        hooks = memory_hook.get_memory_hooks()
        for hook in hooks.values():
            hook.malloc_postprocess(device_id=0, size=size, mem_size=BLOCK, mem_ptr=ptr,
                                    pmem_id=0)
        return PooledMemory(self, ptr, BLOCK, stream_ptr)

    def _free(self, ptr, stream_ptr):
        with self._lock:
            self._free_lists.setdefault(stream_ptr, []).append(ptr)
