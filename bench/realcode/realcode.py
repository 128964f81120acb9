#!/usr/bin/env python3
"""streamlife on real code: precision, crashes, cost and mutation recall over a
corpus of pinned public repositories read from local mirrors.

usage:
  realcode.py run   [--lang python,cpp] [--no-recall|--no-precision] [--repos REGEX] [-j N] [--out DIR] ...
  realcode.py list  [--repos REGEX]     the manifest, which mirrors are there, the files chosen
  realcode.py fetch-sources             the `fetch` sources of the manifest, one a line

Nothing is downloaded: the repositories come from --mirrors (default
$STREAMLIFE_REALCODE_MIRRORS or /work/.mirror, as the `fetch` tool lays them
out); one that is missing is reported as skipped. Trees are extracted into
--scratch (default /tmp/streamlife-realcode), never into this project.
Python 3.11 standard library only. See README.md.
"""
import argparse
import json
import os
import re
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import corpus
import precision
import report
import triage

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(os.path.dirname(HERE))


def parse_args(argv):
    p = argparse.ArgumentParser(prog="realcode.py", description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["run", "list", "fetch-sources"])
    p.add_argument("--manifest", default=corpus.DEFAULT_MANIFEST)
    p.add_argument("--triage", default=os.path.join(HERE, "triage.tsv"))
    p.add_argument("--mirrors", help=f"mirror root (default ${corpus.MIRROR_ROOT_ENV} or {corpus.DEFAULT_MIRROR_ROOT})")
    p.add_argument("--scratch", default="/tmp/streamlife-realcode", help="where trees are extracted")
    p.add_argument("--build-dir", default=os.path.join(PROJECT, "build"))
    p.add_argument("--clangxx", default="/usr/lib/llvm-22/bin/clang++")
    p.add_argument("--cuda-path", default="/usr/local/cuda")
    p.add_argument("--torch-headers", help="the PyTorch 2.11 headers tarball (default: ../shared/torch-headers)")
    p.add_argument("--repos", help="only repositories whose owner/name matches this regular expression")
    p.add_argument("--lang", default="python,cpp", help="python, cpp or both (comma-separated)")
    p.add_argument("--no-recall", action="store_true", help="precision only")
    p.add_argument("--no-precision", action="store_true", help="recall only")
    p.add_argument("--max-cpp-files", type=int, help="override every repository's max_files")
    p.add_argument("--parse-only", action="store_true",
                   help="C++: only clang++ -fsyntax-only (to tune a repository's flags in the manifest)")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=300, help="seconds per command")
    p.add_argument("--out", help="folder for report.json and report.md (default: SCRATCH/report)")
    o = p.parse_args(argv)
    o.langs = {x.strip() for x in o.lang.split(",") if x.strip()}
    if not o.langs <= {"python", "cpp"}:
        p.error("--lang takes python, cpp or both")
    return o


def main(argv):
    o = parse_args(argv)
    try:
        repos = corpus.load_manifest(o.manifest)
        if o.command == "fetch-sources":
            for r in repos:
                print(f"github:{r.name}")
            return 0
        chosen = [r for r in repos if not o.repos or re.search(o.repos, r.name)]
        root = corpus.mirror_root(o.mirrors)
        os.makedirs(o.scratch, exist_ok=True)
        if o.command == "list":
            return list_corpus(chosen, repos, root, o)
        return run(chosen, repos, root, o)
    except (corpus.CorpusError, triage.TriageError) as e:
        print(f"realcode: error: {e}", file=sys.stderr)
        return 2


def prepare(chosen, all_repos, root, o):
    """Checkouts of the chosen repositories and of the dependencies their C++
    flags need."""
    names = {r.name for r in chosen}
    if "cpp" in o.langs:
        for r in chosen:
            if r.cpp:
                names.update(r.cpp.needs)
    wanted = [r for r in all_repos if r.name in names]
    cos = corpus.checkouts(wanted, root, o.scratch)
    trees = {c.repo.name: c.src for c in cos if c.status == "ok"}
    return [c for c in cos if c.repo in chosen], trees


def list_corpus(chosen, all_repos, root, o):
    cos, _ = prepare(chosen, all_repos, root, o)
    for c in cos:
        if c.status != "ok":
            print(f"{c.repo.name}: {c.status}")
            continue
        py = corpus.select_python(c) if "python" in o.langs else []
        cx = corpus.select_cpp(c, o.max_cpp_files) if "cpp" in o.langs else []
        print(f"{c.repo.name}@{c.repo.commit[:12]}: {len(py)} Python files, {len(cx)} C++ translation units")
        for rel, kinds in cx:
            print(f"    {rel}  [{', '.join(kinds)}]")
    return 0


