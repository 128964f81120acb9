"""Recall by mutation: the mutation engines (mutate_python.py, mutate_cpp.py)
make bugs at every site of a correct pattern they recognise in the corpus'
chosen files; streamlife is run on each mutant next to its original, and a
mutant is found when it has a finding of an expected check that the
original does not have (same line, same check, same message: the edits keep
the line count). Reported per front end and operator, with a few misses per
operator sampled with their mutated lines and what the site looks like."""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import corpus
import measure
import mutate_python
import precision

MUTANT_PREFIX = corpus.MUTANT_PREFIX
SAMPLES_PER_OPERATOR = 4
BATCH = 150


def _key(f):
    return (f["check"], f["line"], f["message"])


def _by_file(findings):
    out = {}
    for f in findings:
        out.setdefault(f["path"], set()).add(_key(f))
    return out


def judge(m, original, mutated, error=None):
    """The verdict for mutant m from the findings of its original and its
    own (sets of (check, line, message))."""
    if error:
        return {"verdict": "error", "why": error}
    new = {f for f in mutated - original if f[0] in m.expected}
    if new:
        return {"verdict": "found", "findings": sorted(new)}
    other = sorted({f[0] for f in mutated - original})
    said = f"streamlife reported only {', '.join(other)}" if other else \
        "no new finding in the mutant"
    return {"verdict": "missed", "why": said}


def python_mutants(checkout):
    """The Python mutants of a repository's chosen files."""
    out = []
    for rel in corpus.select_python(checkout):
        path = os.path.join(checkout.src, rel)
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
            out += mutate_python.FileMutator(path, rel, source).mutants()
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            continue
    return out


def _run_python_batch(tools, src, files):
    """{path: set of finding keys} for the files, or None for a crash; the
    files streamlife could not parse are in the second result."""
    run = measure.run([tools.streamlife, "check", "--format", "json", "--source-root", src] + files,
                      timeout=tools.timeout, cwd=src)
    if run.crashed:
        return None, {}
    parsed = precision._findings_from_json(run.stdout, src, "", "python")
    if parsed is None:
        return None, {}
    findings, failures = parsed
    return _by_file(findings), failures


def judge_python(checkout, mutants, tools):
    """Writes each mutant beside its original (so local imports resolve the
    same), runs streamlife over originals and mutants in batches, removes
    the mutants, and returns one verdict per mutant."""
    src = checkout.src
    files = []
    for i, m in enumerate(mutants):
        d, b = os.path.split(m.path)
        rel = os.path.join(d, f"{MUTANT_PREFIX}{os.getpid()}_{i}_{b}")
        with open(os.path.join(src, rel), "w", encoding="utf-8") as f:
            f.write("\n".join(m.lines))
        files.append(rel)
    try:
        originals = sorted({m.path for m in mutants})
        results, failures = {}, {}
        for chunk in [originals] + [files[i:i + BATCH] for i in range(0, len(files), BATCH)]:
            res, fail = _run_python_batch(tools, src, chunk)
            if res is None:  # a crash: each file alone
                res, fail = {}, {}
                for f in chunk:
                    r1, f1 = _run_python_batch(tools, src, [f])
                    if r1 is None:
                        fail[f] = "streamlife crashed on it"
                    else:
                        res.update(r1)
                        fail.update(f1)
            results.update(res)
            failures.update(fail)
        verdicts = []
        for m, rel in zip(mutants, files):
            err = failures.get(rel) or (failures.get(m.path) and f"original: {failures[m.path]}")
            verdicts.append(judge(m, results.get(m.path, set()), results.get(rel, set()), err))
        return verdicts
    finally:
        for rel in files:
            try:
                os.remove(os.path.join(src, rel))
            except OSError:
                pass


def run(ready, o, tools, flagctx, log=sys.stderr):
    """Recall over the ready checkouts; the report's `recall` section."""
    rows = []
    langs = o.langs
    if "python" in langs:
        jobs = [c for c in ready if c.repo.python_roots]

        def one(c):
            ms = python_mutants(c)
            vs = judge_python(c, ms, tools) if ms else []
            print(f"realcode: {c.repo.name} Python mutants: {len(ms)}, found "
                  f"{sum(v['verdict'] == 'found' for v in vs)}", file=log, flush=True)
            return [("python", c.repo.name, m, v) for m, v in zip(ms, vs)]
        with ThreadPoolExecutor(max_workers=o.jobs) as pool:
            for r in pool.map(one, jobs):
                rows += r
    notes = []
    if "cpp" in langs:
        try:
            import mutate_cpp
        except ImportError:
            notes.append("C++ mutation engine: not written yet (mutate_cpp.py)")
        else:
            rows += mutate_cpp.run(ready, o, tools, flagctx, log)
    out = summarize(rows)
    out["notes"] = notes
    return out


def mutate_cpp_operators():
    """The C++ engine's operators (mutate_cpp.OPERATORS; Python's when it is absent)."""
    try:
        import mutate_cpp
    except ImportError:
        return mutate_python.OPERATORS
    return mutate_cpp.OPERATORS


def summarize(rows):
    table, misses, errors, mutants = [], [], [], []
    front_ends = sorted({r[0] for r in rows})
    for fe in front_ends:
        operators = mutate_python.OPERATORS if fe == "python" else mutate_cpp_operators()
        for op in operators:
            sel = [r for r in rows if r[0] == fe and r[2].operator == op]
            judged = [r for r in sel if r[3]["verdict"] != "error"]
            found = sum(1 for r in judged if r[3]["verdict"] == "found")
            table.append({"front_end": fe, "operator": op, "mutants": len(judged), "found": found,
                          "missed": len(judged) - found,
                          "recall": f"{100 * found / len(judged):.0f}%" if judged else "-"})
            missed = [r for r in judged if r[3]["verdict"] == "missed"]
            step = max(1, len(missed) // SAMPLES_PER_OPERATOR)
            for r in missed[::step][:SAMPLES_PER_OPERATOR]:
                m = r[2]
                why = r[3]["why"] + "; " + ", ".join(f"{k}: {v}" for k, v in m.features.items())
                misses.append({"front_end": fe, "operator": op, "repo": r[1], "path": m.path, "line": m.line,
                               "function": m.function, "why": why, "diff": m.diff})
        total = [r for r in rows if r[0] == fe and r[3]["verdict"] != "error"]
        found = sum(1 for r in total if r[3]["verdict"] == "found")
        table.append({"front_end": fe, "operator": "all", "mutants": len(total), "found": found,
                      "missed": len(total) - found,
                      "recall": f"{100 * found / len(total):.0f}%" if total else "-"})
    for fe, repo, m, v in rows:
        entry = {"front_end": fe, "repo": repo, "operator": m.operator, "path": m.path, "line": m.line,
                 "function": m.function, "verdict": v["verdict"], "features": m.features, "diff": m.diff}
        entry.update({k: v[k] for k in ("why", "findings") if k in v})
        mutants.append(entry)
        if v["verdict"] == "error":
            errors.append(entry)
    return {"table": table, "misses": misses, "errors": errors, "mutants": mutants}
