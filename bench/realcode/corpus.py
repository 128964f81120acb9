"""The corpus: the manifest of pinned public repositories, where their
mirrors are, their trees extracted into a scratch folder, and the files chosen
in them by the stream APIs they use.

Nothing of the repositories is ever written inside this project: a mirror is a
bare git directory made by the `fetch` tool (`<root>/<owner>+<name>/repo`), the
pinned commit is extracted with `git archive` into the scratch folder, and the
files to check are chosen by the grep-like rules below, never by hand.
"""
import fnmatch
import os
import re
import subprocess
import sys
import sysconfig
import threading
import tomllib
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MANIFEST = os.path.join(HERE, "manifest.toml")
DEFAULT_MIRROR_ROOT = "/work/.mirror"
MIRROR_ROOT_ENV = "STREAMLIFE_REALCODE_MIRRORS"

# Python: a file is checked when it names a stream, an event or an ordering
# of the PyTorch stream API (or a device-generic spelling of one: `.stream(`,
# `get_accelerator().Stream()`), or an asynchronous collective. Plain
# `torch.cuda.synchronize()` for timing does not qualify.
PY_STREAM_API = re.compile(
    r"\bStream\s*\(|\bcurrent_stream\s*\(|\bdefault_stream\s*\(|\.stream\s*\(|\bwait_stream\s*\("
    r"|\bwait_event\s*\(|\brecord_stream\s*\(|\brecord_event\s*\(|\bset_stream\s*\("
    r"|\bEvent\s*\(|\basync_op\s*=\s*True")

# C++/CUDA: a translation unit is a candidate when it names a stream object
# or a stream-taking API, and it does something whose lifetime or order the
# checker models (an allocation with a stream, an event, a wait, a
# record_stream, a stream-ordered free or copy, an owned RAPIDS buffer).
CXX_STREAM_OBJECT = re.compile(
    r"\bcudaStream_t\b|\bCUstream\b|\bgetCurrentCUDAStream\b|\bCUDAStream\b|\bcuda_stream_view\b"
    r"|\bgetStreamFromPool\b|\bcuda_stream_pool\b|\bcudaStreamCreate")
# Ranked: a file with more distinct kinds of these operations comes first.
CXX_LIFETIME_API = {
    "wait": re.compile(r"\bcudaStreamWaitEvent\b|\bcuStreamWaitEvent\b|\.wait\s*\(\s*\w*[Ss]tream|\bblock\s*\(\s*\w*[Ss]tream"),
    "event": re.compile(r"\bcudaEventRecord\b|\bcuEventRecord\b|\bCUDAEvent\b|\.record\s*\(|\bcuda_event\b"),
    "record_stream": re.compile(r"\brecord_stream\b|\brecordStream\b"),
    "stream_ordered_alloc": re.compile(r"\bcudaMallocAsync\b|\bcudaFreeAsync\b|\bcuMemAllocAsync\b|\bcuMemFreeAsync\b"),
    "owned_buffer": re.compile(r"\bdevice_buffer\b|\bdevice_uvector\b|\bdevice_scalar\b|\bat::empty\b|\btorch::empty\b"
                               r"|\bat::zeros\b|\btorch::zeros\b|\bnew_empty\b|\bempty_like\b"),
    "async_copy": re.compile(r"\bcudaMemcpyAsync\b|\bcudaMemsetAsync\b|\bcuMemcpy\w*Async\b|\.copy_\s*\("),
    "fork_join": re.compile(r"\bfork_streams\b|\bjoin_streams\b|\bCUDAStreamGuard\b|\bOptionalCUDAStreamGuard\b"
                            r"|\bsetCurrentCUDAStream\b"),
    "sync": re.compile(r"\bcudaStreamSynchronize\b|\bcudaDeviceSynchronize\b|\bsynchronize\s*\(\s*\)"),
}
CXX_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx")
# Mutants are written beside their originals in the scratch tree (recall.py);
# one left by an interrupted run is never chosen as a corpus file.
MUTANT_PREFIX = "_streamlife_mutant_"


class CorpusError(Exception):
    """A manifest or mirror problem that stops the run (one line)."""


@dataclass
class CppConfig:
    roots: list
    flags: list
    exclude: list = field(default_factory=list)
    max_files: int = 12
    generate: list = field(default_factory=list)
    needs: list = field(default_factory=list)
    remove: list = field(default_factory=list)
    suffixes: list = field(default_factory=lambda: list(CXX_SUFFIXES))


