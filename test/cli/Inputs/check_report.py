#!/usr/bin/env python3
"""Validates `streamlife check` reports for the CLI tests (no network, no
third-party packages).

  check_report.py sarif FILE         required SARIF 2.1.0 fields, as GitHub code
                                     scanning needs them; prints one summary line
  check_report.py json FILE          the JSON report's shape; prints a summary
  check_report.py baseline-states FILE
                                     "<baselineState> <message>" of each SARIF
                                     result, in order; every result must have a
                                     state and a streamlife/v1 fingerprint
  check_report.py help-docs FILE SRC_ROOT
                                     every rule's helpUri ends in
                                     docs/checks/<rule id>.md, and that page
                                     exists under SRC_ROOT with the sections of
                                     a check page; prints the pages
  check_report.py same-fingerprints A B
                                     A and B (SARIF) flag the same lines with the
                                     same primaryLocationLineHash; prints the line
                                     shift between them
  check_report.py apply-sarif-fixes FILE SRC_ROOT
                                     every result's `fixes` has the SARIF 2.1.0
                                     fix shape (description, artifactChanges
                                     with byte-range replacements); applies them
                                     to the files under SRC_ROOT (%SRCROOT%) in
                                     place, as a SARIF viewer would; prints
                                     "<rule>: <description>" per fix and a count

Every violation is printed as "error: ..." and the exit status is 1.
"""
import json
import re
import sys

ERRORS = []


def need(condition, message):
    if not condition:
        ERRORS.append(message)
    return condition


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_physical_location(loc, where):
    if not need(isinstance(loc, dict), f"{where}: physicalLocation missing"):
        return
    art = loc.get("artifactLocation", {})
    need(isinstance(art.get("uri"), str) and art["uri"], f"{where}: artifactLocation.uri missing")
    if "uriBaseId" in art:
        need(not art["uri"].startswith("/") and "://" not in art["uri"],
             f"{where}: uri with a uriBaseId must be relative, got {art['uri']}")
    region = loc.get("region", {})
    for key in ("startLine", "startColumn"):
        need(isinstance(region.get(key), int) and region[key] >= 1,
             f"{where}: region.{key} must be a positive integer")


def check_sarif(path):
    doc = load(path)
    need(doc.get("version") == "2.1.0", "version must be 2.1.0")
    need("sarif-2.1.0" in doc.get("$schema", ""), "$schema must name SARIF 2.1.0")
    runs = doc.get("runs")
    if not need(isinstance(runs, list) and len(runs) == 1, "exactly one run expected"):
        return ""
    run = runs[0]
    driver = run.get("tool", {}).get("driver", {})
    need(driver.get("name") == "streamlife", "tool.driver.name must be streamlife")
    need(re.match(r"^https?://", driver.get("informationUri", "")), "tool.driver.informationUri")
    rules = driver.get("rules", [])
    rule_ids = [r.get("id") for r in rules]
    need(rule_ids == sorted(rule_ids), "rules must be sorted by id")
    for rule in rules:
        need(str(rule.get("id", "")).startswith("streamlife-"), f"rule id {rule.get('id')!r}")
        need(rule.get("shortDescription", {}).get("text"), f"rule {rule.get('id')}: shortDescription.text")
        # GitHub code scanning rejects rules without help (multitool GH2012).
        need(rule.get("help", {}).get("text"), f"rule {rule.get('id')}: help.text")
        need(re.fullmatch(r"[A-Z][A-Za-z0-9]*", rule.get("name", "")), f"rule {rule.get('id')}: name")
        need(re.match(r"^https?://", rule.get("helpUri", "")), f"rule {rule.get('id')}: helpUri")
    base = run.get("originalUriBaseIds", {}).get("%SRCROOT%", {}).get("uri", "")
    need(base.startswith("file://") and base.endswith("/"), "%SRCROOT% must be a file:// URI ending in /")
    need(isinstance(run.get("invocations"), list) and run["invocations"]
         and isinstance(run["invocations"][0].get("executionSuccessful"), bool),
         "invocations[0].executionSuccessful missing")
    results = run.get("results")
    if not need(isinstance(results, list), "results must be an array"):
        return ""
    related_total = 0
    for i, res in enumerate(results):
        where = f"results[{i}]"
        rule_id = res.get("ruleId")
        need(rule_id in rule_ids, f"{where}: ruleId {rule_id!r} not in rules")
        idx = res.get("ruleIndex")
        need(isinstance(idx, int) and 0 <= idx < len(rules) and rules[idx].get("id") == rule_id,
             f"{where}: ruleIndex does not point at its rule")
        need(res.get("level") in ("warning", "error", "note"), f"{where}: level")
        need(res.get("message", {}).get("text"), f"{where}: message.text")
        locs = res.get("locations", [])
        if need(len(locs) == 1, f"{where}: one location expected"):
            check_physical_location(locs[0].get("physicalLocation"), where)
        fp = res.get("partialFingerprints", {}).get("primaryLocationLineHash", "")
        need(re.fullmatch(r"[0-9a-f]{16}:[1-9][0-9]*", fp), f"{where}: primaryLocationLineHash {fp!r}")
        for j, rel in enumerate(res.get("relatedLocations", [])):
            related_total += 1
            need(isinstance(rel.get("id"), int), f"{where}.relatedLocations[{j}].id")
            need(rel.get("message", {}).get("text"), f"{where}.relatedLocations[{j}].message.text")
            check_physical_location(rel.get("physicalLocation"), f"{where}.relatedLocations[{j}]")
    return "sarif ok: %d results, %d related locations, rules: %s" % (
        len(results), related_total, ",".join(rule_ids))


