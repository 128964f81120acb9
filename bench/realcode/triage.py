"""Finding fingerprints and the committed triage file.

A finding's fingerprint is the repository, the file (relative to the
repository), the check, the flagged line's text with its whitespace collapsed,
and the occurrence number of that combination in the file (in line order):
it survives line shifts and re-indentation, and does not depend on the
wording of the message, which the checker may change without changing the
verdict. Editing the flagged line makes it a new finding, as it should.

triage.tsv: one line per fingerprint, tab-separated:
    fingerprint  verdict  where  reason
where verdict is `true` (a real bug), `advice` (correct code flagged by a
rule on purpose, such as record_stream in a loop) or `false` (a false alarm of
ours), `where` is `repo path:line check` for a reader (not used for matching),
and reason one line. Lines starting with # are comments.
"""
import hashlib
import os
import re
from dataclasses import dataclass

VERDICTS = ("true", "advice", "false")


def normalize(line):
    return " ".join(line.split())


def fingerprint(repo, path, check, line_text, occurrence):
    key = "\x1f".join([repo, path, check, normalize(line_text), str(occurrence)])
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def assign_fingerprints(findings, line_of):
    """Sets f['fingerprint'] and f['line_text'] for each finding (dicts with
    repo, path, line, check), numbering identical (repo, path, check, text)
    combinations in line order. \\p line_of(repo, path, line) gives the text."""
    seen = {}
    for f in sorted(findings, key=lambda f: (f["repo"], f["path"], f["line"], f.get("column", 0), f["check"],
                                              f["message"])):
        text = line_of(f["repo"], f["path"], f["line"])
        key = (f["repo"], f["path"], f["check"], normalize(text))
        n = seen.get(key, 0)
        seen[key] = n + 1
        f["line_text"] = text.strip()
        f["fingerprint"] = fingerprint(f["repo"], f["path"], f["check"], text, n)


@dataclass
class Verdict:
    fingerprint: str
    verdict: str
    where: str
    reason: str


class TriageError(Exception):
    pass


def load(path):
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4:
                raise TriageError(f"{path}:{n}: expected 4 tab-separated fields, got {len(parts)}")
            fp, verdict, where, reason = parts
            if verdict not in VERDICTS:
                raise TriageError(f"{path}:{n}: verdict '{verdict}' is not one of {', '.join(VERDICTS)}")
            if fp in entries:
                raise TriageError(f"{path}:{n}: fingerprint {fp} triaged twice")
            entries[fp] = Verdict(fp, verdict, where, reason)
    return entries


def where(f):
    path = f["path"] or f"(no location, {f['lang']})"
    return f"{f['repo']} {path}:{f['line']} {f['check'].replace('streamlife-', '')}"


def scope(v):
    """(repository, language) of a triage entry, from its `where`."""
    repo, rest = (v.where.split(" ", 1) + [""])[:2]
    path = rest.rsplit(":", 1)[0]
    m = re.match(r"\(no location, (\w+)\)", path)
    if m:
        return repo, m.group(1)
    return repo, "python" if path.endswith(".py") else "cpp"


def compare(findings, entries, covered_repos):
    """Which findings are triaged (with their verdicts), which are new, and
    which triaged findings of the (repository, language) pairs measured in
    this run are gone (a pair not measured proves nothing)."""
    current = {f["fingerprint"]: f for f in findings}
    triaged = [(f, entries[f["fingerprint"]]) for f in findings if f["fingerprint"] in entries]
    untriaged = [f for f in findings if f["fingerprint"] not in entries]
    gone = [v for fp, v in entries.items() if fp not in current and scope(v) in covered_repos]
    counts = {v: sum(1 for _, e in triaged if e.verdict == v) for v in VERDICTS}
    return {"counts": counts, "triaged": triaged, "untriaged": untriaged, "gone": gone}


def template_lines(findings):
    """Lines to paste into triage.tsv for untriaged findings (verdict and
    reason left for a person to fill in)."""
    return [f"{f['fingerprint']}\t?\t{where(f)}\t{f['message']}" for f in findings]
