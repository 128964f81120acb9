"""The Python mutation engine: finds every site of a correct cross-stream
pattern in a file (Python's own `ast`, standard library) and makes, at each,
the mutants of the five operators whose precondition holds there, so that
each mutant is a bug by construction:

  drop-wait          the allocation stream A waits for the consumer C (wait_stream,
                     or wait_event / Event.wait on an event recorded on C after the
                     buffer's last use on C), then the buffer is released: the wait
                     is removed. Expected: streamlife-free-before-wait.
  free-before-wait   the same pattern with an explicit release (`del b`, `b = None`)
                     in the wait's block and an allocation on A between the last use
                     and the wait: the release is moved before that allocation (the
                     caching allocator hands a released block only to a later
                     allocation on A, so without one the move is no bug).
                     Expected: streamlife-free-before-wait.
  early-event        the same pattern with an event: the record is moved before the
                     buffer's last use on C. Expected: streamlife-missing-consumer-event
                     (or free-before-wait).
  drop-fresh-wait    a block allocated on A, then C waits for A (wait_stream, or an
                     event recorded on A after the allocation), then the block is used
                     on C: the wait is removed. Expected: streamlife-use-before-alloc.
  record-stream-loop a `t.record_stream(s)` outside any loop, on a tensor the function
                     allocates or takes as a `Tensor` parameter: wrapped in a loop.
                     Expected: streamlife-record-stream-in-loop.
  record-stream-call-loop
                     a call statement outside any loop, `helper(...)` or
                     `self.helper(...)`, of a function of the same file (a method of
                     the caller's class) that calls `x.record_stream(s)` outside any
                     loop of its own and none inside one (x no parameter annotated
                     with a type other than a tensor's): wrapped in a loop.
                     Expected: streamlife-record-stream-in-loop at the call.

The preconditions are checked within one function, in the model of
streamlife's own vocabulary (a block's allocation stream is the current
stream where it is allocated; dropping the last reference releases it there):
the buffer is a simple local name, allocated by a CUDA factory, a transfer to
the device or an op on such a tensor (never pinned host memory), never stored
elsewhere (no alias, container, attribute or return), and nothing else orders
the two streams (no other wait, no synchronize, no record_stream) in between.
Code inside `torch.cuda.graph` capture is left alone.

Every edit keeps the line count (a removed statement becomes `pass`, a moved
one joins the line it moves to with `;`), so the mutant's findings can be
compared with the original's line by line.
"""
import ast
import re
from dataclasses import dataclass, field

OPERATORS = ("drop-wait", "free-before-wait", "early-event", "drop-fresh-wait", "record-stream-loop",
             "record-stream-call-loop")
EXPECTED = {
    "drop-wait": {"streamlife-free-before-wait"},
    "free-before-wait": {"streamlife-free-before-wait"},
    "early-event": {"streamlife-missing-consumer-event", "streamlife-free-before-wait"},
    "drop-fresh-wait": {"streamlife-use-before-alloc"},
    "record-stream-loop": {"streamlife-record-stream-in-loop"},
    "record-stream-call-loop": {"streamlife-record-stream-in-loop"},
}

CUR = "<current stream>"
FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn", "randint", "arange", "empty_strided", "tensor",
             "linspace", "eye", "randperm"}
