# REQUIRES: checker
# RUN: %check_streamlife_py %s streamlife-free-before-wait
# RUN: %check_streamlife_py -check-suffixes=UBA %s streamlife-use-before-alloc
#
# One probe per row of checks/python/PythonApiTable.cpp: each function's
# verdict depends on its row, so that a row deleted or given another meaning
# changes this file's findings (scripts/row-mutants.py deletes each row in
# turn and runs this test; checks/README.md, "API rows and their probes",
# has its last score).
# The probes share one shape where they can: a buffer allocated on stream
# 'side', something done with it by the row's call, then its release.
import torch
import torch.distributed as dist


def alloc_on(side):
    with torch.cuda.stream(side):
        return torch.empty(64, device="cuda")


# --- streams ------------------------------------------------------------------

# A stream the function makes with each spelling, and hands to no one, is
# private: no one can allocate on it after the return, so a release still
# racing there is no finding (a stream of unknown origin would be one).
def stream_cuda():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf


def stream_streams_module():
    side = torch.cuda.streams.Stream()
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf


def stream_device_generic():
    side = torch.Stream()
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf


# Each spelling of the current stream names the consumer that the allocation
# stream waits for before the release: clean.
def current_stream_cuda():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    side.wait_stream(compute)
    del buf


def default_stream_cuda():
    side = torch.cuda.Stream()
    compute = torch.cuda.default_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    side.wait_stream(compute)
    del buf


def current_stream_accelerator():
    side = torch.cuda.Stream()
    compute = torch.accelerator.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    side.wait_stream(compute)
    del buf


