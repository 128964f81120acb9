"""The C++ mutation engine: the first five operators of mutate_python.py at every
site of a correct pattern in the corpus' C++/CUDA translation units, on two
front ends:

  cpp-runtime  raw device pointers of the CUDA runtime and driver APIs:
               cudaMallocAsync(&p, n, A) / cudaFreeAsync(p, A), kernel<<<g, b, m, C>>>(p),
               cudaMemcpyAsync / cudaMemsetAsync on C, cudaEventRecord(e, C),
               cudaStreamWaitEvent(A, e)
  cpp-owned    buffers that own their memory: ATen tensors (at::empty(...) and the other
               factories, allocated on the current stream, which a CUDAStreamGuard sets;
               released at the end of their scope, by reset() or reassignment) and RMM
               buffers (rmm::device_buffer / device_uvector b(n, A): allocated and
               released on A; libcudf's vector factories make_device_uvector_async
               and kin, allocating on their stream), with CUDAEvent ev.record(C) /
               ev.block(A) or the runtime's events, t.record_stream(s), and the
               fork/join of stream pools (streams = cudf::detail::fork_streams(A, n)
               wait on A; cudf::detail::join_streams(streams, A) makes A wait on
               them). A view of a buffer (cudf::device_span<T> v = buf, its
               subspans, its data()) is the buffer; a call handed one stream and a
               buffer or a view of it (a helper in another translation unit) uses
               the buffer on that stream

The operators and their preconditions are those of mutate_python.py: the
buffer is a local of the function, nothing else orders the two streams
(another wait, a synchronization) or keeps the block alive (record_stream,
an alias, a container, a return, a lambda) in between. Edits keep the line
count: a removed statement becomes `;`, a moved one is put on the line it
moves to. Sites are looked for in every candidate translation unit of a
repository (the precision run's selection rule, without its cap), and a
mutant is judged only when its original parses with the repository's flags.
"""
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import corpus
import cxx_syntax as cx
import measure

# Python's first five (record-stream-call-loop, a helper call wrapped in a
# loop, is Python's alone so far).
OPERATORS = ("drop-wait", "free-before-wait", "early-event", "drop-fresh-wait", "record-stream-loop")
import precision
from mutate_python import Mutant

CUR = "<current stream>"
# Kernels on the legacy default stream synchronize with blocking streams:
# sites involving it are left alone (their ordering is implicit).
LEGACY = "<legacy default>"
ATEN_FACTORIES = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
                  "empty_strided", "rand", "randn", "arange", "randint", "new_empty", "new_zeros", "new_full"}
ATEN_METADATA = {"size", "sizes", "numel", "dim", "options", "device", "scalar_type", "dtype", "strides", "stride",
                 "is_cuda", "defined", "is_contiguous", "get_device", "nbytes", "itemsize", "element_size",
                 "ndimension", "is_pinned", "storage_offset", "record_stream", "suggest_memory_format", "layout",
                 "numel", "sym_sizes", "sym_numel", "is_cpu"}
CUDF_VECTOR_FACTORIES = ("make_device_uvector_async", "make_device_uvector", "make_zeroed_device_uvector_async",
                         "make_zeroed_device_uvector")
FORK_FUNCTIONS = ("fork_streams",)
JOIN_FUNCTIONS = ("join_streams",)
STREAM_TYPES = r"\b(cudaStream_t|CUstream|cuda_stream_view|CUDAStream|cuda_stream)\b"
# What a view's or buffer's metadata gives is not a use of its storage.
VIEW_METADATA = {"size", "size_bytes", "empty", "is_empty", "stream", "capacity", "extent"}
RUNTIME_SYNC = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaFree", "cudaMemcpy",
                "cudaMemset", "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cudaThreadSynchronize"}
MAX_MUTANTS_PER_REPO = 16


@dataclass
class Op:
    """One stream operation of a statement."""
    kind: str            # alloc free record wait use sync record_stream guard
    stmt: cx.Stmt
    buf: str | None = None
    stream: str | None = None
    event: str | None = None
    front: str | None = None      # cpp-runtime | cpp-owned
    how: str = ""
    joined: str | None = None     # a join's family of streams (the stream waited on)


def norm_stream(toks, aliases, current, devices=None):
    """A stream argument's key: `s`, `s.stream()`, `s.value()`,
    `at::cuda::getCurrentCUDAStream()` (the current stream; its spellings
    `getCurrent<Backend>Stream`), an alias of it, `0`/`nullptr`/
    `cudaStreamLegacy` (the legacy default stream). `devices`: a
    DeviceStreams telling a device's current stream
    (`getCurrentCUDAStream(d)`) apart from the current one."""
    t = cx.joined(toks)
    t = re.sub(r"\s+", "", t)
    t = re.sub(r"^(static_cast<[\w:]+>|\(cudaStream_t\))", "", t)
    t = re.sub(r"\.(stream|value|view)\(\)$", "", t)
    m = CURRENT_STREAM.search(t)
    if m:
        arg = t[m.end():-1] if t.endswith(")") else ""
        return devices.stream(arg, current) if devices and arg else current
    if t in aliases:
        return aliases[t]
    m = re.match(r"^(\w+)\[.*\]$", t)
    if m and m.group(1) in aliases:
        return aliases[m.group(1)]
    if t in ("0", "nullptr", "NULL", "cudaStreamLegacy", "cudaStreamDefault", "CU_STREAM_LEGACY"):
        return LEGACY
    return t