@dataclass
class Repo:
    name: str            # owner/name
    commit: str
    kind: str
    python_roots: list
    python_exclude: list
    cpp: CppConfig | None
    note: str = ""

    @property
    def key(self):
        return self.name.replace("/", "+")

    @property
    def short(self):
        return self.name.split("/", 1)[1]


def load_manifest(path=DEFAULT_MANIFEST):
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CorpusError(f"cannot read the manifest {path}: {e}")
    defaults = data.get("defaults", {})
    repos = []
    for entry in data.get("repo", []):
        try:
            cpp = None
            if "cpp" in entry:
                c = entry["cpp"]
                cpp = CppConfig(roots=c.get("roots", ["."]), flags=c.get("flags", []),
                                exclude=c.get("exclude", []),
                                max_files=c.get("max_files", defaults.get("cpp_max_files", 12)),
                                generate=c.get("generate", []), needs=c.get("needs", []),
                                remove=c.get("remove", []),
                                suffixes=c.get("suffixes", list(CXX_SUFFIXES)))
            repos.append(Repo(name=entry["name"], commit=entry["commit"], kind=entry["kind"],
                              python_roots=entry.get("python", []),
                              python_exclude=entry.get("python_exclude", []) + defaults.get("python_exclude", []),
                              cpp=cpp, note=entry.get("note", "")))
        except KeyError as e:
            raise CorpusError(f"{path}: a repository entry lacks {e}")
    return repos


def mirror_root(explicit=None):
    return explicit or os.environ.get(MIRROR_ROOT_ENV) or DEFAULT_MIRROR_ROOT


def find_mirror(root, repo):
    """The bare git directory of \\p repo under \\p root, or None. `fetch`
    makes `<root>/<owner>+<name>/repo`; a plain `<root>/<owner>+<name>` git
    directory (or `<owner>+<name>.git`) is accepted too."""
    for cand in (os.path.join(root, repo.key, "repo"), os.path.join(root, repo.key),
                 os.path.join(root, repo.key + ".git")):
        if os.path.isfile(os.path.join(cand, "HEAD")) and os.path.isdir(os.path.join(cand, "objects")):
            return cand
    return None


def has_commit(gitdir, commit):
    r = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", commit + "^{commit}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def extract(gitdir, repo, scratch, log=sys.stderr):
    """The pinned tree of \\p repo under \\p scratch, extracted once (a stamp
    file marks a complete extraction, so an interrupted one is redone).

    Not `git archive`: a `fetch` snapshot lacks the blobs of 4 MiB and more
    (data files, mostly), and git archive stops at the first missing one.
    Blobs are read through `git cat-file --batch`; a missing one is left out
    and counted; submodules (gitlinks) have no content here, symbolic links
    are not followed into."""
    dest = os.path.join(scratch, "src", f"{repo.key}@{repo.commit[:12]}")
    stamp = dest + ".complete"
    if os.path.exists(stamp):
        return dest
    print(f"realcode: extracting {repo.name}@{repo.commit[:12]}", file=log, flush=True)
    # Into a folder of this process, renamed into place when complete: runs
    # sharing a scratch folder never see (or delete) a half-extracted tree.
    final, dest = dest, f"{dest}.part{os.getpid()}"
    if os.path.exists(dest):
        subprocess.run(["rm", "-rf", dest], check=True)
    os.makedirs(dest)
    listing = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", "--full-tree", repo.commit],
                             capture_output=True)
    if listing.returncode != 0:
        raise CorpusError(f"{repo.name}: git ls-tree of {repo.commit} failed: "
                          f"{listing.stderr.decode(errors='replace').strip()}")
    blobs = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            blobs.append((sha.decode(), path.decode(errors="surrogateescape")))
    cat = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    # One writer thread so that a full pipe never blocks both sides.

    def feed():
        for sha, _ in blobs:
            cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.close()
    threading.Thread(target=feed, daemon=True).start()
    missing = 0
    for sha, path in blobs:
        header = cat.stdout.readline().split()
        if len(header) < 2 or header[1] == b"missing":
            missing += 1
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = os.path.join(dest, path)
        if not os.path.realpath(target).startswith(os.path.realpath(dest) + os.sep):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    if cat.wait() != 0:
        raise CorpusError(f"{repo.name}: git cat-file failed while extracting {repo.commit}")
    try:
        os.rename(dest, final)
    except OSError:  # another run finished first: use its tree
        subprocess.run(["rm", "-rf", dest], check=True)
    with open(stamp, "w") as f:
        f.write(f"{len(blobs) - missing} files, {missing} absent from the snapshot\n")
    return final