# The stream contexts make their body's allocations on 'side'.
def stream_context_function(side):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def stream_context_class(side):
    with torch.cuda.StreamContext(side):
        buf = torch.empty(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


# set_stream makes 'side' current until it is set again.
def set_stream_cuda():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    torch.cuda.set_stream(side)
    buf = torch.empty(64, device="cuda")
    torch.cuda.set_stream(compute)
    compute.wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it


def set_stream_accelerator():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    torch.accelerator.set_stream(side)
    buf = torch.empty(64, device="cuda")
    torch.accelerator.set_stream(compute)
    compute.wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it


# --- events -------------------------------------------------------------------

# An event of each spelling, recorded after the use and waited for by the
# allocation stream: clean. (Its wait(s) is an event's only when the object
# is known to be an event: a work handle has one too.)
def event_cuda():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = torch.cuda.Event()
    done.record(compute)
    done.wait(side)
    del buf


def event_streams_module():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = torch.cuda.streams.Event()
    done.record(compute)
    done.wait(side)
    del buf


def event_device_generic():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = torch.Event()
    done.record(compute)
    done.wait(side)
    del buf


# e.synchronize() of an event recorded after the use: clean.
def event_synchronize():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    del buf


# s.record_event() and s.wait_event(e): the consumer's event waited for by the
# allocation stream: clean.
def record_event_and_wait_event():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = compute.record_event()
    side.wait_event(done)
    del buf


# s.record_event() records on s: an event of the allocation stream stands for
# none of the consumer's work, so waiting on it orders nothing.
def record_event_on_the_allocation_stream():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = side.record_event()
    side.wait_event(done)
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it


# e.record(s) and e.wait(s): clean.
def event_record_and_wait():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    done = torch.cuda.Event()
    done.record(compute)
    done.wait(side)
    del buf


# s.synchronize() of the consumer: the host waits for the use: clean.
def stream_synchronize():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    compute.synchronize()
    del buf


# Query and elapsed time order nothing: released while the current stream
# may still read.
def stream_query():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    ready = compute.query()
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while stream 'compute' may still use it


def event_query_and_elapsed_time():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    out = buf * 2
    end.record()
    ready = end.query()
    ms = start.elapsed_time(end)
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


# --- the device ---------------------------------------------------------------

def synchronize_cuda():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    torch.cuda.synchronize()
    del buf


def synchronize_accelerator():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    torch.accelerator.synchronize()
    del buf


# A graph capture synchronizes the device on entry: clean.
def graph_capture():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        pass
    del buf


def graph_capture_graphs_module():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graphs.graph(g):
        pass
    del buf


# --- host reads ---------------------------------------------------------------

# A comparison that returns a Python bool waits for the current stream: clean.
def host_read_equal(other):
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    same = torch.equal(buf, other)
    del buf


def host_read_allclose(other):
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    close = torch.allclose(buf, other)
    del buf


def host_read_is_nonzero():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    nonzero = torch.is_nonzero(buf.sum())
    del buf


def host_read_item():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    total = buf.sum().item()
    del buf


def host_read_tolist():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    values = buf.tolist()
    del buf


def host_read_cpu():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    host = buf.cpu()
    del buf


def host_read_numpy():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    array = buf.numpy()
    del buf


# --- calls that do no work with their tensor operands -------------------------

# None of these is a use of 'buf' on the current stream: releasing it on
# 'side' is clean.
def no_work_is_tensor():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    known = torch.is_tensor(buf)
    del buf


def no_work_is_available():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    available = torch.cuda.is_available()
    del buf


def no_work_device_count():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    count = torch.cuda.device_count()
    del buf


def no_work_device():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    dev = torch.device("cuda", 0)
    del buf


def no_work_no_grad():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    with torch.no_grad():
        del buf


def no_work_manual_seed():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.manual_seed(0)
    del buf


def metadata_size():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    shape = buf.size()
    del buf


def metadata_dim():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    rank = buf.dim()
    del buf


def metadata_numel():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    n = buf.numel()
    del buf


def metadata_nelement():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    n = buf.nelement()
    del buf


def metadata_stride():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    strides = buf.stride()
    del buf


def metadata_data_ptr():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    address = buf.data_ptr()
    del buf


def metadata_storage():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    storage = buf.storage()
    del buf


def metadata_storage_offset():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    offset = buf.storage_offset()
    del buf


def metadata_element_size():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    size = buf.element_size()
    del buf


def metadata_is_contiguous():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    dense = buf.is_contiguous()
    del buf


def metadata_get_device():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    index = buf.get_device()
    del buf


def metadata_type():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    name = buf.type()
    del buf


def metadata_register_hook(hook):
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    handle = buf.register_hook(hook)
    del buf


def metadata_requires_grad():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    buf.requires_grad_()
    del buf


def metadata_retain_grad():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    buf.retain_grad()
    del buf


# --- views --------------------------------------------------------------------

# A view enqueues no work: taking one and dropping it is not a use of 'buf'.
def view_view():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.view(8, 8)
    del v
    del buf


def view_view_as(other):
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.view_as(other)
    del v
    del buf


def view_reshape():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.reshape(8, 8)
    del v
    del buf


def view_as_strided():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.as_strided((8, 8), (8, 1))
    del v
    del buf


def view_narrow():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.narrow(0, 0, 8)
    del v
    del buf


def view_select():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.select(0, 1)
    del v
    del buf


def view_transpose():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.transpose(0, 1)
    del v
    del buf


def view_permute():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.permute(1, 0)
    del v
    del buf


def view_t():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.t()
    del v
    del buf


def view_expand():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.expand(4, 64)
    del v
    del buf


def view_expand_as(other):
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.expand_as(other)
    del v
    del buf


def view_squeeze():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.squeeze()
    del v
    del buf


def view_unsqueeze():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.unsqueeze(0)
    del v
    del buf


def view_flatten():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.flatten()
    del v
    del buf


def view_unflatten():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.unflatten(0, (8, 8))
    del v
    del buf


def view_detach():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.detach()
    del v
    del buf


def view_split():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.split(8)
    del v
    del buf


def view_chunk():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.chunk(8)
    del v
    del buf


def view_unbind():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.unbind()
    del v
    del buf


def view_diagonal():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.diagonal()
    del v
    del buf


def view_untyped_storage():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    v = buf.untyped_storage()
    del v
    del buf


# The storage keeps the block: dropping 'buf' releases nothing, and the
# storage is dropped after the host waited for the read.
def view_untyped_storage_keeps_the_block(side):
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    storage = buf.untyped_storage()
    del buf
    torch.cuda.current_stream().synchronize()
    del storage


# --- tensors made -------------------------------------------------------------

# Factories with a CUDA device, made on 'side' and read on the current stream:
# released while the current stream may still read them.
def factory_empty(side):
    with torch.cuda.stream(side):
        buf = torch.empty(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_zeros(side):
    with torch.cuda.stream(side):
        buf = torch.zeros(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_ones(side):
    with torch.cuda.stream(side):
        buf = torch.ones(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_full(side):
    with torch.cuda.stream(side):
        buf = torch.full((64,), 1.0, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_rand(side):
    with torch.cuda.stream(side):
        buf = torch.rand(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_randn(side):
    with torch.cuda.stream(side):
        buf = torch.randn(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_randint(side):
    with torch.cuda.stream(side):
        buf = torch.randint(0, 8, (64,), device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_arange(side):
    with torch.cuda.stream(side):
        buf = torch.arange(64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_linspace(side):
    with torch.cuda.stream(side):
        buf = torch.linspace(0, 1, 64, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_eye(side):
    with torch.cuda.stream(side):
        buf = torch.eye(8, device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_tensor(side):
    with torch.cuda.stream(side):
        buf = torch.tensor([1.0, 2.0], device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def factory_empty_strided(side):
    with torch.cuda.stream(side):
        buf = torch.empty_strided((8, 8), (8, 1), device="cuda")
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it




# Tensors over host data are host memory: no device block to release.
def host_from_numpy(side, array):
    with torch.cuda.stream(side):
        host = torch.from_numpy(array)
    torch.cuda.current_stream().wait_stream(side)
    out = host * 2
    del host


def host_as_tensor(side, values):
    with torch.cuda.stream(side):
        host = torch.as_tensor(values)
    torch.cuda.current_stream().wait_stream(side)
    out = host * 2
    del host


def host_frombuffer(side, data):
    with torch.cuda.stream(side):
        host = torch.frombuffer(data, dtype=torch.uint8)
    torch.cuda.current_stream().wait_stream(side)
    out = host * 2
    del host


# Pinning gives a host tensor: its tolist() reads host memory and waits for
# no stream (a device tensor's would wait for the current stream), so the
# current stream may still read 'buf' at the release.
def pin_memory_function(side, src):
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    staged = torch.cuda.pin_memory(src)
    values = staged.tolist()
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


# ... and enqueues nothing: not a use of 'buf'.

def pin_memory_method():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    pinned = buf.pin_memory()
    del buf


# *_like and new_* read only their operand's options: 'x' is not used on 'side'.
def like_empty(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = torch.empty_like(x)
    del x


def like_zeros(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = torch.zeros_like(x)
    del x


def like_ones(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = torch.ones_like(x)
    del x


def like_full(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = torch.full_like(x, 1.0)
    del x


def like_rand(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = torch.rand_like(x)
    del x


def like_randn(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = torch.randn_like(x)
    del x


def new_empty(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = x.new_empty(64)
    del x


def new_zeros(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = x.new_zeros(64)
    del x


def new_ones(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = x.new_ones(64)
    del x


def new_full(side):
    x = torch.empty(64, device="cuda")
    with torch.cuda.stream(side):
        a = x.new_full((64,), 1.0)
    del x


# clone and contiguous allocate even when the receiver's kind is not known.
def clone_of_a_parameter(side, x):
    with torch.cuda.stream(side):
        c = x.clone()
    torch.cuda.current_stream().wait_stream(side)
    out = c * 2
    del c
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'c' is released on stream 'side' while the current stream may still use it


def contiguous_of_a_parameter(side, x):
    with torch.cuda.stream(side):
        c = x.contiguous()
    torch.cuda.current_stream().wait_stream(side)
    out = c * 2
    del c
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'c' is released on stream 'side' while the current stream may still use it


# A copy to the device allocates on the current stream, also from a host
# tensor; a blocking copy to the host waits for the current stream.
def to_device_from_host(side):
    host = torch.zeros(64)
    with torch.cuda.stream(side):
        buf = host.cuda()
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    del buf
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'side' while the current stream may still use it


def to_host_waits():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    host = out.to("cpu")
    del buf


# record_stream tells the allocator about the use: clean.
def record_stream_of_the_consumer():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    buf = alloc_on(side)
    compute.wait_stream(side)
    out = buf * 2
    buf.record_stream(compute)
    del buf


# --- collectives --------------------------------------------------------------

# An async collective runs on its process group's stream, which waits for the
# current stream only: a buffer allocated on 'side' is used there before that
# stream is ordered after its allocation (use-before-alloc).
def collective_all_reduce(side, x):
    buf = alloc_on(side)
    work = dist.all_reduce(buf, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'all_reduce' before 'all_reduce' is ordered after its allocation on stream 'side'
    work.wait()


def collective_all_gather(side, outputs):
    buf = alloc_on(side)
    work = dist.all_gather(outputs, buf, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'all_gather' before 'all_gather' is ordered after its allocation on stream 'side'
    work.wait()


def collective_all_gather_into_tensor(side, output):
    buf = alloc_on(side)
    work = dist.all_gather_into_tensor(output, buf, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'all_gather_into_tensor' before 'all_gather_into_tensor' is ordered after its allocation on stream 'side'
    work.wait()


def collective_reduce_scatter(side, inputs):
    buf = alloc_on(side)
    work = dist.reduce_scatter(buf, inputs, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'reduce_scatter' before 'reduce_scatter' is ordered after its allocation on stream 'side'
    work.wait()


def collective_reduce_scatter_tensor(side, inputs):
    buf = alloc_on(side)
    work = dist.reduce_scatter_tensor(buf, inputs, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'reduce_scatter_tensor' before 'reduce_scatter_tensor' is ordered after its allocation on stream 'side'
    work.wait()


def collective_all_to_all(side, inputs):
    buf = alloc_on(side)
    work = dist.all_to_all([buf], inputs, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'all_to_all' before 'all_to_all' is ordered after its allocation on stream 'side'
    work.wait()


def collective_all_to_all_single(side, inputs):
    buf = alloc_on(side)
    work = dist.all_to_all_single(buf, inputs, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'all_to_all_single' before 'all_to_all_single' is ordered after its allocation on stream 'side'
    work.wait()


def collective_broadcast(side):
    buf = alloc_on(side)
    work = dist.broadcast(buf, 0, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'broadcast' before 'broadcast' is ordered after its allocation on stream 'side'
    work.wait()


def collective_reduce(side):
    buf = alloc_on(side)
    work = dist.reduce(buf, 0, async_op=True)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'reduce' before 'reduce' is ordered after its allocation on stream 'side'
    work.wait()


def collective_isend(side):
    buf = alloc_on(side)
    work = dist.isend(buf, 1)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'isend' before 'isend' is ordered after its allocation on stream 'side'
    work.wait()


def collective_irecv(side):
    buf = alloc_on(side)
    work = dist.irecv(buf, 1)
    # CHECK-MESSAGES-UBA: :[[@LINE-1]]:12: warning: 'buf' is used on stream 'irecv' before 'irecv' is ordered after its allocation on stream 'side'
    work.wait()


# The handle's wait() makes the stream current where it is called wait for
# the collective, whose stream waited for the read on the current stream:
# waited on 'side', the release there is clean.
def collective_waited_on_side(side, x):
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    work = dist.all_reduce(x, async_op=True)
    with torch.cuda.stream(side):
        work.wait()
    del buf


# A barrier makes the host wait for the current stream: clean.
def barrier_waits():
    side = torch.cuda.Stream()
    buf = alloc_on(side)
    torch.cuda.current_stream().wait_stream(side)
    out = buf * 2
    dist.barrier()
    del buf