CURRENT_STREAM = re.compile(r"getCurrent\w*Stream\(|get_current_stream\(")
# What makes another device current for a block: its current stream is then
# that device's (the engine leaves such functions alone when they name two
# devices).
DEVICE_GUARD = re.compile(r"\b(?:CUDAGuard|OptionalCUDAGuard|DeviceGuard|OptionalDeviceGuard)\s+\w+\s*[({]\s*[^)}\s]|"
                          r"\.\s*(?:set_device|set_index|reset_device)\s*\(")
UNKNOWN_STREAM = "<unknown stream>"


def device_key(text, aliases):
    """A device expression's key, or None: `Device(kCUDA, i)` and
    `d.index()` are i and d, `t.device()` / `t.get_device()` the tensor t's
    device `t.device`, a local set once from a device expression its key."""
    t = re.sub(r"\s+", "", text)
    t = re.sub(r"\b(?:at|c10|torch)::", "", t)
    for _ in range(6):
        m = re.fullmatch(r"Device\((?:DeviceType::CUDA|kCUDA),(.+)\)", t)
        if m:
            t = m.group(1)
            continue
        m = re.fullmatch(r"(.+)\.index\(\)", t)
        if m:
            t = m.group(1)
            continue
        m = re.fullmatch(r"(\w+)\.(?:get_device|device)\(\)", t)
        if m:
            t = m.group(1) + ".device"
            continue
        if t in aliases:
            t = aliases[t]
            continue
        break
    return t if re.fullmatch(r"\w+(\.device)?", t) else None


class DeviceStreams:
    """The current streams of the devices a function names. As the checker
    takes them: told apart only in a function naming two devices or more
    (elsewhere every device's current stream is the current stream, the
    usual `getCurrentCUDAStream(x.get_device())` of an extension)."""

    def __init__(self, toks, fn, stmts, params):
        self.aliases = {}
        body = toks[fn.open:fn.close + 1]
        # Locals set once from a device expression are that device.
        for st in stmts:
            txt = cx.joined(toks[st.lo:st.hi + 1])
            m = re.match(r"^(?:const\s+)?(?:auto|(?:at\s*::\s*|c10\s*::\s*)?(?:Device|DeviceIndex)|int|int64_t)\s+"
                         r"(?:const\s+)?(\w+)\s*=\s*(.*);$", txt)
            if m and (txt.startswith("const") or not self._changed(body, m.group(1))):
                key = device_key(m.group(2), self.aliases)
                if key and key != m.group(1):
                    self.aliases[m.group(1)] = key
        text = cx.joined(body)
        keys = set()
        flat = text.replace(" ", "")
        for m in re.finditer(r"getCurrent\w*Stream\(", flat):
            arg = _balanced(flat, m.end() - 1)
            if arg:
                keys.add(device_key(arg, self.aliases))
        for dev in self._factory_devices(flat):
            keys.add(device_key(dev, self.aliases))
        self.multi = len(keys) >= 2
        self.guarded = bool(DEVICE_GUARD.search(text))

    @staticmethod
    def _changed(body, name):
        seen_decl = False
        for k in range(len(body) - 1):
            if body[k].s != name or body[k].kind != "id":
                continue
            nxt = body[k + 1].s
            prev = body[k - 1].s if k else ""
            if nxt in ("+=", "-=", "++", "--") or prev in ("++", "--", "&"):
                return True
            if nxt == "=":
                if seen_decl:
                    return True
                seen_decl = True
        return False

    @staticmethod
    def _factory_devices(flat):
        """The device arguments of tensor factories: `.device(d)` in
        options, the second argument of a `_like` factory."""
        out = []
        for m in re.finditer(r"\.device\(", flat):
            arg = _balanced(flat, m.end() - 1)
            if arg:
                out.append(arg)
        for m in re.finditer(r"\w+_like\(", flat):
            args = _split_top(_balanced(flat, m.end() - 1) or "")
            if len(args) >= 2 and device_key(args[1], {}) is not None and "options" not in args[1]:
                out.append(args[1])
        return out

    def stream(self, arg, current):
        if not self.multi:
            return current
        key = device_key(arg, self.aliases)
        return "<device " + key + ">" if key else UNKNOWN_STREAM


def _balanced(flat, open_at):
    """The text inside the parenthesis opening at flat[open_at]."""
    depth = 0
    for k in range(open_at, len(flat)):
        if flat[k] in "([{":
            depth += 1
        elif flat[k] in ")]}":
            depth -= 1
            if depth == 0:
                return flat[open_at + 1:k]
    return None


def _split_top(text):
    out, cur, depth = [], "", 0
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if text:
        out.append(cur)
    return out


def _ids(toks):
    return {t.s for t in toks if t.kind == "id"}


class FileModel:
    def __init__(self, rel, text):
        self.rel, self.text = rel, text
        self.toks = cx.tokenize(text)
        self.lines = text.split("\n")

    def mutants(self):
        out = []
        for fn in cx.functions(self.toks):
            try:
                out += FunctionSites(self, fn).mutants()
            except (IndexError, RecursionError, ValueError):
                continue
        seen, unique = set(), []
        for m in out:
            key = (m.operator, tuple(m.diff))
            if key not in seen:
                seen.add(key)
                unique.append(m)
        return unique


