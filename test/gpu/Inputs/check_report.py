#!/usr/bin/env python3
"""Validate a `streamlife run --report FILE` JSON report.

  check_report.py FILE --expect-finding KIND   at least one finding of KIND,
                                               every finding well-formed
  check_report.py FILE --expect-clean          no findings, summary says 0
  ... --stderr ERR    also: ERR's `streamlife: summary: N finding(s)` line
                      counts as many findings as the JSON report lists

Well-formed: a "findings" list and "summary": {"findings": N} with N equal to
the list's length; each finding has a known "kind", a "range" with a positive
"size", an "allocation" with a "stream", and the parts its kind needs (an
unsafe free names the releasing stream and call site, and an unordered access
on a different stream). Prints one line per finding; exit 0 when the report
is as expected, 1 when not, 2 when the file is missing or not JSON.
"""
import argparse
import json
import re
import sys

KINDS = {"unsafe-free", "reuse-race", "use-before-alloc", "use-after-free"}


def finding_problems(finding):
    problems = []
    kind = finding.get("kind")
    if kind not in KINDS:
        problems.append("unknown kind %r" % kind)
    size = finding.get("range", {}).get("size")
    if not isinstance(size, int) or size <= 0:
        problems.append("range.size is %r" % size)
    if not finding.get("allocation", {}).get("stream"):
        problems.append("allocation.stream is empty")
    if kind == "unsafe-free":
        release = finding.get("release", {})
        access = finding.get("access", {})
        if not release.get("stream"):
            problems.append("release.stream is empty")
        if not release.get("site"):
            problems.append("release.site is empty")
        if not access.get("stream"):
            problems.append("access.stream is empty")
        elif access.get("stream") == release.get("stream"):
            problems.append("access and release on the same stream %r" % access["stream"])
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--expect-finding", metavar="KIND")
    mode.add_argument("--expect-clean", action="store_true")
    parser.add_argument("--stderr", metavar="ERR",
                        help="the run's stderr, whose summary line must agree")
    args = parser.parse_args(argv)
    try:
        with open(args.report) as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        print("check_report: error: %s: %s" % (args.report, error), file=sys.stderr)
        return 2

    failures = []
    findings = report.get("findings")
    if not isinstance(findings, list):
        print("check_report: FAIL: no 'findings' list")
        return 1
    summary = report.get("summary", {}).get("findings")
    if summary != len(findings):
        failures.append("summary.findings is %r but the report lists %d" % (summary, len(findings)))
    if args.stderr:
        try:
            with open(args.stderr) as f:
                text = f.read()
        except OSError as error:
            print("check_report: error: %s" % error, file=sys.stderr)
            return 2
        match = re.search(r"^streamlife: summary: (\d+) findings?$", text, re.M)
        if match is None:
            failures.append("%s has no 'streamlife: summary:' line" % args.stderr)
        elif int(match.group(1)) != len(findings):
            failures.append("stderr summary says %s finding(s), the report lists %d" % (
                match.group(1), len(findings)))
    for index, finding in enumerate(findings):
        problems = finding_problems(finding)
        print("check_report: finding %d: %s, %s bytes, allocated on %s, released on %s, accessed on %s%s" % (
            index, finding.get("kind"), finding.get("range", {}).get("size"),
            finding.get("allocation", {}).get("stream"), finding.get("release", {}).get("stream"),
            finding.get("access", {}).get("stream"),
            "" if not problems else " -- BAD: " + "; ".join(problems)))
        failures.extend("finding %d: %s" % (index, p) for p in problems)
    kinds = [f.get("kind") for f in findings]
    if args.expect_finding and args.expect_finding not in kinds:
        failures.append("no %s finding (kinds: %s)" % (args.expect_finding, ", ".join(map(str, kinds)) or "none"))
    if args.expect_clean and findings:
        failures.append("expected no findings, got %d" % len(findings))
    for failure in failures:
        print("check_report: FAIL: " + failure)
    if not failures:
        print("check_report: ok (%d finding(s))" % len(findings))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