@dataclass
class Checkout:
    repo: Repo
    status: str            # "ok" or why it was skipped
    src: str | None = None


def checkouts(repos, root, scratch, log=sys.stderr):
    """One Checkout per repository: extracted, or skipped with the reason
    (no mirror under the root, pinned commit not in it)."""
    out = []
    for repo in repos:
        gitdir = find_mirror(root, repo)
        if not gitdir:
            out.append(Checkout(repo, f"skipped: no mirror under {root} (fetch github:{repo.name})"))
            continue
        if not has_commit(gitdir, repo.commit):
            out.append(Checkout(repo, f"skipped: the mirror {gitdir} lacks the pinned commit {repo.commit[:12]}"))
            continue
        out.append(Checkout(repo, "ok", extract(gitdir, repo, scratch, log)))
    return out


def _excluded(rel, patterns):
    return any(fnmatch.fnmatch(rel, p) for p in patterns)


def _walk(src, roots, suffixes, exclude):
    for root in roots:
        base = os.path.normpath(os.path.join(src, root))
        for dirpath, dirnames, names in os.walk(base):
            dirnames.sort()
            for n in sorted(names):
                if not n.endswith(suffixes) or n.startswith(MUTANT_PREFIX):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, src)
                if os.path.islink(path) or _excluded(rel, exclude):
                    continue
                yield rel


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def select_python(checkout):
    """Relative paths of the .py files that use the stream API, in path order."""
    repo = checkout.repo
    if not repo.python_roots:
        return []
    return [rel for rel in _walk(checkout.src, repo.python_roots, (".py",), repo.python_exclude)
            if PY_STREAM_API.search(_read(os.path.join(checkout.src, rel)))]


def cxx_score(text):
    """The kinds of lifetime and ordering operations a C++ file makes, or
    None when it names no stream at all."""
    if not CXX_STREAM_OBJECT.search(text):
        return None
    return sorted(k for k, rx in CXX_LIFETIME_API.items() if rx.search(text))


def select_cpp(checkout, max_files=None):
    """(relative path, kinds) of the C++/CUDA translation units that name a
    stream and make at least one lifetime or ordering operation, the files
    with more kinds first (then by path), at most max_files of them."""
    cpp = checkout.repo.cpp
    if not cpp:
        return []
    ranked = []
    for rel in _walk(checkout.src, cpp.roots, tuple(cpp.suffixes), cpp.exclude):
        kinds = cxx_score(_read(os.path.join(checkout.src, rel)))
        if kinds:
            ranked.append((-len(kinds), rel, kinds))
    ranked.sort()
    limit = cpp.max_files if max_files is None else max_files
    return [(rel, kinds) for _, rel, kinds in ranked[:limit]]


def unpack_torch_headers(scratch, tarball):
    """The unpacked PyTorch C++ headers (include/ under the returned folder),
    unpacked once into the scratch folder, never into the project."""
    dest = os.path.join(scratch, "torch-headers")
    stamp = os.path.join(dest, ".unpacked")
    if not os.path.exists(stamp):
        if not os.path.isfile(tarball):
            raise CorpusError(f"PyTorch headers tarball not found: {tarball} (--torch-headers)")
        part = f"{dest}.part{os.getpid()}"
        subprocess.run(["rm", "-rf", part], check=True)
        os.makedirs(part)
        subprocess.run(["tar", "-xJf", tarball, "-C", part], check=True)
        open(os.path.join(part, ".unpacked"), "w").close()
        try:
            os.rename(part, dest)
        except OSError:
            subprocess.run(["rm", "-rf", part], check=True)
    return dest