class FunctionSites:
    def __init__(self, fm, fn):
        self.fm, self.fn, self.toks = fm, fn, fm.toks
        self.stmts = cx.statements(self.toks, fn)
        self.params = self._params()
        self.devices = DeviceStreams(self.toks, fn, self.stmts, self.params)
        self.ops = []
        self._model()

    # --- the model: stream operations per statement --------------------------------------
    def _params(self):
        out = {}
        for p in self.fn.params:
            ids = [t for t in p if t.kind == "id"]
            if ids:
                out[ids[-1].s] = cx.joined(p)
        return out

    def _model(self):
        toks = self.toks
        aliases = {}
        guards = []          # (block id, stream) in effect
        self.tensors, self.rmm, self.events, self.declared_tensors = {}, {}, set(), set()
        self.views = {}      # a view's name -> the owned buffer it refers to
        self.view_decls = set()
        # Names known to be streams (a call handed exactly one of them works on
        # that stream): stream parameters, fork families, local stream variables.
        self.stream_names = {n for n, decl in self.params.items() if re.search(STREAM_TYPES, decl)}
        # Whatever `.block(stream)` is called on is an event (references into
        # containers of CUDAEvents included).
        for k in range(self.fn.open, self.fn.close - 2):
            if toks[k].kind == "id" and toks[k + 1].s in (".", "->") and toks[k + 2].s == "block" \
                    and toks[k + 3].s == "(":
                self.events.add(toks[k].s)
        for st in self.stmts:
            current = CUR
            for bid, s in guards:
                if bid in st.blocks:
                    current = s
            st.extra["current"] = current
            seg = toks[st.lo:st.hi + 1]
            text = " ".join(t.s for t in seg)
            if "[" in text and ("](" in text.replace(" ", "") or "] (" in text):
                st.in_lambda = bool(re.search(r"\[[&=\w\s,]*\]\s*\(", text))
            # Declarations.
            self._declarations(st, seg, aliases, current)
            # Stream guards: the rest of the block runs on their stream.
            m = re.search(r"\b(?:CUDAStreamGuard|OptionalCUDAStreamGuard|StreamGuard|OptionalStreamGuard)\s+(\w+)\s*[({]",
                          text)
            if m:
                paren = next((k for k in range(st.lo, st.hi) if toks[k].s in ("(", "{") and toks[k - 1].s == m.group(1)),
                             None)
                if paren is not None:
                    args, _ = cx.split_args(toks, paren) if toks[paren].s == "(" else (
                        [toks[paren + 1:cx.match_close(toks, paren)]], None)
                    if args:
                        guards.append((st.block, norm_stream(args[0], aliases, current, self.devices)))
            m = re.search(r"\bsetCurrentCUDAStream\s*\(", text)
            if m:
                k = next(k for k in range(st.lo, st.hi) if toks[k].s == "setCurrentCUDAStream")
                args, _ = cx.split_args(toks, k + 1)
                if args:
                    guards.append((st.blocks[0] if st.blocks else st.block, norm_stream(args[0], aliases, current, self.devices)))
            self._calls(st, aliases, current)

    def _declarations(self, st, seg, aliases, current):
        s = [t.s for t in seg]
        txt = " ".join(s)
        # auto s = at::cuda::getCurrentCUDAStream(); cudaStream_t s = ...;
        m = re.match(r"^(?:const\s+)?(?:auto|cudaStream_t|at\s*::\s*cuda\s*::\s*CUDAStream|c10\s*::\s*cuda\s*::\s*CUDAStream|"
                     r"CUDAStream|rmm\s*::\s*cuda_stream_view|cuda_stream_view)\s*&?\s*(\w+)\s*=\s*(.*)\s*;$", txt)
        if m:
            rhs = m.group(2)
            if CURRENT_STREAM.search(rhs.replace(" ", "")):
                k = next(k for k in range(st.lo, st.hi) if self.toks[k].s == "=")
                aliases[m.group(1)] = norm_stream(self.toks[k + 1:st.hi], aliases, current, self.devices)
            else:
                # A copy of a fork family's stream: `auto cur = streams[i % n]`.
                b = re.match(r"^(\w+)\s*\[", rhs)
                if b and b.group(1) in aliases:
                    aliases[m.group(1)] = aliases[b.group(1)]
            self.stream_names.add(m.group(1))
        # Fork/join of stream pools: `auto streams = cudf::detail::fork_streams(A, n)`.
        m = re.match(r"^(?:const\s+)?auto\s+(?:const\s+)?&?\s*(\w+)\s*=\s*(?:(?:cudf\s*::\s*)?detail\s*::\s*)?"
                     r"(\w+)\s*\(", txt)
        if m and m.group(2) in FORK_FUNCTIONS:
            aliases[m.group(1)] = m.group(1)
            self.stream_names.add(m.group(1))
        # Views: `cudf::device_span<T> v = buf;`, `device_span<T const> v{buf}`,
        # `auto v = cudf::device_span<T>(buf)`; a view of a view is the same buffer.
        m = re.match(r"^(?:const\s+)?(?:cudf\s*::\s*)?device_span\s*<.*?>\s*(?:const\s+)?(\w+)\s*(?:=\s*(\w+)\s*;|"
                     r"\{\s*(\w+)\s*\}\s*;|\(\s*(\w+)\s*\)\s*;)$", txt) or \
            re.match(r"^(?:const\s+)?auto\s+(?:const\s+)?(\w+)\s*=\s*(?:cudf\s*::\s*)?device_span\s*<.*?>\s*[({]\s*"
                     r"(\w+)\s*[)}]\s*;$", txt)
        if m:
            view = m.group(1)
            base = next(g for g in m.groups()[1:] if g)
            base = self.views.get(base, base)
            if base in self.rmm:
                self.views[view] = base
                self.view_decls.add(st.order)
        # libcudf's vector factories: auto NAME = cudf::detail::make_device_uvector_async<T>(src, A, mr);
        m = re.match(r"^(?:const\s+)?auto\s+(\w+)\s*=\s*(?:(?:cudf\s*::\s*)?detail\s*::\s*)?(\w+)\s*(<.*?>)?\s*\(", txt)
        if m and m.group(2) in CUDF_VECTOR_FACTORIES:
            name = m.group(1)
            k = next((k for k in range(st.lo, st.hi + 1) if self.toks[k].s == m.group(2)), None)
            paren = next((j for j in range(k, st.hi + 1) if self.toks[j].s == "("), None) if k is not None else None
            if paren is not None:
                args, _ = cx.split_args(self.toks, paren)
                if len(args) >= 2:
                    self.rmm[name] = st
                    self.ops.append(Op("alloc", st, name, norm_stream(args[1], aliases, current, self.devices), front="cpp-owned",
                                       how="cudf::detail::" + m.group(2)))
        # Events.
        m = re.match(r"^(?:at\s*::\s*cuda\s*::\s*|c10\s*::\s*cuda\s*::\s*|c10\s*::\s*)?(?:CUDAEvent|Event)\s+(\w+)", txt)
        if m:
            self.events.add(m.group(1))
        for m in re.finditer(r"\bcudaEvent_t\s+([\w\s,*]+)", txt):
            for name in re.findall(r"\w+", m.group(1)):
                self.events.add(name)
        # A tensor declared without a value, assigned later.
        m = re.match(r"^(?:at\s*::\s*Tensor|torch\s*::\s*Tensor|Tensor)\s+(\w+)\s*;$", txt)
        if m:
            self.declared_tensors.add(m.group(1))
        # ATen tensors from a factory: auto|at::Tensor|torch::Tensor|Tensor NAME = ns::factory(...),
        # or NAME = ns::factory(...) for a tensor declared earlier in the function.
        m = re.match(r"^(?:const\s+)?(?:auto|at\s*::\s*Tensor|torch\s*::\s*Tensor|Tensor)\s+(\w+)\s*=\s*(.*);$", txt)
        if not m:
            m = re.match(r"^(\w+)\s*=\s*(.*);$", txt)
            if m and m.group(1) not in self.declared_tensors:
                m = None
        if m:
            name, rhs = m.group(1), m.group(2)
            f = re.match(r"^(?:at|torch)\s*::\s*(\w+)\s*\(", rhs) or re.match(r"^(\w+)\s*\.\s*(new_\w+|clone)\s*\(",
                                                                              rhs)
            fac = f.group(1) if f and f.lastindex == 1 else (f.group(2) if f else None)
            if fac and (fac in ATEN_FACTORIES or fac.startswith("new_") or fac == "clone") and not re.search(
                    r"pinned_memory|kCPU|\bcpu\b|Device\s*\(\s*\"cpu|pin_memory", rhs):
                self.tensors[name] = st
                self.ops.append(Op("alloc", st, name, self._factory_stream(fac, rhs, current), front="cpp-owned",
                                   how=f"at::{fac}"))
        # RMM: rmm::device_buffer NAME(n, s) / rmm::device_uvector<T> NAME(n, s)
        m = re.match(r"^(?:rmm\s*::\s*)(device_buffer|device_uvector\s*<.*?>)\s+(\w+)\s*[({]", txt)
        if m:
            name = m.group(2)
            k = next((k for k in range(st.lo, st.hi + 1) if self.toks[k].s == name), None)
            if k is not None and self.toks[k + 1].s in ("(", "{"):
                if self.toks[k + 1].s == "(":
                    args, _ = cx.split_args(self.toks, k + 1)
                else:
                    close = cx.match_close(self.toks, k + 1)
                    args, cur, d = [], [], 0
                    for t in self.toks[k + 2:close]:
                        if t.s in "([{":
                            d += 1
                        elif t.s in ")]}":
                            d -= 1
                        if t.s == "," and d == 0:
                            args.append(cur)
                            cur = []
                        else:
                            cur.append(t)
                    if cur:
                        args.append(cur)
                if len(args) >= 2:
                    self.rmm[name] = st
                    self.ops.append(Op("alloc", st, name, norm_stream(args[1], aliases, current, self.devices), front="cpp-owned",
                                       how="rmm::" + m.group(1).split("<")[0].strip()))

    def _factory_stream(self, fac, rhs, current):
        """The stream a factory allocates on: the current one, or where the
        function names two devices, the current stream of the device its
        options or its `_like` device argument name (unknown when it
        follows its operand's device)."""
        if not self.devices.multi:
            return current
        flat = rhs.replace(" ", "")
        devs = DeviceStreams._factory_devices(flat)
        if devs:
            return self.devices.stream(devs[-1], current)
        if fac.endswith("_like") or fac.startswith("new_") or fac == "clone":
            return UNKNOWN_STREAM
        return current

    def _calls(self, st, aliases, current):
        toks = self.toks
        i = st.lo
        while i <= st.hi:
            t = toks[i]
            nxt = toks[i + 1].s if i + 1 <= st.hi else ""
            if t.kind == "id" and nxt == "<<<":
                # kernel<<<grid, block, shmem, stream>>>(args)
                j = i + 2
                cfg, cur, depth = [], [], 0
                while j <= st.hi and not (toks[j].s == ">>>" and depth == 0):
                    if toks[j].s in "([{":
                        depth += 1
                    elif toks[j].s in ")]}":
                        depth -= 1
                    if toks[j].s == "," and depth == 0:
                        cfg.append(cur)
                        cur = []
                    else:
                        cur.append(toks[j])
                    j += 1
                cfg.append(cur)
                stream = norm_stream(cfg[3], aliases, current, self.devices) if len(cfg) >= 4 else LEGACY
                if j + 1 <= st.hi and toks[j + 1].s == "(":
                    args, close = cx.split_args(toks, j + 1)
                    for a in args:
                        self._use_ids(st, a, stream, f"kernel {t.s}<<<>>>")
                    i = close + 1
                    continue
            if t.kind == "id" and nxt == "(":
                name = t.s
                args, close = cx.split_args(toks, i + 1)
                self._call(st, name, args, aliases, current, i)
            if t.kind == "id" and nxt in (".", "->") and i + 3 <= st.hi and toks[i + 3].s == "(":
                self._method(st, t.s, toks[i + 2].s, i + 3, aliases, current)
            i += 1

    def _use_ids(self, st, arg_toks, stream, how):
        for name in _ids(arg_toks):
            self.ops.append(Op("use", st, self.views.get(name, name), stream, how=how))

    def _call(self, st, name, args, aliases, current, at):
        a = [cx.joined(x) for x in args]

        def ident(k):
            ids = [t.s for t in args[k] if t.kind == "id"] if k < len(args) else []
            return ids[-1] if ids else None
        if name in ("cudaMallocAsync", "cuMemAllocAsync", "cudaMallocFromPoolAsync") and len(args) >= 3:
            buf = ident(0)
            stream = norm_stream(args[-1], aliases, current, self.devices)
            if buf:
                self.ops.append(Op("alloc", st, buf, stream, front="cpp-runtime", how=name))
        elif name in ("cudaFreeAsync", "cuMemFreeAsync") and len(args) >= 2:
            self.ops.append(Op("free", st, ident(0), norm_stream(args[1], aliases, current, self.devices), how=name))
        elif name in ("cudaEventRecord", "cuEventRecord", "cudaEventRecordWithFlags") and args:
            stream = norm_stream(args[1], aliases, current, self.devices) if len(args) >= 2 else LEGACY
            self.ops.append(Op("record", st, event=a[0].replace(" ", ""), stream=stream, how=name))
        elif name in ("cudaStreamWaitEvent", "cuStreamWaitEvent") and len(args) >= 2:
            self.ops.append(Op("wait", st, event=a[1].replace(" ", ""), stream=norm_stream(args[0], aliases, current, self.devices),
                               how=name))
        elif name in ("cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync", "cudaMemsetAsync",
                      "cudaMemset2DAsync", "cudaMemcpyPeerAsync", "cudaMemcpyToSymbolAsync",
                      "cudaMemcpyFromSymbolAsync") or re.match(r"cuMem(cpy|set)\w*Async$", name):
            if args:
                stream = norm_stream(args[-1], aliases, current, self.devices)
                for x in args[:-1]:
                    self._use_ids(st, x, stream, name)
        elif name in RUNTIME_SYNC:
            self.ops.append(Op("sync", st, how=name))
        elif name in JOIN_FUNCTIONS and len(args) >= 2:
            # join_streams(streams, A): A waits on every stream of the family.
            self.ops.append(Op("wait", st, event=None, stream=norm_stream(args[1], aliases, current, self.devices),
                               how=f"join_streams({a[0].strip()}, {a[1].strip()})",
                               joined=norm_stream(args[0], aliases, current, self.devices)))
        elif name not in FORK_FUNCTIONS and name not in CUDF_VECTOR_FACTORIES:
            self._opaque_call(st, name, args, aliases, current)
        elif name in ("recordStream",) and len(args) >= 2:
            self.ops.append(Op("record_stream", st, buf=ident(0), how=name))
        elif args and re.match(r"^(rmm ::\s*)?exec_policy(_nosync)?\s*\(", a[0].replace("rmm::", "rmm ::")):
            # thrust::algorithm(rmm::exec_policy(s), ...): the other arguments are used on s.
            k = next((k for k, t in enumerate(args[0]) if t.s == "("), None)
            inner, _ = cx.split_args(args[0], k) if k is not None else ([], None)
            if inner:
                stream = norm_stream(inner[0], aliases, current, self.devices)
                for x in args[1:]:
                    self._use_ids(st, x, stream, f"{name}(exec_policy)")

    def _opaque_call(self, st, name, args, aliases, current):
        """A call handed exactly one known stream and an owned buffer, or a
        view of one, works on the buffer on that stream (a helper defined in
        another translation unit: cuDF's codecs, readers)."""
        streams = [norm_stream(x, aliases, current, self.devices) for x in args
                   if re.sub(r"\[.*\]$", "", cx.joined(x).replace(" ", "")) in self.stream_names]
        if len(streams) != 1:
            return
        for x in args:
            for k, t in enumerate(x):
                if t.kind != "id" or (k and x[k - 1].s in (".", "->", "::")):
                    continue
                meth = x[k + 2].s if k + 2 < len(x) and x[k + 1].s in (".", "->") else ""
                if meth in VIEW_METADATA:
                    continue
                buf = self.views.get(t.s, t.s)
                if buf in self.rmm:
                    self.ops.append(Op("use", st, buf, streams[0], how=f"{name}(..., stream)"))

    def _method(self, st, recv, meth, paren, aliases, current):
        toks = self.toks
        args, _ = cx.split_args(toks, paren)
        if meth == "record" and recv in self.events:
            stream = norm_stream(args[0], aliases, current, self.devices) if args else current
            self.ops.append(Op("record", st, event=recv, stream=stream, how=f"{recv}.record"))
        elif meth == "block" and recv in self.events and args:
            self.ops.append(Op("wait", st, event=recv, stream=norm_stream(args[0], aliases, current, self.devices),
                               how=f"{recv}.block"))
        elif meth in ("synchronize",) and (recv in self.events or "stream" in recv.lower()):
            self.ops.append(Op("sync", st, how=f"{recv}.synchronize"))
        elif meth == "record_stream":
            self.ops.append(Op("record_stream", st, buf=recv, how="record_stream"))

    # --- buffers: uses, releases, escapes ---------------------------------------------------
    def _stmt_text(self, st):
        return " ".join(t.s for t in self.toks[st.lo:st.hi + 1])

    def owned_uses(self, name, st):
        """Streams on which statement st uses the owned buffer `name`: the
        stream of a launch or async copy naming it, else the current stream
        of an ATen op naming it (not metadata, not its declaration)."""
        explicit = [o for o in self.ops if o.stmt is st and o.kind == "use" and o.buf == name]
        if explicit:
            return {o.stream for o in explicit}
        if name not in self.tensors:
            return set()
        toks = self.toks
        seg = toks[st.lo:st.hi + 1]
        for k, t in enumerate(seg):
            if t.s != name or t.kind != "id":
                continue
            nxt = seg[k + 1].s if k + 1 < len(seg) else ""
            meth = seg[k + 2].s if k + 2 < len(seg) and nxt in (".", "->") else ""
            if meth in ATEN_METADATA:
                continue
            if nxt == "=" and k == 0:
                continue
            prev = seg[k - 1].s if k else ""
            if prev in ("Tensor", "auto", "&"):
                continue
            return {st.extra["current"]}
        return set()

    def escapes(self, name):
        for st in self.stmts:
            if st.order in self.view_decls:
                continue
            txt = self._stmt_text(st)
            if not re.search(rf"\b{name}\b", txt):
                continue
            if re.search(rf"\breturn\b.*\b{name}\b", txt) or re.search(rf"std\s*::\s*move\s*\(\s*{name}\b", txt):
                return True
            if re.search(rf"(push_back|emplace_back|emplace|insert|push|append)\s*\([^;]*\b{name}\b", txt):
                return True
            if st.in_lambda or re.search(rf"\[[^\]]*(&|=|\b{name}\b)[^\]]*\]\s*\(", txt):
                return True
            m = re.match(rf"^(.*?)=\s*{name}\s*(\.|;|\[|\))", txt)
            if m and not m.group(1).strip().endswith(("=", "!", "<", ">")):
                return True
            if re.search(rf"[{{,(]\s*{name}\s*[,}}]", txt) and "{" in txt and "<<<" not in txt:
                return True
            if re.search(rf"\b\w+\s*\(\s*{name}\s*\)\s*;$", txt) and re.match(r"^(auto|at|torch|Tensor|const)", txt):
                return True   # a copy construction
        return False

    def release_of(self, name, alloc):
        """The statement releasing the owned buffer (reset, reassignment),
        or None: the end of its scope."""
        for st in self.stmts[alloc.order + 1:]:
            txt = self._stmt_text(st)
            if re.match(rf"^{name}\s*\.\s*reset\s*\(\s*\)\s*;$", txt) or re.match(rf"^{name}\s*=\s*", txt):
                return st
        return None

    def scope_end_line(self, alloc):
        """The line of the } closing the allocation's block."""
        bid = alloc.block
        last = max((s for s in self.stmts if bid in s.blocks), key=lambda s: s.order)
        k = last.hi + 1
        depth = 0
        while k < len(self.toks):
            if self.toks[k].s == "{":
                depth += 1
            elif self.toks[k].s == "}":
                if depth == 0:
                    return self.toks[k].line, k
                depth -= 1
            k += 1
        return self.toks[self.fn.close].line, self.fn.close

    # --- edits ---------------------------------------------------------------------------
    def blank(self, text, st, replacement=";"):
        lo, hi = self.toks[st.lo].start, self.toks[st.hi].end
        chunk = text[lo:hi]
        kept = re.sub(r"[^\n]", " ", chunk)
        first_nl = kept.find("\n")
        head = kept if first_nl < 0 else kept[:first_nl]
        head = replacement + head[len(replacement):] if len(head) >= len(replacement) else replacement
        return text[:lo] + head + (kept[first_nl:] if first_nl >= 0 else "") + text[hi:]

    def stmt_source(self, st):
        return self.fm.text[self.toks[st.lo].start:self.toks[st.hi].end]

    def mutant(self, op, new_text, line, feats):
        old = self.fm.lines
        new = new_text.split("\n")
        diff = []
        for i, (a, b) in enumerate(zip(old, new)):
            if a != b:
                diff.append(f"{i + 1:5}- {a.strip()}")
                diff.append(f"{i + 1:5}+ {b.strip()}")
        m = Mutant(op, self.fm.rel, self.fn.name, line, new, diff, feats)
        return m

    # --- the operators ---------------------------------------------------------------------
    def mutants(self):
        out = []
        # Device guards in a function naming two devices change which
        # device's stream is current: not modelled here.
        guarded = self.devices.multi and self.devices.guarded
        for alloc in [o for o in self.ops if o.kind == "alloc" and not o.stmt.in_lambda and not guarded]:
            out += self._consumer(alloc)
            out += self._fresh(alloc)
        out += self._record_stream_loop()
        return out

    def _uses(self, alloc, upto=None):
        """(stmt, stream) uses of the buffer after its allocation."""
        res = []
        for st in self.stmts[alloc.stmt.order + 1:]:
            if upto is not None and st.order >= upto:
                break
            if alloc.front == "cpp-runtime":
                streams = {o.stream for o in self.ops if o.stmt is st and o.kind == "use" and o.buf == alloc.buf}
            else:
                streams = self.owned_uses(alloc.buf, st)
            for s in streams:
                res.append((st, s))
        return res

    def _release(self, alloc):
        """(statement or None, line, token index, kind) of the buffer's release."""
        if alloc.front == "cpp-runtime":
            frees = [o for o in self.ops if o.kind == "free" and o.buf == alloc.buf and o.stmt.order > alloc.stmt.order]
            if not frees:
                return None
            f = frees[0]
            return f.stmt, self.toks[f.stmt.lo].line, f.stream, "cudaFreeAsync"
        if self.escapes(alloc.buf):
            return None
        st = self.release_of(alloc.buf, alloc.stmt)
        if st is not None:
            return st, self.toks[st.lo].line, alloc.stream, "reset or reassignment"
        line, _ = self.scope_end_line(alloc.stmt)
        return None, line, alloc.stream, "end of scope"

    def _between(self, lo, hi):
        return [o for o in self.ops if lo < o.stmt.order < hi]

    def _features(self, alloc, use_st, wait, release_kind):
        return {"buffer": alloc.buf, "allocation": alloc.how, "front end": alloc.front, "wait": wait.how,
                "use": self._use_how(alloc, use_st), "release": release_kind,
                "stream guard": "yes" if use_st.extra.get("current", CUR) != CUR else "no"}

    def _use_how(self, alloc, st):
        hows = [o.how for o in self.ops if o.stmt is st and o.kind == "use" and o.buf == alloc.buf]
        return hows[0] if hows else "ATen op on the current stream"

    def _consumer(self, alloc):
        rel = self._release(alloc)
        if rel is None:
            return []
        rst, rline, X, rkind = rel
        r_order = rst.order if rst is not None else max(s.order for s in self.stmts if alloc.stmt.block in s.blocks) + 1
        uses = [(s, c) for s, c in self._uses(alloc, r_order) if c != X]
        if not uses:
            return []
        out = []
        if X in (LEGACY, UNKNOWN_STREAM):
            return []
        for C in sorted({c for _, c in uses} - {LEGACY, UNKNOWN_STREAM}):
            last_use = [s for s, c in uses if c == C][-1]
            between = self._between(last_use.order, r_order)
            waits = []
            for w in between:
                if w.kind == "wait" and w.stream == X and w.joined is not None:
                    if w.joined == C:
                        waits.append((w, None))
                    continue
                if w.kind == "wait" and w.stream == X:
                    recs = [o for o in self.ops if o.kind == "record" and o.event == w.event
                            and o.stmt.order < w.stmt.order]
                    if recs and recs[-1].stream == C and recs[-1].stmt.order > last_use.order:
                        waits.append((w, recs[-1]))
            if len(waits) != 1:
                continue
            w, rec = waits[0]
            if any(o.kind == "sync" or (o.kind == "wait" and o.stream == X and o is not w) for o in between):
                continue
            if any(o.kind == "record_stream" and o.buf == alloc.buf for o in self.ops):
                continue
            if w.stmt.loops != last_use.loops or (rst is not None and rst.loops != w.stmt.loops):
                continue
            if rst is not None and not (rst.blocks[:len(w.stmt.blocks)] == w.stmt.blocks):
                continue
            if rst is None and alloc.stmt.block not in w.stmt.blocks:
                continue
            feats = self._features(alloc, last_use, w, rkind)
            text = self.fm.text
            out.append(self.mutant("drop-wait", self.blank(text, w.stmt), rline, feats))
            if rst is not None and rst.block == w.stmt.block and w.stmt.order < rst.order:
                moved = self.stmt_source(rst)
                t2 = self.blank(text, rst)
                lo = self.toks[w.stmt.lo].start
                if "\n" not in moved:
                    t2 = t2[:lo] + moved + " " + t2[lo:]
                    out.append(self.mutant("free-before-wait", t2, self.toks[w.stmt.lo].line, feats))
            if rec is not None and rec.stmt.block == last_use.block and rec.stmt.order > last_use.order:
                moved = self.stmt_source(rec.stmt)
                if "\n" not in moved and not any(
                        o.kind in ("wait", "record") and o.event == rec.event
                        for o in self._between(last_use.order, rec.stmt.order)):
                    t3 = self.blank(text, rec.stmt)
                    lo = self.toks[last_use.lo].start
                    t3 = t3[:lo] + moved + " " + t3[lo:]
                    out.append(self.mutant("early-event", t3, self.toks[w.stmt.lo].line, feats))
        return out

    def _fresh(self, alloc):
        A = alloc.stream
        if A in (LEGACY, UNKNOWN_STREAM):
            return []
        firsts = {}
        for st, c in self._uses(alloc):
            if c not in (A, LEGACY, UNKNOWN_STREAM) and c not in firsts:
                firsts[c] = st
        out = []
        for C, use in firsts.items():
            between = self._between(alloc.stmt.order, use.order)
            waits = [o for o in between if o.kind == "wait" and o.stream == C]
            if len(waits) != 1 or any(o.kind == "sync" for o in between):
                continue
            w = waits[0]
            recs = [o for o in self.ops if o.kind == "record" and o.event == w.event and o.stmt.order < w.stmt.order]
            if not recs or recs[-1].stream != A or recs[-1].stmt.order < alloc.stmt.order:
                continue
            if not (use.blocks[:len(w.stmt.blocks)] == w.stmt.blocks):
                continue
            feats = self._features(alloc, use, w, "-")
            out.append(self.mutant("drop-fresh-wait", self.blank(self.fm.text, w.stmt), self.toks[use.lo].line, feats))
        return out

    def _record_stream_loop(self):
        out = []
        tensor_params = {n for n, decl in self.params.items() if re.search(r"\b(at|torch)\s*::\s*Tensor\b|^Tensor\b|"
                                                                            r"\bconst Tensor\b", decl)}
        for o in self.ops:
            if o.kind != "record_stream" or o.stmt.loops or o.stmt.in_lambda:
                continue
            if o.buf not in self.tensors and o.buf not in tensor_params:
                continue
            src = self.stmt_source(o.stmt)
            if not re.match(rf"^{o.buf}\s*\.\s*record_stream\s*\(", src):
                continue
            lo, hi = self.toks[o.stmt.lo].start, self.toks[o.stmt.hi].end
            text = self.fm.text
            new = text[:lo] + "for (int streamlife_mutant_i = 0; streamlife_mutant_i < 2; ++streamlife_mutant_i) { " \
                + src + " }" + text[hi:]
            out.append(self.mutant("record-stream-loop", new, self.toks[o.stmt.lo].line,
                                   {"receiver": "allocated here" if o.buf in self.tensors else "Tensor parameter",
                                    "front end": "cpp-owned"}))
        return out