def check_json(path):
    doc = load(path)
    need(doc.get("version") == 1, "version must be 1")
    need(doc.get("tool", {}).get("name") == "streamlife", "tool.name")
    findings = doc.get("findings", [])
    files = doc.get("files", [])
    summary = doc.get("summary", {})
    need(summary.get("findings") == len(findings), "summary.findings must count findings")
    need(summary.get("files") == len(files), "summary.files must count files")
    for i, f in enumerate(findings):
        where = f"findings[{i}]"
        need(str(f.get("check", "")).startswith("streamlife-"), f"{where}.check")
        need(f.get("severity") in ("warning", "error"), f"{where}.severity")
        need(f.get("message"), f"{where}.message")
        loc = f.get("location", {})
        need(loc.get("file") and loc.get("line", 0) >= 1 and loc.get("column", 0) >= 1, f"{where}.location")
        for j, note in enumerate(f.get("notes", [])):
            need(note.get("message") and note.get("location", {}).get("line", 0) >= 1,
                 f"{where}.notes[{j}]")
    for i, f in enumerate(files):
        need(isinstance(f.get("parsed"), bool) and isinstance(f.get("compileErrors"), list),
             f"files[{i}]")
    return "json ok: %d findings in %d files, %d notes" % (
        len(findings), len(files), sum(len(f.get("notes", [])) for f in findings))


def fingerprints(doc):
    out = []
    for res in doc["runs"][0]["results"]:
        region = res["locations"][0]["physicalLocation"]["region"]
        out.append((res["ruleId"], res["partialFingerprints"]["primaryLocationLineHash"],
                    region["startLine"]))
    return out


def same_fingerprints(a, b):
    fa, fb = fingerprints(load(a)), fingerprints(load(b))
    need(fa and len(fa) == len(fb), "both reports need the same, non-zero number of results")
    shifts = set()
    for (ra, ha, la), (rb, hb, lb) in zip(fa, fb):
        need(ra == rb and ha == hb, f"fingerprint changed: {ra} {ha} vs {rb} {hb}")
        shifts.add(lb - la)
    return "fingerprints equal: %d results, line shift %s" % (
        len(fa), ",".join(str(s) for s in sorted(shifts)))


