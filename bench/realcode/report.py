"""The report: per-repository tables, totals, the triage comparison and the
recall figures, as Markdown (stdout and report.md) and JSON (report.json)."""


def _ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def _sum_time(results, key):
    return sum(r["time"].get(key, {}).get("cpu", 0.0) for r in results)


def _table(title, head, rows):
    return [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
        ["| " + " | ".join(str(c) for c in row) + " |" for row in rows] + [""]


def _verdict_cells(r, triage_of):
    v = triage_of(r["findings"])
    return [len(r["crashes"]), len(r["findings"]), v["true"], v["advice"], v["false"], v["untriaged"]]


def precision_tables(py, cpp, triage_of):
    verdicts = ["crashes", "findings", "true", "advice", "false", "untriaged"]
    lines = []
    if py:
        cpu = lambda r, k: f"{r['time'].get(k, {}).get('cpu', 0):.2f}"  # noqa: E731
        lines += _table("Python", ["repository", "files", "parse failures"] + verdicts
                        + ["streamlife CPU s", "ast.parse CPU s", "pyflakes CPU s"],
                        [[r["repo"], r["files"], len(r["parse_failures"])] + _verdict_cells(r, triage_of)
                         + [cpu(r, "streamlife"), cpu(r, "ast.parse"), cpu(r, "pyflakes")] for r in py])
    if cpp:
        rows = []
        for r in cpp:
            s, y = r["time"]["streamlife"]["cpu"], r["time"]["syntax"]["cpu"]
            rows.append([r["repo"], r["files"], r["parsed"]] + _verdict_cells(r, triage_of)
                        + [f"{s:.1f}", f"{y:.1f}", _ratio(s, y)])
        lines += _table("C++/CUDA", ["repository", "TUs", "parse"] + verdicts
                        + ["streamlife CPU s", "syntax CPU s", "ratio"], rows)
    return lines


def totals(py, cpp, triage_of):
    out = {}
    if py:
        f = [x for r in py for x in r["findings"]]
        v = triage_of(f)
        out["python"] = {
            "repositories": len(py), "files": sum(r["files"] for r in py),
            "parse_failures": sum(len(r["parse_failures"]) for r in py),
            "parse_failures_python_accepts": sum(1 for r in py for p in r["parse_failures"]
                                                 if p.get("python_parses_it")),
            "crashes": sum(len(r["crashes"]) for r in py), "findings": len(f), **v,
            "streamlife_cpu": _sum_time(py, "streamlife"), "ast_cpu": _sum_time(py, "ast.parse"),
            "pyflakes_cpu": _sum_time(py, "pyflakes"),
        }
    if cpp:
        f = [x for r in cpp for x in r["findings"]]
        v = triage_of(f)
        out["cpp"] = {
            "repositories": len(cpp), "files": sum(r["files"] for r in cpp),
            "parsed": sum(r["parsed"] for r in cpp),
            "parse_failures": sum(len(r["parse_failures"]) for r in cpp),
            "crashes": sum(len(r["crashes"]) for r in cpp), "findings": len(f), **v,
            "streamlife_cpu": _sum_time(cpp, "streamlife"), "syntax_cpu": _sum_time(cpp, "syntax"),
            "syntax_cached_cpu": sum(r["time"].get("syntax", {}).get("cached_cpu", 0.0) for r in cpp),
            "fresh_syntax_cpu": sum(r["time"].get("syntax", {}).get("fresh_cpu", 0.0) for r in cpp),
            "fresh_streamlife_cpu": sum(r["time"].get("streamlife", {}).get("fresh_cpu", 0.0) for r in cpp),
        }
    return out


def totals_lines(t):
    lines = []
    if "python" in t:
        p = t["python"]
        lines.append(
            f"- Python: {p['repositories']} repositories, {p['files']} files, {p['crashes']} crashes, "
            f"{p['parse_failures']} parse failures ({p['parse_failures_python_accepts']} that Python accepts), "
            f"{p['findings']} findings: {p['true']} true, {p['advice']} advice, {p['false']} false, "
            f"{p['untriaged']} untriaged; CPU streamlife {p['streamlife_cpu']:.1f} s, ast.parse {p['ast_cpu']:.1f} s "
            f"({_ratio(p['streamlife_cpu'], p['ast_cpu'])}x), pyflakes {p['pyflakes_cpu']:.1f} s "
            f"({_ratio(p['streamlife_cpu'], p['pyflakes_cpu'])}x)")
    if "cpp" in t:
        c = t["cpp"]
        lines.append(
            f"- C++/CUDA: {c['repositories']} repositories, {c['files']} translation units, {c['parsed']} parse, "
            f"{c['crashes']} crashes, {c['findings']} findings: {c['true']} true, {c['advice']} advice, "
            f"{c['false']} false, {c['untriaged']} untriaged; CPU streamlife {c['streamlife_cpu']:.1f} s, "
            f"clang++ -fsyntax-only {c['syntax_cpu']:.1f} s ({_ratio(c['streamlife_cpu'], c['syntax_cpu'])}x)"
            + (f"; {c['syntax_cached_cpu']:.1f} s of the baseline's CPU measured by an earlier run (--syntax-cache), "
               "under another load: "
               + (f"on the units whose baseline this run measured, {c['fresh_streamlife_cpu']:.1f} s against "
                  f"{c['fresh_syntax_cpu']:.1f} s ({_ratio(c['fresh_streamlife_cpu'], c['fresh_syntax_cpu'])}x)"
                  if c.get("fresh_syntax_cpu") else "no unit's baseline was measured by this run")
               if c.get("syntax_cached_cpu") else ""))
    return lines


def finding_line(f):
    return f"{f['repo']} {f['path']}:{f['line']}: [{f['check']}] {f['message']} ({f['fingerprint']})"


def triage_lines(cmp):
    lines = []
    if cmp["untriaged"]:
        lines += [f"### New findings, not in the triage file ({len(cmp['untriaged'])})", ""]
        lines += [f"- {finding_line(f)}" for f in cmp["untriaged"]]
        lines.append("")
    if cmp["gone"]:
        lines += [f"### Triaged findings that disappeared ({len(cmp['gone'])})", ""]
        lines += [f"- was {v.verdict}: {v.where} ({v.fingerprint}): {v.reason}" for v in cmp["gone"]]
        lines.append("")
    return lines


def problems_lines(py, cpp):
    lines = []
    crashes = [(r["repo"], c) for r in py + cpp for c in r["crashes"]]
    if crashes:
        lines += ["### Crashes", ""]
        lines += [f"- {repo} {c['path']}: {c['how']}: {c.get('stderr', '')}"
                  for repo, c in crashes]
        lines.append("")
    pf = [(r["repo"], p) for r in py for p in r["parse_failures"]]
    if pf:
        lines += ["### Python files streamlife could not parse", ""]
        lines += [f"- {repo} {p['path']}: {p['why']}"
                  + ("" if p.get("python_parses_it", True) else " (python3.11 rejects it too)") for repo, p in pf]
        lines.append("")
    return lines


def recall_lines(rc):
    if not rc:
        return []
    keys = ["front_end", "operator", "mutants", "found", "missed", "recall"]
    lines = _table("Mutation recall", [k.replace("_", " ") for k in keys],
                   [[row[k] for k in keys] for row in rc["table"]])
    lines += [f"Note: {n}" for n in rc.get("notes", [])]
    if rc.get("errors"):
        lines += [f"Mutants not judged (the mutated file did not parse or streamlife failed): {len(rc['errors'])}", ""]
    if rc["misses"]:
        lines += ["#### Misses (sampled, a few per operator and front end)", ""]
        for m in rc["misses"]:
            lines.append(f"- {m['front_end']} {m['operator']}: {m['repo']} {m['path']}:{m['line']} "
                         f"({m['function']}): {m['why']}")
            for d in m["diff"]:
                lines.append(f"    {d}")
        lines.append("")
    return lines
