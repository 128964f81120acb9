"""doc_options.py RUNTIME.md STREAMLIFE: the options table of docs/runtime.md
lists exactly the options `streamlife run --help` lists (by their
STREAMLIFE_OPTIONS names), with the same defaults. Prints the count, and
each difference; exits 1 if there is one."""
import re
import subprocess
import sys


def documented(path):
    rows, inside = {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("| option | default |"):
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        if inside and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1].strip("`")
    return rows


def from_help(streamlife):
    text = subprocess.run([streamlife, "run", "--help"], capture_output=True, text=True,
                          check=True).stdout
    # The options section: from "options:" to the next heading.
    text = text.split("\noptions:\n", 1)[1]
    text = re.split(r"\n[a-z][^\n]*:\n", text, 1)[0]
    rows = {}
    for names, rest in re.findall(r"^  (--[a-z-]+)\S*(?: \S+)?\s+(.*(?:\n {32}.*)*)", text, re.M):
        if names == "--help":
            continue
        default = re.search(r"\(default: ([^)]*)\)\s*$", " ".join(rest.split()))
        rows[names[2:].replace("-", "_")] = default.group(1) if default else ""
    return rows


def main(doc, streamlife):
    doc_rows, help_rows = documented(doc), from_help(streamlife)
    problems = 0
    for name, default in help_rows.items():
        if name not in doc_rows:
            print("%s: in --help, not in the docs" % name)
            problems += 1
        elif doc_rows[name] != default:
            print("%s: default '%s' in --help, '%s' in the docs" % (name, default, doc_rows[name]))
            problems += 1
    for name in doc_rows:
        if name not in help_rows:
            print("%s: in the docs, not in --help" % name)
            problems += 1
    print("%d options in --help, %d in the docs, %d differences" % (len(help_rows), len(doc_rows), problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