def candidate_files(checkout):
    """Every candidate translation unit (the precision rule, uncapped)."""
    return [rel for rel, _ in corpus.select_cpp(checkout, max_files=10 ** 6)]


def front_end_of(m):
    return m.features.get("front end", "cpp-owned")


def run(ready, o, tools, flagctx, log=sys.stderr):
    """Rows (front end, repo, mutant, verdict) for the C++ mutants of the
    ready repositories that have a C++ part."""
    rows = []
    for c in ready:
        if not c.repo.cpp or flagctx.missing_needs(c.repo):
            continue
        muts = []
        for rel in candidate_files(c):
            try:
                with open(os.path.join(c.src, rel), encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            muts += FileModel(rel, text).mutants()
        if not muts:
            continue
        # A bounded, deterministic sample per repository when there are many.
        muts.sort(key=lambda m: (m.operator, m.path, m.line))
        if len(muts) > MAX_MUTANTS_PER_REPO:
            step = len(muts) / MAX_MUTANTS_PER_REPO
            muts = [muts[int(i * step)] for i in range(MAX_MUTANTS_PER_REPO)]
        flags, gen = flagctx.flags(c.repo, c.src)
        verdicts = judge(c, muts, flags, gen, tools, o.jobs)
        print(f"realcode: {c.repo.name} C++ mutants: {len(muts)}, found "
              f"{sum(v['verdict'] == 'found' for v in verdicts)}", file=log, flush=True)
        rows += [(front_end_of(m), c.repo.name, m, v) for m, v in zip(muts, verdicts)]
    return rows


def _findings(tools, src, rel, flags, gen):
    path = os.path.join(src, rel)
    mode = corpus.cuda_mode_flags(rel, tools.cuda, gen)
    flags = corpus.file_flags(flags, path)
    r = measure.run([tools.streamlife, "check", "--format", "json", "--source-root", src, path, "--"] + mode + flags,
                    timeout=tools.timeout, cwd=src)
    if r.crashed:
        return None, f"streamlife {r.describe()}"
    parsed = precision._findings_from_json(r.stdout, src, "", "cpp")
    if parsed is None:
        return None, "no JSON report"
    findings, failures = parsed
    if failures or r.returncode == 2:
        return None, "does not compile: " + (next(iter(failures.values()), "") or precision._first_error(r.stderr))
    return {(f["check"], f["line"], f["message"]) for f in findings if f["path"] == rel}, None


def active_lines(tools, src, rel, flags, gen):
    """The lines of the file that the preprocessor keeps with these flags
    (from the line markers of `clang++ -E`): a mutant inside an inactive
    `#if` branch is not a mutant of the code streamlife sees."""
    path = os.path.join(src, rel)
    mode = corpus.cuda_mode_flags(rel, tools.cuda, gen)
    flags = corpus.file_flags(flags, path)
    r = measure.run([tools.clangxx, "-E"] + mode + flags + [path], timeout=tools.timeout, cwd=src)
    if r.returncode != 0:
        return None
    lines, cur, n = set(), None, 0
    for out in r.stdout.split("\n"):
        m = re.match(r'^# (\d+) "(.*)"', out)
        if m:
            cur, n = m.group(2), int(m.group(1))
            continue
        if cur == path:
            lines.add(n)
        n += 1
    return lines


def judge(checkout, muts, flags, gen, tools, jobs):
    from recall import judge as judge_one
    src = checkout.src
    originals = sorted({m.path for m in muts})
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        base = dict(zip(originals, pool.map(lambda rel: _findings(tools, src, rel, flags, gen), originals)))
        active = dict(zip(originals, pool.map(lambda rel: active_lines(tools, src, rel, flags, gen), originals)))
    files = []
    for i, m in enumerate(muts):
        d, b = os.path.split(m.path)
        rel = os.path.join(d, f"{corpus.MUTANT_PREFIX}{os.getpid()}_{i}_{b}")
        with open(os.path.join(src, rel), "w", encoding="utf-8") as f:
            f.write("\n".join(m.lines))
        files.append(rel)
    try:
        def one(k):
            m, rel = muts[k], files[k]
            orig, err = base[m.path]
            if orig is None:
                return {"verdict": "error", "why": f"original: {err}"}
            changed = {int(d.split("-", 1)[0]) for d in m.diff if re.match(r"^\s*\d+-", d)}
            if active[m.path] is not None and not changed <= active[m.path]:
                return {"verdict": "error", "why": "the mutated lines are in an inactive #if branch with these flags"}
            got, err = _findings(tools, src, rel, flags, gen)
            if got is None:
                return {"verdict": "error", "why": err}
            return judge_one(m, orig, got)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(one, range(len(muts))))
    finally:
        for rel in files:
            try:
                os.remove(os.path.join(src, rel))
            except OSError:
                pass
