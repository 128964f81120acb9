"""Just enough C++ syntax for the C++ mutation engine: tokens (comments,
literals and preprocessor lines set aside), function bodies, and their
statements as a tree of blocks, with the loops that enclose each statement.

Why not a real front end: the scripts stay on Python's standard library, and
the mutation engine only needs the call shapes of the stream APIs in
statement order (cudaMallocAsync(&p, n, s), cudaEventRecord(e, s),
kernel<<<g, b, m, s>>>(...), ev.record(s), ev.block(s), t.record_stream(s),
rmm::device_buffer b(n, s), ...), which tokens give exactly; what tokens
cannot tell (a macro that hides a call, a type behind `auto`) only makes a
site unrecognised, never a wrong mutant, because every mutant is still
checked to parse (the original file must parse with the repository's flags,
and streamlife reports a mutant that does not compile as an error, not a
miss)."""
import re
from dataclasses import dataclass, field

KEYWORDS_NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "sizeof", "decltype", "alignas", "return",
                          "noexcept", "alignof", "static_assert", "typeid", "__attribute__", "defined", "requires",
                          "throw", "new", "delete", "co_await", "co_return"}


@dataclass
class Tok:
    kind: str    # id, num, str, punct
    s: str
    start: int   # offset in the text
    end: int
    line: int    # 1-based


_PUNCT3 = ("<<<", ">>>", "<<=", ">>=", "...", "->*", "<=>")
_PUNCT2 = ("::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
           "&=", "|=", "^=", ".*", "##")


def tokenize(text):
    toks, i, n, line = [], 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:          # a preprocessor line, with continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    i += 2
                    line += 1
                    continue
                if text.startswith("/*", i):
                    j = text.find("*/", i + 2)
                    j = n if j < 0 else j + 2
                    line += text.count("\n", i, j)
                    i = j
                    continue
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^(\s]{0,16})\(', text[i:i + 24])
        if m:                                    # raw string literal
            close = ")" + m.group(1) + '"'
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            toks.append(Tok("str", text[i:j], i, j, line))
            line += text.count("\n", i, j)
            i = j
            continue
        if c in "\"'" or (c in "uUL" and i + 1 < n and text[i + 1] in "\"'") or (
                text.startswith("u8", i) and i + 2 < n and text[i + 2] in "\"'"):
            q = i
            while text[q] not in "\"'":
                q += 1
            quote = text[q]
            j = q + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            toks.append(Tok("str", text[i:j], i, j, line))
            i = j
            continue
        if c.isalpha() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            toks.append(Tok("id", text[i:j], i, j, line))
            i = j
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            m = re.match(r"[0-9.]+(?:[eEpP][+-]?[0-9]+)?[\w']*", text[i:])
            j = i + m.end()
            toks.append(Tok("num", text[i:j], i, j, line))
            i = j
            continue
        for p in _PUNCT3 + _PUNCT2:
            if text.startswith(p, i):
                toks.append(Tok("punct", p, i, i + len(p), line))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i, i + 1, line))
            i += 1
    return toks


