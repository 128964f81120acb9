"""Precision on real code: `streamlife check` over the chosen files of each
repository, with its crashes, parse failures, findings and cost against a
plain parse of the same files.

Python: one `streamlife check` per repository over all its chosen files (as a
user runs it; local imports are followed through the extracted tree). When
it dies (a signal, or an exit status other than 0/1/2), each file is run
alone to find the ones that crash, and the rest again together. The
baseline is a plain parse of the same files (`ast.parse` in one python3
process) and `pyflakes3` when it is installed.

C++/CUDA: per translation unit, `clang++-22 -fsyntax-only` with the
repository's flags (a failure is a parse failure: the file is not checked),
then `streamlife check FILE -- FLAGS` alone (so that a crash is that file's).
"""
import hashlib
import json
import os
import re
import shutil
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import corpus
import measure

AST_PARSE = r"""
import ast, json, sys, warnings
warnings.simplefilter("ignore")
bad = []
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            ast.parse(f.read(), filename=path)
    except (SyntaxError, ValueError) as e:
        bad.append([path, f"line {getattr(e, 'lineno', '?')}: {e.__class__.__name__}: {getattr(e, 'msg', e)}"])
json.dump(bad, sys.stdout)
"""


class Tools:
    def __init__(self, streamlife, clangxx, python, pyflakes, cuda, timeout, syntax_cache=None):
        self.streamlife, self.clangxx, self.python = streamlife, clangxx, python
        self.pyflakes, self.cuda, self.timeout = pyflakes, cuda, timeout
        self.syntax_cache = syntax_cache


def _syntax_key(clangxx, cmd, path):
    """What decides a `clang++ -fsyntax-only` result: the compiler binary,
    the command line and the file's text (the headers are those of pinned
    trees, the same in every run)."""
    h = hashlib.sha256()
    st = os.stat(os.path.realpath(clangxx))
    h.update(f"{os.path.realpath(clangxx)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    h.update("\0".join(cmd).encode())
    with open(path, "rb") as f:
        h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:24]


def syntax_baseline(tools, cmd, path, cwd):
    """`clang++ -fsyntax-only` of one file: (returncode, crashed, describe,
    stderr, wall, cpu, cached). The compiler's result does not depend on the
    streamlife measured, so with a cache folder (--syntax-cache) it is run
    once per file and command line and its measured times are reused: runs
    before and after a change then pay for the baseline once."""
    path_of = None
    if tools.syntax_cache:
        path_of = os.path.join(tools.syntax_cache, _syntax_key(tools.clangxx, cmd, path) + ".json")
        try:
            with open(path_of, encoding="utf-8") as f:
                c = json.load(f)
            return (c["returncode"], c["crashed"], c["describe"], c["stderr"], c["wall"], c["cpu"], True)
        except (OSError, ValueError, KeyError):
            pass
    r = measure.run(cmd, timeout=tools.timeout, cwd=cwd)
    out = (r.returncode, r.crashed, r.describe(), r.stderr[-20000:], r.wall, r.cpu, False)
    if path_of and not r.timed_out:
        os.makedirs(tools.syntax_cache, exist_ok=True)
        tmp = f"{path_of}.tmp{os.getpid()}.{threading.get_ident()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(dict(zip(("returncode", "crashed", "describe", "stderr", "wall", "cpu"), out[:6])), f)
        os.replace(tmp, path_of)
    return out


def _findings_from_json(text, src, repo, lang):
    """(findings, failures) from a JSON report; None when it is not one."""
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        return None
    findings, failures = [], {}
    for f in report.get("files", []):
        if f.get("failure") or not f.get("parsed", True):
            errs = f.get("compileErrors") or []
            why = f.get("failure") or (errs[0]["message"] if errs else "not parsed")
            failures[os.path.relpath(f["path"], src)] = why
    for d in report.get("findings", []):
        loc = d.get("location", {})
        path = loc.get("file", "")
        findings.append({
            "repo": repo, "lang": lang,
            "path": os.path.relpath(path, src) if os.path.isabs(path) else path,
            "line": loc.get("line", 0), "column": loc.get("column", 0),
            "check": d["check"], "message": d["message"],
            "notes": [f"{os.path.relpath(n['location'].get('file', ''), src) if n['location'].get('file') else ''}"
                      f":{n['location'].get('line', '')}: {n['message']}" for n in d.get("notes", [])],
        })
    return findings, failures