def run(chosen, all_repos, root, o):
    started = time.time()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_started = usage.ru_utime + usage.ru_stime
    tools = precision.find_tools(o.build_dir, o.clangxx, o.cuda_path, o.timeout)
    entries = triage.load(o.triage)
    cos, trees = prepare(chosen, all_repos, root, o)
    skipped = [{"repo": c.repo.name, "why": c.status} for c in cos if c.status != "ok"]
    ready = [c for c in cos if c.status == "ok"]
    py_results, cpp_results = [], []
    torch_dir = {}

    def torch():
        if "dir" not in torch_dir:
            torch_dir["dir"] = corpus.unpack_torch_headers(o.scratch, o.torch_headers or corpus.default_torch_tarball())
        return torch_dir["dir"]
    flagctx = corpus.FlagContext(o.scratch, trees, o.cuda_path, torch)

    if not o.no_precision and "python" in o.langs:
        jobs = [(c, corpus.select_python(c)) for c in ready if c.repo.python_roots]
        with ThreadPoolExecutor(max_workers=o.jobs) as pool:
            for res in pool.map(lambda cf: precision.run_python(cf[0], cf[1], tools), jobs):
                print(f"realcode: {res['repo']} Python: {res['files']} files, {len(res['findings'])} findings, "
                      f"{len(res['crashes'])} crashes", file=sys.stderr, flush=True)
                py_results.append(res)
    if not o.no_precision and "cpp" in o.langs:
        for c in ready:
            if not c.repo.cpp:
                continue
            missing = flagctx.missing_needs(c.repo)
            if missing:
                skipped.append({"repo": c.repo.name, "why": f"C++ skipped: needs {', '.join(missing)} (no mirror)"})
                continue
            flags, gen = flagctx.flags(c.repo, c.src)
            selected = corpus.select_cpp(c, o.max_cpp_files)
            cpp_results.append(precision.run_cpp(c, selected, flags, gen, tools, o.jobs, parse_only=o.parse_only))

    # Fingerprints, from the flagged lines of the extracted trees.
    src_of = {c.repo.name: c.src for c in ready}
    cache = {}

    def line_of(repo, path, line):
        key = (repo, path)
        if key not in cache:
            try:
                with open(os.path.join(src_of[repo], path), encoding="utf-8", errors="replace") as f:
                    cache[key] = f.read().splitlines()
            except OSError:
                cache[key] = []
        lines = cache[key]
        return lines[line - 1] if 0 < line <= len(lines) else ""
    all_findings = [f for r in py_results + cpp_results for f in r["findings"]]
    triage.assign_fingerprints(all_findings, line_of)

    def triage_of(findings):
        counts = {v: 0 for v in triage.VERDICTS}
        counts["untriaged"] = 0
        for f in findings:
            e = entries.get(f["fingerprint"])
            counts[e.verdict if e else "untriaged"] += 1
        return counts
    for f in all_findings:
        e = entries.get(f["fingerprint"])
        f["verdict"] = e.verdict if e else None
        f["triage_reason"] = e.reason if e else None
    covered = {(r["repo"], r["lang"]) for r in py_results + cpp_results}
    cmp = triage.compare(all_findings, entries, covered)

    recall = None
    if not o.no_recall:
        import recall as recall_mod
        recall = recall_mod.run(ready, o, tools, flagctx)

    elapsed = time.time() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - cpu_started
    load = os.getloadavg()[0]
    tot = report.totals(py_results, cpp_results, triage_of)
    md = [f"# streamlife on real code ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
          f"streamlife: {tools.streamlife} ({git_describe()})", "",
          f"Run: {elapsed / 60:.1f} min wall with -j {o.jobs} (load average {load:.1f} at the end); "
          f"CPU of every command run: {cpu / 60:.1f} min, {cpu / 60 / max(o.jobs, 1):.1f} min on {o.jobs} "
          f"dedicated cores", ""]
    md += report.totals_lines(tot) + [""]
    if skipped:
        md += ["Skipped: " + "; ".join(f"{s['repo']} ({s['why']})" for s in skipped), ""]
    md += report.precision_tables(py_results, cpp_results, triage_of)
    md += report.triage_lines(cmp)
    md += report.problems_lines(py_results, cpp_results)
    md += report.recall_lines(recall)
    out = o.out or os.path.join(o.scratch, "report")
    os.makedirs(out, exist_ok=True)
    doc = {"elapsed_s": elapsed, "cpu_s": cpu, "load_average": load, "jobs": o.jobs, "streamlife": git_describe(), "totals": tot, "skipped": skipped,
           "python": py_results, "cpp": cpp_results, "recall": recall,
           "untriaged": [triage.template_lines([f])[0] for f in cmp["untriaged"]],
           "gone": [vars(v) for v in cmp["gone"]]}
    write_atomic(os.path.join(out, "report.json"), json.dumps(doc, indent=1, default=str))
    write_atomic(os.path.join(out, "report.md"), "\n".join(md) + "\n")
    if cmp["untriaged"]:
        write_atomic(os.path.join(out, "untriaged.tsv"), "\n".join(doc["untriaged"]) + "\n")
    print("\n".join(md))
    print(f"realcode: report in {out}/report.md and report.json", file=sys.stderr)
    return 0


def git_describe():
    import subprocess
    r = subprocess.run(["git", "-C", PROJECT, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