def baseline_states(path):
    results = load(path)["runs"][0]["results"]
    lines = []
    for i, r in enumerate(results):
        state = r.get("baselineState")
        need(state in ("new", "unchanged", "updated", "absent"),
             f"result {i}: baselineState missing or invalid: {state!r}")
        need(r.get("partialFingerprints", {}).get("streamlife/v1"),
             f"result {i}: no streamlife/v1 fingerprint")
        lines.append(f"{state} {r['message']['text']}")
    return "\n".join(lines)


def help_docs(path, src_root):
    import os
    rules = load(path)["runs"][0]["tool"]["driver"]["rules"]
    pages = []
    for rule in rules:
        uri = rule.get("helpUri", "")
        suffix = "/docs/checks/" + rule["id"] + ".md"
        if not need(uri.endswith(suffix), f"{rule['id']}: helpUri {uri!r} does not end in {suffix}"):
            continue
        page = os.path.join(src_root, "docs", "checks", rule["id"] + ".md")
        if not need(os.path.exists(page), f"{rule['id']}: {page} does not exist"):
            continue
        text = open(page, encoding="utf-8").read()
        need(text.startswith("# " + rule["id"] + "\n"), f"{page}: must start with '# {rule['id']}'")
        for section in ("## Why it", "## The fix", "## Options", "## Limits"):
            need(section in text, f"{page}: no '{section}' section")
        pages.append(os.path.relpath(page, src_root))
    return "\n".join(pages)


def apply_sarif_fixes(path, root):
    import os
    from urllib.parse import unquote, urlparse
    doc = load(path)
    edits, lines = {}, []
    for result in doc["runs"][0].get("results", []):
        for fix in result.get("fixes", []):
            text = fix.get("description", {}).get("text")
            need(isinstance(text, str) and text, "fix without description.text")
            lines.append("%s: %s" % (result.get("ruleId"), text))
            changes = fix.get("artifactChanges")
            if not need(isinstance(changes, list) and changes, "fix without artifactChanges"):
                continue
            for change in changes:
                art = change.get("artifactLocation", {})
                uri = art.get("uri", "")
                if art.get("uriBaseId") == "%SRCROOT%":
                    file = os.path.join(root, unquote(uri))
                else:
                    need(uri.startswith("file://"), "artifactLocation without base must be a file URI")
                    file = unquote(urlparse(uri).path)
                for rep in change.get("replacements", []):
                    region = rep.get("deletedRegion", {})
                    offset, length = region.get("byteOffset"), region.get("byteLength")
                    inserted = rep.get("insertedContent", {}).get("text", "")
                    if need(isinstance(offset, int) and isinstance(length, int) and offset >= 0
                            and length >= 0, "replacement without byteOffset/byteLength"):
                        edits.setdefault(file, []).append((offset, length, inserted))
    for file, reps in edits.items():
        with open(file, "rb") as f:
            data = f.read()
        end = len(data) + 1
        for offset, length, inserted in sorted(reps, reverse=True):
            need(offset + length <= min(end, len(data)), "%s: overlapping or out-of-range replacement" % file)
            data = data[:offset] + inserted.encode("utf-8") + data[offset + length:]
            end = offset
        with open(file, "wb") as f:
            f.write(data)
    lines.append("applied %d fixes to %d files" % (len(lines), len(edits)))
    return "\n".join(lines)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    kind = argv[1]
    if kind == "sarif":
        summary = check_sarif(argv[2])
    elif kind == "json":
        summary = check_json(argv[2])
    elif kind == "help-docs" and len(argv) == 4:
        summary = help_docs(argv[2], argv[3])
    elif kind == "baseline-states":
        summary = baseline_states(argv[2])
    elif kind == "apply-sarif-fixes" and len(argv) == 4:
        summary = apply_sarif_fixes(argv[2], argv[3])
    elif kind == "same-fingerprints" and len(argv) == 4:
        summary = same_fingerprints(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in ERRORS:
        print("error: " + e)
    if ERRORS:
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