def match_close(toks, i):
    """Index of the bracket closing toks[i] ( ( [ { ), or len(toks)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    open_, close = toks[i].s, pairs[toks[i].s]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].s == open_:
            depth += 1
        elif toks[j].s == close:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


@dataclass
class Function:
    name: str
    open: int     # index of the body's {
    close: int    # index of its }
    params: list  # token lists, one per parameter


def functions(toks):
    """Function bodies (and constructor bodies) at namespace or class scope;
    lambdas inside them are part of their statements."""
    out, i, n = [], 0, len(toks)
    while i < n:
        t = toks[i]
        if t.s == "{":
            fn = _function_at(toks, i)
            close = match_close(toks, i)
            if fn is not None:
                out.append(Function(fn[0], i, close, fn[1]))
                i = close + 1
                continue
            i += 1   # namespace, class, extern "C", initializer: look inside
            continue
        i += 1
    return out


def _function_at(toks, brace):
    """(name, params) when the { at \\p brace opens a function body."""
    j = brace - 1
    steps = 0
    while j >= 0 and steps < 40:
        s = toks[j].s
        if s in (";", "{", "}", "="):
            return None
        if s == ")":
            break
        j -= 1
        steps += 1
    else:
        return None
    if j < 0:
        return None
    # Walk back over a constructor's initializer list `: a_(x), b_{y}` to the
    # parameter list.
    while True:
        depth, k = 0, j
        while k >= 0:
            if toks[k].s == ")":
                depth += 1
            elif toks[k].s == "(":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        if k <= 0:
            return None
        name = toks[k - 1]
        before = toks[k - 2].s if k >= 2 else ""
        if name.kind != "id" or name.s in KEYWORDS_NOT_FUNCTIONS:
            return None
        if before in (",", ":") and _in_initializer_list(toks, k - 1):
            # b_(y) of an initializer list: continue to the previous ) .
            m = k - 2
            while m >= 0 and toks[m].s != ")":
                if toks[m].s in (";", "{", "}"):
                    return None
                m -= 1
            if m < 0:
                return None
            j = m
            continue
        params, cur = [], []
        d = 0
        for t in toks[k + 1:j]:
            if t.s in "([{<":
                d += 1
            elif t.s in ")]}>":
                d -= 1
            if t.s == "," and d == 0:
                params.append(cur)
                cur = []
            else:
                cur.append(t)
        if cur:
            params.append(cur)
        return name.s, params


def _in_initializer_list(toks, name_index):
    """The member at name_index follows `) :` or `, ` of an initializer list."""
    k = name_index - 1
    while k >= 0:
        s = toks[k].s
        if s == ":" and k > 0 and toks[k - 1].s in (")", "override", "const", "noexcept", "final"):
            return True
        if s in (";", "{", "}"):
            return False
        if s == ")":
            depth = 0
            while k >= 0:
                if toks[k].s == ")":
                    depth += 1
                elif toks[k].s == "(":
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
        k -= 1
    return False


@dataclass
class Stmt:
    lo: int                 # first token
    hi: int                 # last token (the ; )
    loops: tuple            # ids of enclosing loops
    blocks: tuple           # ids of enclosing blocks (innermost last)
    block: int              # id of the holding block
    in_lambda: bool = False
    order: int = 0
    extra: dict = field(default_factory=dict)


def statements(toks, fn):
    """The simple statements of a function body, in order, with their
    enclosing blocks and loops; compound statements are descended into."""
    out = []
    counter = [0]

    def new_id():
        counter[0] += 1
        return counter[0]

    def block(lo, hi, loops, blocks):
        """Statements of toks[lo:hi] (inside a { })."""
        bid = new_id()
        blocks = blocks + (bid,)
        i = lo
        while i < hi:
            i = stmt(i, hi, loops, blocks, bid)

    def stmt(i, hi, loops, blocks, bid):
        t = toks[i]
        s = t.s
        if s == "{":
            c = match_close(toks, i)
            block(i + 1, c, loops, blocks)
            return c + 1
        if s == ";":
            return i + 1
        if s in ("if", "switch", "while", "for") and i + 1 < hi and toks[i + 1].s == "(":
            k = i + 1
            if s == "if" and toks[k].s == "constexpr":
                k += 1
            c = match_close(toks, k)
            inner_loops = loops + (new_id(),) if s in ("while", "for") else loops
            j = sub(c + 1, hi, inner_loops, blocks)
            if s == "if" and j < hi and toks[j].s == "else":
                j = sub(j + 1, hi, loops, blocks)
            return j
        if s == "if" and i + 2 < hi and toks[i + 1].s == "constexpr":
            c = match_close(toks, i + 2)
            j = sub(c + 1, hi, loops, blocks)
            if j < hi and toks[j].s == "else":
                j = sub(j + 1, hi, loops, blocks)
            return j
        if s == "do":
            j = sub(i + 1, hi, loops + (new_id(),), blocks)
            while j < hi and toks[j].s != ";":
                j += 1
            return j + 1
        if s == "try":
            j = sub(i + 1, hi, loops, blocks)
            while j < hi and toks[j].s == "catch":
                c = match_close(toks, j + 1)
                j = sub(c + 1, hi, loops, blocks)
            return j
        if s in ("case", "default"):
            j = i
            while j < hi and toks[j].s != ":":
                j += 1
            return j + 1
        if t.kind == "id" and i + 1 < hi and toks[i + 1].s == ":" and s not in ("public", "private", "protected"):
            return i + 2   # a label
        # A simple statement: up to the ; at depth 0 (lambdas and braces inside).
        j, depth = i, 0
        while j < hi:
            x = toks[j].s
            if x in "([{":
                depth += 1
            elif x in ")]}":
                depth -= 1
            elif x == ";" and depth == 0:
                break
            j += 1
        out.append(Stmt(i, min(j, hi - 1), loops, blocks, bid))
        return j + 1

    def sub(i, hi, loops, blocks):
        """One sub-statement (a block or a statement) as its own block."""
        if i >= hi:
            return i
        if toks[i].s == "{":
            c = match_close(toks, i)
            block(i + 1, c, loops, blocks)
            return c + 1
        bid = new_id()
        return stmt(i, hi, loops, blocks + (bid,), bid)

    block(fn.open + 1, fn.close, (), ())
    for k, s in enumerate(out):
        s.order = k
    return out


def split_args(toks, open_paren):
    """The argument token lists of the call whose ( is at open_paren."""
    close = match_close(toks, open_paren)
    args, cur, depth = [], [], 0
    for t in toks[open_paren + 1:close]:
        if t.s in "([{":
            depth += 1
        elif t.s in ")]}":
            depth -= 1
        if t.s == "," and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        args.append(cur)
    return args, close


def joined(toks):
    """Tokens as text with the spaces a reader expects (for keys)."""
    return "".join(t.s if t.kind == "punct" else (" " + t.s + " ") for t in toks).replace("  ", " ").strip()