def default_torch_tarball():
    name = os.path.join("torch-headers", "torch-2.11.0+cu130-include.tar.xz")
    project = os.path.dirname(os.path.dirname(HERE))
    cands = [os.path.join(project, "..", "shared", name)]
    try:
        common = subprocess.run(["git", "-C", project, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                capture_output=True, text=True).stdout.strip()
        if common:
            cands.append(os.path.join(common, "..", "..", "shared", name))
    except OSError:
        pass
    for c in cands:
        if os.path.isfile(c):
            return os.path.normpath(c)
    return os.path.normpath(cands[0])


# Harness shims: declarations that nvcc's headers provide and clang's CUDA
# wrappers do not, given to every .cu parse (not a change to anyone's code).
HOST_MINMAX_SHIM = """#pragma once
#if defined(__CUDA__) && !defined(__CUDA_ARCH__)
__host__ static inline float max(float a, float b) { return a < b ? b : a; }
__host__ static inline float min(float a, float b) { return b < a ? b : a; }
#endif
"""


class FlagContext:
    """Expands the manifest's placeholders in a repository's C++ flags:
    {src} its tree, {dir} the checked file's folder, {cu} (a prefix) for .cu files only, {repo:owner/name} another repository's tree (a
    dependency, such as RMM's headers for cuDF), {torch} the PyTorch include
    flags, {cuda} the toolkit, {python_include} Python.h's folder, {gen} the
    folder of headers generated for this repository (as its CMake would)."""

    def __init__(self, scratch, trees, cuda, torch_dir_fn):
        self.scratch, self.trees, self.cuda, self._torch = scratch, trees, cuda, torch_dir_fn

    def missing_needs(self, repo):
        return [n for n in repo.cpp.needs if n not in self.trees]

    def gen_dir(self, repo, src):
        for rel in repo.cpp.remove:
            path = os.path.join(src, rel)
            if os.path.isfile(path):
                os.remove(path)
        gen = os.path.join(self.scratch, "gen", f"{repo.key}@{repo.commit[:12]}")
        os.makedirs(gen, exist_ok=True)
        with open(os.path.join(gen, "streamlife_realcode_host_minmax.h"), "w") as f:
            f.write(HOST_MINMAX_SHIM)
        for g in repo.cpp.generate:
            if "template" in g:
                template = self.expand_one(g["template"], repo, src, gen)
                if not os.path.isfile(template):
                    raise CorpusError(f"{repo.name}: the template {template} does not exist")
                text = _read(template)
                for var, value in g.get("vars", {}).items():
                    text = text.replace(f"@{var}@", value)
            else:
                text = g.get("text", "")
            out = os.path.join(gen, g["out"])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "w") as f:
                f.write(text)
        return gen

    def expand_one(self, s, repo, src, gen):
        def sub(m):
            key = m.group(1)
            if key == "src":
                return src
            if key == "cuda":
                return self.cuda
            if key == "gen":
                return gen
            if key == "python_include":
                return sysconfig.get_paths()["include"]
            if key == "dir":
                return "{dir}"   # the file's own folder, expanded per file (file_flags)
            if key == "cu":
                return "{cu}"    # a flag for .cu files only (file_flags)
            if key.startswith("repo:"):
                return self.trees[key[5:]]
            raise CorpusError(f"{repo.name}: unknown placeholder {{{key}}} in the manifest")
        return re.sub(r"\{([a-z_]+(?::[\w.+-]+/[\w.+-]+)?)\}", sub, s)

    def flags(self, repo, src):
        gen = self.gen_dir(repo, src)
        out = []
        for f in repo.cpp.flags:
            if f == "{torch}":
                t = self._torch()
                out += ["-I" + os.path.join(t, "include"),
                        "-I" + os.path.join(t, "include", "torch", "csrc", "api", "include")]
            else:
                out.append(self.expand_one(f, repo, src, gen))
        return out, gen


def file_flags(flags, path):
    """A repository's flags for one file: {dir} is the file's folder; a flag
    prefixed with {cu} is given to .cu files only (what a build passes to nvcc
    and not to the host compiler, such as torch's -D__CUDA_NO_HALF_OPERATORS__)."""
    d = os.path.dirname(path)
    out = []
    for f in flags:
        if f.startswith("{cu}"):
            if not path.endswith(".cu"):
                continue
            f = f[len("{cu}"):]
        out.append(f.replace("{dir}", d))
    return out


def cuda_mode_flags(path, cuda, gen):
    """What `streamlife check` adds for a .cu file, given to the parse-only
    baseline too so both parse the same thing."""
    if not path.endswith(".cu"):
        return []
    args = ["-x", "cuda", "--cuda-host-only", "-nocudalib", "--cuda-path=" + cuda,
            "-include", os.path.join(gen, "streamlife_realcode_host_minmax.h")]
    cccl = os.path.join(cuda, "include", "cccl")
    if os.path.isdir(cccl):
        args += ["-isystem", cccl]
    return args