def _streamlife_python(tools, src, files):
    cmd = [tools.streamlife, "check", "--format", "json", "--source-root", src] + files
    return measure.run(cmd, timeout=tools.timeout, cwd=src)


def run_python(checkout, files, tools):
    """The Python measure of one repository."""
    repo, src = checkout.repo.name, checkout.src
    result = {"repo": repo, "lang": "python", "files": len(files), "crashes": [], "parse_failures": [],
              "findings": [], "time": {}}
    if not files:
        return result
    run = _streamlife_python(tools, src, files)
    checked = list(files)
    if run.crashed:
        # Find the files that crash alone; check the others together.
        crashers = []
        for f in files:
            alone = _streamlife_python(tools, src, [f])
            if alone.crashed:
                crashers.append({"path": f, "how": alone.describe(), "stderr": crash_message(alone.stderr)})
        result["crashes"] = crashers
        if not crashers:
            result["crashes"] = [{"path": "(the run over all files)", "how": run.describe(),
                                  "stderr": crash_message(run.stderr)}]
        bad = {c["path"] for c in crashers}
        checked = [f for f in files if f not in bad]
        run = _streamlife_python(tools, src, checked) if checked else None
    if run is not None and not run.crashed:
        parsed = _findings_from_json(run.stdout, src, repo, "python")
        if parsed is None:
            result["crashes"].append({"path": "(the run over all files)",
                                      "how": "no JSON report: " + run.stderr.strip()[-200:], "stderr": ""})
        else:
            result["findings"], failures = parsed
            result["parse_failures"] = [{"path": p, "why": w} for p, w in sorted(failures.items())]
    elif run is not None:
        result["crashes"].append({"path": "(the run over the files that do not crash alone)",
                                  "how": run.describe(), "stderr": crash_message(run.stderr)})
    # Baselines over the same files.
    if checked and run is not None:
        result["time"]["streamlife"] = {"wall": run.wall, "cpu": run.cpu}
        ast_run = measure.run([tools.python, "-c", AST_PARSE] + checked, timeout=tools.timeout, cwd=src)
        result["time"]["ast.parse"] = {"wall": ast_run.wall, "cpu": ast_run.cpu}
        try:
            python_rejects = dict(json.loads(ast_run.stdout))
        except (json.JSONDecodeError, ValueError):
            python_rejects = {}
        for pf in result["parse_failures"]:
            pf["python_parses_it"] = pf["path"] not in python_rejects
        if tools.pyflakes:
            fl = measure.run([tools.pyflakes] + checked, timeout=tools.timeout, cwd=src)
            result["time"]["pyflakes"] = {"wall": fl.wall, "cpu": fl.cpu}
    return result


def crash_message(stderr):
    """The lines a crash printed before its stack trace (the assertion, the
    exception), at most 400 characters."""
    keep = [line.strip() for line in stderr.splitlines()
            if line.strip() and not re.match(r"\s*#\d+ ", line) and "Stack dump" not in line
            and "PLEASE submit" not in line and not line.startswith("Program arguments")]
    return " / ".join(keep)[:400]


def _first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()[:300]
    return stderr.strip().splitlines()[-1][:300] if stderr.strip() else "no message"