LIKE_FACTORIES = {"empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"}
NEW_METHODS = {"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "clone"}
VIEW_METHODS = {"view", "reshape", "narrow", "expand", "expand_as", "transpose", "permute", "t", "flatten",
                "unsqueeze", "squeeze", "view_as", "as_strided", "split", "chunk", "unbind", "detach", "contiguous",
                "select", "unflatten", "movedim", "diagonal", "T", "mT", "data", "real", "imag", "tensor_split",
                "untyped_storage", "storage"}
METADATA = {"shape", "size", "dtype", "device", "is_cuda", "numel", "dim", "ndim", "stride", "data_ptr",
            "element_size", "nbytes", "is_contiguous", "requires_grad", "layout", "names", "is_pinned",
            "storage_offset", "itemsize", "record_stream", "get_device"}
HOST_SYNC = {"synchronize"}


def text(node):
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - ast.unparse of odd nodes
        return "?"


def tensor_annotation(annotation):
    """A parameter annotation that names a tensor type, optionally Optional:
    `torch.Tensor`, `Parameter`, `DTensor`, `Optional[Tensor]`, `Tensor | None`
    (as streamlife's annotationKind reads them)."""
    t = annotation.strip().strip("'\"")
    m = re.fullmatch(r"(?:typing\.)?Optional\[(.*)\]", t)
    if m:
        t = m.group(1).strip()
    t = re.sub(r"\s*\|\s*None$|^None\s*\|\s*", "", t)
    last = t.rsplit(".", 1)[-1]
    return last in ("Tensor", "Parameter", "DTensor") or re.fullmatch(
        r"(Float|Double|Half|BFloat16|Byte|Char|Short|Int|Long|Bool)Tensor", last) is not None


def call_name(node):
    """'torch.cuda.current_stream' for torch.cuda.current_stream(...)."""
    if isinstance(node, ast.Call):
        return text(node.func)
    return ""


def method(node):
    """(receiver, method name) of a method call, else (None, None)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value, node.func.attr
    return None, None


def is_graph_ctx(expr):
    return isinstance(expr, ast.Call) and re.search(r"\bgraph$|\bCUDAGraph\b|capture", call_name(expr) or "")


def stream_ctx_arg(expr):
    """S for `with torch.cuda.stream(S)`, `get_accelerator().stream(S)`,
    `torch.get_device_module(d).stream(S)`, `torch.cuda.StreamContext(S)`."""
    if not isinstance(expr, ast.Call) or not expr.args:
        return None
    n = call_name(expr)
    if n.endswith(".stream") or n.endswith("StreamContext") or n == "stream":
        return expr.args[0]
    return None


@dataclass
class Stmt:
    node: ast.stmt
    stream: str            # the current stream there
    loops: tuple           # ids of the enclosing loops (innermost last)
    blocks: tuple          # ids of the enclosing statement lists (innermost last)
    block: list            # the statement list holding it
    capture: bool          # inside torch.cuda.graph capture
    ctx_call: str = ""     # how the stream context was entered (`torch.cuda.stream`, ...)
    order: int = 0


@dataclass
class Mutant:
    operator: str
    path: str              # relative to the repository
    function: str
    line: int              # the line a finding is expected near (1-based)
    lines: list            # the mutated file's lines
    diff: list             # "-  old" / "+  new" lines
    features: dict = field(default_factory=dict)

    @property
    def expected(self):
        return EXPECTED[self.operator]


class FunctionModel:
    """The statements of one function in order, with their stream contexts,
    and the facts the operators need."""

    def __init__(self, fn, qualname):
        self.fn, self.qualname = fn, qualname
        self.stmts = []
        self.stream_alias = {}   # name -> stream key, for `s = torch.cuda.current_stream()`
        self._walk(fn.body, CUR, (), (id(fn.body),), False, "")
        for i, s in enumerate(self.stmts):
            s.order = i
        self.params = {a.arg: a for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}

    def _walk(self, body, stream, loops, blocks, capture, ctx_call):
        for st in body:
            self.stmts.append(Stmt(st, stream, loops, blocks, body, capture, ctx_call))
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(st, (ast.With, ast.AsyncWith)):
                inner, cap, how = stream, capture, ctx_call
                for item in st.items:
                    arg = stream_ctx_arg(item.context_expr)
                    if arg is not None:
                        inner = self.stream_key(arg, stream)
                        how = call_name(item.context_expr)
                    if is_graph_ctx(item.context_expr):
                        cap = True
                self._walk(st.body, inner, loops, blocks + (id(st.body),), cap, how)
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                self._walk(st.body, stream, loops + (id(st),), blocks + (id(st.body),), capture, ctx_call)
                self._walk(st.orelse, stream, loops, blocks + (id(st.orelse),), capture, ctx_call)
            elif isinstance(st, ast.If):
                self._walk(st.body, stream, loops, blocks + (id(st.body),), capture, ctx_call)
                self._walk(st.orelse, stream, loops, blocks + (id(st.orelse),), capture, ctx_call)
            elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
                for part in (st.body, st.orelse, st.finalbody):
                    self._walk(part, stream, loops, blocks + (id(part),), capture, ctx_call)
                for h in st.handlers:
                    self._walk(h.body, stream, loops, blocks + (id(h.body),), capture, ctx_call)
            elif isinstance(st, ast.Match):
                for case in st.cases:
                    self._walk(case.body, stream, loops, blocks + (id(case.body),), capture, ctx_call)
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                if isinstance(st.value, ast.Call) and call_name(st.value).endswith("current_stream"):
                    self.stream_alias[st.targets[0].id] = stream

    def stream_key(self, expr, ctx):
        if isinstance(expr, ast.Call) and call_name(expr).endswith("current_stream"):
            return ctx
        if isinstance(expr, ast.Name) and expr.id in self.stream_alias:
            return self.stream_alias[expr.id]
        return text(expr)

    def simple(self):
        """The simple statements (not compound), in order."""
        return [s for s in self.stmts if not hasattr(s.node, "body")]


def own_nodes(stmt):
    """The expression nodes of a statement itself (a compound statement's
    header only, not its body)."""
    n = stmt.node
    if isinstance(n, (ast.With, ast.AsyncWith)):
        roots = [i.context_expr for i in n.items]
    elif isinstance(n, (ast.For, ast.AsyncFor)):
        roots = [n.iter]
    elif isinstance(n, (ast.While, ast.If)):
        roots = [n.test]
    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    elif hasattr(n, "body"):
        return []
    else:
        roots = [n]
    out = []
    for r in roots:
        out += list(ast.walk(r))
    return out


def names_loaded(stmt, name):
    return [x for x in own_nodes(stmt) if isinstance(x, ast.Name) and x.id == name and isinstance(x.ctx, ast.Load)]


EMPTY_FACTORIES = {"empty", "empty_like", "empty_strided", "new_empty"}


def writes_nothing(expr):
    """A factory that allocates and enqueues nothing (`torch.empty`,
    `t.new_empty`): streamlife's ir::Inst::EnqueuesNothing."""
    if not isinstance(expr, ast.Call):
        return False
    n = call_name(expr)
    if n.startswith("torch.") and n.rsplit(".", 1)[-1] in EMPTY_FACTORIES:
        return True
    return method(expr)[1] == "new_empty"


def is_cuda_alloc(expr, tracked):
    """How \\p expr makes a fresh CUDA tensor ('factory', 'to-device', 'op'),
    or None."""
    if any(isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and x.func.attr == "pin_memory"
           for x in ast.walk(expr)):
        return None
    if any(isinstance(x, ast.keyword) and x.arg == "pin_memory" for x in ast.walk(expr)):
        return None
    if isinstance(expr, ast.Call):
        n = call_name(expr)
        last = n.rsplit(".", 1)[-1]
        kw = {k.arg: k.value for k in expr.keywords if k.arg}
        if n.startswith("torch.") and last in FACTORIES:
            dev = kw.get("device")
            if dev is None or (isinstance(dev, ast.Constant) and "cuda" not in str(dev.value)):
                return None
            return "factory"
        if n.startswith("torch.") and last in LIKE_FACTORIES:
            dev = kw.get("device")
            if dev is not None:
                return "factory" if not (isinstance(dev, ast.Constant) and "cuda" not in str(dev.value)) else None
            if expr.args and isinstance(expr.args[0], ast.Name) and expr.args[0].id in tracked:
                return "factory"
            return None
        recv, m = method(expr)
        if m == "cuda":
            return "to-device"
        if m == "to":
            vals = list(expr.args) + [kw.get("device")] if kw.get("device") is not None else list(expr.args)
            for v in vals:
                t = text(v)
                if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.startswith("cuda"):
                    return "to-device"
                if re.search(r"current_device\(|\bcuda\b|device", t) and "cpu" not in t:
                    return "to-device"
            return None
        if m in NEW_METHODS and isinstance(recv, ast.Name) and recv.id in tracked:
            return "op"
        if n.startswith("torch.") and any(isinstance(a, ast.Name) and a.id in tracked for a in expr.args):
            return "op" if last not in VIEW_METHODS else None
    if isinstance(expr, ast.BinOp) and any(isinstance(x, ast.Name) and x.id in tracked
                                           for x in (expr.left, expr.right)):
        return "op"
    return None


def escapes(fm, name):
    """True when \\p name is stored anywhere a release of the local would not
    free its block: an alias, a view kept, a container, an attribute, a
    return or a yield, a global/nonlocal, a closure."""
    for s in fm.stmts:
        n = s.node
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            if any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(n)):
                return True
            continue
        for x in own_nodes(s):
            if isinstance(x, (ast.Return, ast.Yield, ast.YieldFrom)) and x.value is not None:
                if any(isinstance(y, ast.Name) and y.id == name for y in ast.walk(x.value)):
                    return True
            if isinstance(x, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and not isinstance(getattr(x, "ctx", None),
                                                                                           ast.Store):
                elts = x.elts if hasattr(x, "elts") else list(x.values)
                if any(isinstance(e, ast.Name) and e.id == name for e in elts):
                    return True
            if isinstance(x, ast.Call):
                recv, m = method(x)
                if m in ("append", "extend", "insert", "appendleft", "add", "put", "setdefault", "update",
                         "put_nowait") and any(isinstance(y, ast.Name) and y.id == name
                                              for a in x.args for y in ast.walk(a)):
                    return True
            if isinstance(x, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                value = x.value
                if value is None:
                    continue
                targets = x.targets if isinstance(x, ast.Assign) else [x.target]
                if all(isinstance(t, ast.Name) and t.id == name for t in targets):
                    continue  # rebinding the name itself
                if aliases(value, name):
                    return True
        if isinstance(n, ast.With):
            for item in n.items:
                if item.optional_vars is not None and any(isinstance(y, ast.Name) and y.id == name
                                                          for y in ast.walk(item.context_expr)):
                    return True
    return False


def aliases(value, name):
    """True when \\p value is \\p name itself or a view of it."""
    while True:
        if isinstance(value, ast.Name):
            return value.id == name
        if isinstance(value, ast.Subscript):
            value = value.value
            continue
        if isinstance(value, ast.Attribute) and value.attr in VIEW_METHODS:
            value = value.value
            continue
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in VIEW_METHODS:
            value = value.func.value
            continue
        if isinstance(value, (ast.IfExp,)):
            return aliases(value.body, name) or aliases(value.orelse, name)
        if isinstance(value, ast.BoolOp):
            return any(aliases(v, name) for v in value.values)
        if isinstance(value, ast.Starred):
            value = value.value
            continue
        return False


def device_use(stmt, name):
    """True when \\p stmt uses the block of \\p name on the device (not only
    its metadata, not its release, not record_stream)."""
    n = stmt.node
    if isinstance(n, ast.Delete):
        return False
    if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is None:
        return False
    parents = {}
    for x in own_nodes(stmt):
        for c in ast.iter_child_nodes(x):
            parents[id(c)] = x
    for x in names_loaded(stmt, name):
        p = parents.get(id(x))
        if isinstance(p, ast.Attribute) and p.attr in METADATA:
            continue
        if isinstance(p, ast.Compare) and any(isinstance(o, (ast.Is, ast.IsNot)) for o in p.ops):
            continue
        if isinstance(p, ast.Call) and text(p.func) in ("isinstance", "len", "id", "type", "print", "str"):
            continue
        return True
    return False


def release_kind(stmt, name):
    """'del', 'none' or 'rebind' when \\p stmt drops the reference \\p name."""
    n = stmt.node
    if isinstance(n, ast.Delete) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
        return "del"
    if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
        if isinstance(n.value, ast.Constant) and n.value.value is None:
            return "none"
        return "rebind"
    if isinstance(n, (ast.AnnAssign,)) and isinstance(n.target, ast.Name) and n.target.id == name and n.value:
        return "rebind"
    return None


@dataclass
class Ordering:
    stmt: Stmt
    kind: str               # wait_stream | wait_event | event_wait | sync | record_stream
    waiter: str | None      # the stream made to wait
    target: str | None      # the stream waited for (wait_stream) / the event (wait_event)


def orderings(fm):
    """Every ordering of one stream after another in the function, and every
    host synchronization, with the event records they refer to."""
    out, records = [], []
    for s in fm.simple():
        for x in own_nodes(s):
            recv, m = method(x)
            if m is None:
                continue
            if m == "wait_stream" and x.args:
                out.append(Ordering(s, "wait_stream", fm.stream_key(recv, s.stream), fm.stream_key(x.args[0], s.stream)))
            elif m == "wait_event" and x.args:
                out.append(Ordering(s, "wait_event", fm.stream_key(recv, s.stream), text(x.args[0])))
            elif m == "wait" and isinstance(recv, (ast.Name, ast.Attribute)) and re.search(r"(?i)ev", text(recv)):
                waiter = fm.stream_key(x.args[0], s.stream) if x.args else s.stream
                out.append(Ordering(s, "event_wait", waiter, text(recv)))
            elif m in HOST_SYNC:
                out.append(Ordering(s, "sync", None, None))
            elif m == "record_stream":
                out.append(Ordering(s, "record_stream", None, text(recv)))
            elif m == "record_event":
                ev = None
                if isinstance(s.node, ast.Assign) and len(s.node.targets) == 1:
                    ev = text(s.node.targets[0])
                elif x.args:
                    ev = text(x.args[0])
                if ev:
                    records.append((s, ev, fm.stream_key(recv, s.stream)))
            elif m == "record" and isinstance(recv, (ast.Name, ast.Attribute)):
                records.append((s, text(recv), fm.stream_key(x.args[0], s.stream) if x.args else s.stream))
        # Calls under a conditional expression run on one path only.
        conditional = {id(y) for x in own_nodes(s) if isinstance(x, ast.IfExp)
                       for arm in (x.body, x.orelse) for y in ast.walk(arm)}
        for x in own_nodes(s):
            if isinstance(x, ast.Call) and text(x.func) in ("torch.cuda.synchronize", "torch.accelerator.synchronize",
                                                             "get_accelerator().synchronize"):
                out.append(Ordering(s, "sync", None, None))
            elif id(x) not in conditional and blocking_construction(x):
                out.append(Ordering(s, "sync", None, None))
    return out, records


def blocking_construction(call):
    """`torch.tensor(data, device=d)` with d not the host: host data copied
    with a blocking copy, which synchronizes the current stream."""
    if not (isinstance(call, ast.Call) and text(call.func) == "torch.tensor"):
        return False
    for k in call.keywords:
        if k.arg == "device":
            return not (isinstance(k.value, ast.Constant) and str(k.value.value).startswith(("cpu", "meta")))
    return False


def last_record(records, event, before):
    cands = [r for r in records if r[1] == event and r[0].order < before]
    return cands[-1] if cands else None


def dominates(a, b):
    """Statement a's block encloses (or is) statement b's block, a before b."""
    return a.order < b.order and b.blocks[:len(a.blocks)] == a.blocks


def blank_edit(lines, node, replacement):
    """Replaces node's lines by `replacement` on its first line (indented as
    it was) and empty lines after, keeping the line count."""
    first, last = node.lineno - 1, node.end_lineno - 1
    indent = re.match(r"\s*", lines[first]).group(0)
    out = list(lines)
    out[first] = indent + replacement
    for i in range(first + 1, last + 1):
        out[i] = ""
    return out


def single_line(node):
    return node.lineno == node.end_lineno


def stmt_text(lines, node):
    return lines[node.lineno - 1][node.col_offset:node.end_col_offset]


def diff_of(old, new):
    d = []
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            d.append(f"{i + 1:5}- {a.strip()}")
            d.append(f"{i + 1:5}+ {b.strip()}")
    return d


class FileMutator:
    def __init__(self, path, rel, source):
        self.path, self.rel, self.source = path, rel, source
        self.lines = source.split("\n")
        self.tree = ast.parse(source)

    def functions(self):
        out = []

        def visit(node, prefix):
            for c in ast.iter_child_nodes(node):
                if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    q = f"{prefix}{c.name}"
                    out.append((c, q))
                    visit(c, q + ".")
                elif isinstance(c, ast.ClassDef):
                    visit(c, f"{prefix}{c.name}.")
                else:
                    visit(c, prefix)
        visit(self.tree, "")
        return out

    def recorders(self):
        """The qualified names of this file's functions that call
        `x.record_stream(s)` as a statement outside any loop of theirs, and
        none inside one (such a loop is the function's own finding), on a
        receiver that is no parameter annotated with a type other than a
        tensor's."""
        if not hasattr(self, "_recorders"):
            self._recorders = set()
            for fn, q in self.functions():
                fm = FunctionModel(fn, q)
                outside = inside = False
                for s in fm.simple():
                    if isinstance(s.node, ast.Expr) and method(s.node.value)[1] == "record_stream":
                        # A parameter annotated with anything but a tensor type
                        # may be a class with a record_stream method of its own
                        # (torchrec's KeyedTensor, a Pipelineable batch).
                        root = method(s.node.value)[0]
                        while isinstance(root, (ast.Attribute, ast.Subscript)):
                            root = root.value
                        param = fm.params.get(root.id) if isinstance(root, ast.Name) else None
                        if param is not None and param.annotation is not None \
                                and not tensor_annotation(text(param.annotation)):
                            continue
                        if s.loops:
                            inside = True
                        elif not s.capture:
                            outside = True
                if outside and not inside:
                    self._recorders.add(q)
        return self._recorders

    def mutants(self):
        out = []
        for fn, q in self.functions():
            try:
                out += self._function_mutants(fn, q)
            except RecursionError:
                continue
        # One mutant per (operator, edited lines): the same edit reached from two
        # buffers is one bug.
        seen, unique = set(), []
        for m in out:
            key = (m.operator, tuple(m.diff))
            if key not in seen:
                seen.add(key)
                unique.append(m)
        return unique

    def _function_mutants(self, fn, q):
        fm = FunctionModel(fn, q)
        ords, records = orderings(fm)
        tracked, allocs = set(), []
        for s in fm.simple():
            n = s.node
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                how = is_cuda_alloc(n.value, tracked)
                if how:
                    tracked.add(n.targets[0].id)
                    allocs.append((s, n.targets[0].id, how))
        out = []
        for alloc, name, how in allocs:
            if alloc.capture or escapes(fm, name):
                continue
            out += self._consumer_sites(fm, ords, records, alloc, name, how)
            out += self._fresh_sites(fm, ords, records, alloc, name, how)
        out += self._record_stream_sites(fm, tracked)
        out += self._record_stream_call_sites(fm)
        return out

    def _span_after(self, fm, alloc, name):
        """The statements from the allocation up to the next release of the
        name (exclusive), and that release (or None: the function's end)."""
        span = []
        for s in fm.stmts[alloc.order + 1:]:
            if release_kind(s, name):
                return span, s
            if isinstance(s.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            span.append(s)
        return span, None

    def _consumer_sites(self, fm, ords, records, alloc, name, how):
        A = alloc.stream
        span, release = self._span_after(fm, alloc, name)
        if release is not None and release.capture:
            return []
        uses = [s for s in span if device_use(s, name) and s.stream != A and not s.capture]
        if not uses:
            return []
        out = []
        for C in sorted({u.stream for u in uses}):
            uc = [u for u in uses if u.stream == C]
            last_use = uc[-1]
            # The one ordering of A after C that follows the last use.
            cands = []
            for o in ords:
                if not (last_use.order < o.stmt.order and (release is None or o.stmt.order < release.order)):
                    continue
                if o.kind == "wait_stream" and o.waiter == A and o.target == C:
                    cands.append((o, None))
                elif o.kind in ("wait_event", "event_wait") and o.waiter == A:
                    rec = last_record(records, o.target, o.stmt.order)
                    if rec and rec[2] == C and rec[0].order > last_use.order:
                        cands.append((o, rec))
            if len(cands) != 1:
                continue
            wait, rec = cands[0]
            # Nothing else may order A after C, or keep the block alive, between
            # the last use and the release.
            if any(o is not wait and (o.kind == "sync" or o.waiter == A) for o in ords
                   if last_use.order < o.stmt.order and (release is None or o.stmt.order < release.order)):
                continue
            if any(o.kind == "record_stream" and o.target == name for o in ords):
                continue
            if release is None and not self._releases_at_end(fm, name):
                continue
            if release is not None and not dominates(wait.stmt, release):
                continue
            if wait.stmt.loops != (release.loops if release else wait.stmt.loops) or last_use.loops != wait.stmt.loops:
                continue
            if any(device_use(s, name) and s.order > wait.stmt.order for s in span if s.stream != A):
                continue
            feats = self._features(fm, alloc, name, how, last_use, wait, release)
            old = self.lines
            new = blank_edit(old, wait.stmt.node, "pass")
            out.append(Mutant("drop-wait", self.rel, fm.qualname,
                              (release.node.lineno if release else fm.fn.end_lineno), new, diff_of(old, new), feats))
            rk = release_kind(release, name) if release else None
            if rk in ("del", "none") and release.block is wait.stmt.block and single_line(release.node) \
                    and isinstance(release.node, (ast.Delete, ast.Assign)) and (
                        not isinstance(release.node, ast.Delete) or len(release.node.targets) == 1) \
                    and not any(names_loaded(s, name) for s in span if s.order > wait.stmt.order):
                # PyTorch's caching allocator hands the released block only to a
                # later allocation on A: moved before the wait, the release is a
                # bug only with such an allocation between it and the wait. It
                # goes just before the first one after the last use.
                reuse = next((x for x in fm.simple() if x.block is wait.stmt.block and x.stream == A
                              and last_use.order < x.order < wait.stmt.order and single_line(x.node)
                              and isinstance(x.node, ast.Assign) and is_cuda_alloc(x.node.value, set())), None)
                if reuse is not None:
                    moved = stmt_text(old, release.node)
                    new = blank_edit(old, release.node, "pass")
                    first = reuse.node.lineno - 1
                    indent = re.match(r"\s*", new[first]).group(0)
                    new[first] = indent + moved + "; " + new[first].strip()
                    out.append(Mutant("free-before-wait", self.rel, fm.qualname, reuse.node.lineno, new,
                                      diff_of(old, new), feats))
            if rec is not None:
                rec_stmt = rec[0]
                if rec_stmt.block is last_use.block and single_line(rec_stmt.node) \
                        and not hasattr(last_use.node, "body") and rec_stmt.order > last_use.order \
                        and self._movable(fm, rec_stmt, last_use):
                    moved = stmt_text(old, rec_stmt.node)
                    new = blank_edit(old, rec_stmt.node, "pass")
                    first = last_use.node.lineno - 1
                    indent = re.match(r"\s*", new[first]).group(0)
                    new[first] = indent + moved + "; " + new[first].strip()
                    out.append(Mutant("early-event", self.rel, fm.qualname, wait.stmt.node.lineno, new,
                                      diff_of(old, new), feats))
        return out

    def _movable(self, fm, rec_stmt, last_use):
        """The record statement reads nothing assigned from the last use up to it."""
        read = {x.id for x in ast.walk(rec_stmt.node) if isinstance(x, ast.Name)}
        for s in fm.stmts[last_use.order:rec_stmt.order]:
            for x in own_nodes(s):
                if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store) and x.id in read:
                    return False
        return True

    def _releases_at_end(self, fm, name):
        """A local that never escapes is released when the function returns;
        only when it is a local (not a parameter) and not a generator."""
        if name in fm.params:
            return False
        return not any(isinstance(x, (ast.Yield, ast.YieldFrom)) for x in ast.walk(fm.fn))

    def _fresh_sites(self, fm, ords, records, alloc, name, how):
        A = alloc.stream
        # A blocking construction waits for its own allocation and copy.
        if any(blocking_construction(x) for x in own_nodes(alloc)):
            return []
        span, _ = self._span_after(fm, alloc, name)
        out = []
        firsts = {}
        for s in span:
            if s.stream != A and not s.capture and device_use(s, name) and s.stream not in firsts:
                firsts[s.stream] = s
        for C, use in firsts.items():
            # A factory that writes nothing, after C already waited for A: the
            # earlier wait may cover the block's earlier tenants (streamlife's
            # model: no release to A's pool in between), so without the later
            # wait the code may still be right. Not a mutant.
            if writes_nothing(alloc.node.value) and any(
                    o.stmt.order < alloc.order and o.waiter == C and
                    (o.target == A or o.kind in ("wait_event", "event_wait")) for o in ords):
                continue
            cands = []
            for o in ords:
                if not (alloc.order < o.stmt.order < use.order):
                    continue
                if o.kind == "sync":
                    cands.append((o, "sync"))
                elif o.kind == "wait_stream" and o.waiter == C and o.target == A:
                    cands.append((o, None))
                elif o.kind in ("wait_event", "event_wait") and o.waiter == C:
                    rec = last_record(records, o.target, o.stmt.order)
                    if rec and rec[2] == A and rec[0].order > alloc.order:
                        cands.append((o, rec))
                    else:
                        cands.append((o, "other"))
                elif o.waiter == C:
                    cands.append((o, "other"))
            if len(cands) != 1 or cands[0][1] in ("sync", "other"):
                continue
            wait = cands[0][0]
            if not dominates(wait.stmt, use):
                continue
            feats = self._features(fm, alloc, name, how, use, wait, None)
            new = blank_edit(self.lines, wait.stmt.node, "pass")
            out.append(Mutant("drop-fresh-wait", self.rel, fm.qualname, use.node.lineno, new,
                              diff_of(self.lines, new), feats))
        return out

    def _record_stream_sites(self, fm, tracked):
        out = []
        tensor_params = {n for n, a in fm.params.items() if a.annotation is not None
                         and re.search(r"\bTensor\b", text(a.annotation)) and "List" not in text(a.annotation)
                         and "list" not in text(a.annotation) and "Sequence" not in text(a.annotation)}
        for s in fm.simple():
            n = s.node
            if s.loops or s.capture or not isinstance(n, ast.Expr) or not single_line(n):
                continue
            recv, m = method(n.value)
            if m != "record_stream" or not isinstance(recv, ast.Name):
                continue
            if recv.id not in tracked and recv.id not in tensor_params:
                continue
            old = self.lines
            body = stmt_text(old, n)
            new = blank_edit(old, n, f"for _streamlife_mutant in range(2): {body}")
            out.append(Mutant("record-stream-loop", self.rel, fm.qualname, n.lineno, new, diff_of(old, new),
                              {"receiver": "allocated here" if recv.id in tracked else "Tensor parameter"}))
        return out

    def _record_stream_call_sites(self, fm):
        recorders = self.recorders()
        cls = fm.qualname.rsplit(".", 1)[0] + "." if "." in fm.qualname else None
        out = []
        for s in fm.simple():
            n = s.node
            if s.loops or s.capture or not isinstance(n, ast.Expr) or not single_line(n) \
                    or not isinstance(n.value, ast.Call):
                continue
            func = n.value.func
            if isinstance(func, ast.Name):
                callee = func.id
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id == "self" and cls:
                callee = cls + func.attr
            else:
                continue
            if callee not in recorders or callee == fm.qualname:
                continue
            # A literal False or None argument may be the flag that skips the
            # record (`keep_if(t, s, False)`): no bug by construction.
            if any(isinstance(a, ast.Constant) and a.value in (False, None)
                   for a in list(n.value.args) + [k.value for k in n.value.keywords]):
                continue
            old = self.lines
            body = stmt_text(old, n)
            new = blank_edit(old, n, f"for _streamlife_mutant in range(2): {body}")
            out.append(Mutant("record-stream-call-loop", self.rel, fm.qualname, n.lineno, new,
                              diff_of(old, new), {"callee": callee}))
        return out

    def _features(self, fm, alloc, name, how, use, wait, release):
        """What a reader needs to guess why a mutant is missed."""
        f = {"buffer": name, "allocation": how, "wait": wait.kind}
        calls = [x for x in own_nodes(use) if isinstance(x, ast.Call)
                 and any(isinstance(a, ast.Name) and a.id == name for a in list(x.args) + [k.value for k in x.keywords])]
        kinds = []
        for c in calls:
            cn = call_name(c)
            if cn.startswith(("torch.", "F.", "dist.", "torch.distributed.")) or isinstance(c.func, ast.Attribute) and \
                    isinstance(c.func.value, ast.Name) and c.func.value.id in ("torch", "dist", "F"):
                kinds.append("torch call")
            else:
                kinds.append(f"unknown call {cn}()")
        if not calls:
            kinds.append("method or operator")
        f["use"] = ", ".join(sorted(set(kinds)))
        spelled = " ".join(x for x in (alloc.ctx_call, use.ctx_call, call_name(getattr(wait.stmt.node, "value", None)))
                           if x)
        if re.search(r"get_accelerator|get_device_module|getattr\(torch|accelerator|get_torch_device|"
                     r"device_module|\bself\.\w*stream\w*\(", spelled) or (
                use.ctx_call and not use.ctx_call.startswith("torch.cuda.")):
            f["streams"] = f"device-generic or wrapped API ({use.ctx_call or spelled})"
        elif "self." in f"{alloc.stream} {use.stream}":
            f["streams"] = "stream held in an attribute"
        else:
            f["streams"] = "torch.cuda"
        f["release"] = release_kind(release, name) if release else "function end"
        f["in_loop"] = bool(use.loops)
        return f