def run_cpp_file(src, rel, flags, gen, tools, parse_only=False):
    path = os.path.join(src, rel)
    mode = corpus.cuda_mode_flags(rel, tools.cuda, gen)
    flags = corpus.file_flags(flags, path)
    out = {"path": rel}
    rc, crashed, how, stderr, wall, cpu, cached = syntax_baseline(
        tools, [tools.clangxx, "-fsyntax-only"] + mode + flags + [path], path, src)
    out["syntax"] = {"wall": wall, "cpu": cpu, "cached": cached}
    if rc != 0:
        out["parse_failure"] = _first_error(stderr) if not crashed else how
        return out
    if parse_only:
        out["streamlife"] = {"wall": 0.0, "cpu": 0.0}
        out["report"] = "{}"
        return out
    sl = measure.run([tools.streamlife, "check", "--format", "json", "--source-root", src, path, "--"]
                     + mode + flags, timeout=tools.timeout, cwd=src)
    out["streamlife"] = {"wall": sl.wall, "cpu": sl.cpu}
    if sl.crashed:
        out["crash"] = {"how": sl.describe(), "stderr": crash_message(sl.stderr)}
        return out
    out["report"] = sl.stdout
    if sl.returncode == 2:
        out["streamlife_error"] = _first_error(sl.stderr)
    return out


def run_cpp(checkout, selected, flags, gen, tools, jobs, log=sys.stderr, parse_only=False):
    repo, src = checkout.repo.name, checkout.src
    result = {"repo": repo, "lang": "cpp", "files": len(selected), "crashes": [], "parse_failures": [],
              "streamlife_errors": [], "findings": [], "time": {}, "selected": [
                  {"path": rel, "kinds": kinds} for rel, kinds in selected]}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outs = list(pool.map(lambda s: run_cpp_file(src, s[0], flags, gen, tools, parse_only), selected))
    syn_cpu = syn_wall = sl_cpu = sl_wall = syn_cached_cpu = 0.0
    # The units whose baseline this run measured: the only ones whose ratio
    # compares two times taken under the same load.
    fresh_syn_cpu = fresh_sl_cpu = 0.0
    for o in outs:
        syn_cached_cpu += o["syntax"]["cpu"] if o["syntax"].get("cached") else 0.0
        if "parse_failure" in o:
            result["parse_failures"].append({"path": o["path"], "why": o["parse_failure"]})
            continue
        if "crash" in o:
            result["crashes"].append({"path": o["path"], **o["crash"]})
            continue
        syn_cpu += o["syntax"]["cpu"]
        syn_wall += o["syntax"]["wall"]
        sl_cpu += o["streamlife"]["cpu"]
        sl_wall += o["streamlife"]["wall"]
        if not o["syntax"].get("cached"):
            fresh_syn_cpu += o["syntax"]["cpu"]
            fresh_sl_cpu += o["streamlife"]["cpu"]
        if "streamlife_error" in o:
            result["streamlife_errors"].append({"path": o["path"], "why": o["streamlife_error"]})
        parsed = _findings_from_json(o["report"], src, repo, "cpp")
        if parsed:
            result["findings"] += parsed[0]
    result["parsed"] = len(outs) - len(result["parse_failures"])
    # A cached baseline's CPU was spent by an earlier run (syntax_baseline):
    # kept apart so that the report can say what a run without the cache costs.
    result["time"] = {"syntax": {"wall": syn_wall, "cpu": syn_cpu, "cached_cpu": syn_cached_cpu,
                                 "fresh_cpu": fresh_syn_cpu},
                      "streamlife": {"wall": sl_wall, "cpu": sl_cpu, "fresh_cpu": fresh_sl_cpu}}
    print(f"realcode: {repo} C++: {result['parsed']}/{len(outs)} parse, {len(result['findings'])} findings, "
          f"{len(result['crashes'])} crashes", file=log, flush=True)
    return result


def find_tools(build_dir, clangxx, cuda, timeout, syntax_cache=None):
    streamlife = os.path.join(build_dir, "bin", "streamlife")
    if not os.access(streamlife, os.X_OK):
        raise corpus.CorpusError(f"{streamlife} does not exist (build first, or --build-dir)")
    return Tools(streamlife=streamlife, clangxx=clangxx, python=sys.executable,
                 pyflakes=shutil.which("pyflakes3"), cuda=cuda, timeout=timeout,
                 syntax_cache=syntax_cache)
