"""doc_options.py RUNTIME.md LIBSTREAMLIFE_RT: the options table of
docs/runtime.md lists exactly the options that STREAMLIFE_OPTIONS=help=1 lists
(every option of the table, by name), with the same defaults. Prints the count, and
each difference; exits 1 if there is one."""
import os
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


def from_help(runtime_library):
    """name -> default, from what STREAMLIFE_OPTIONS=help=1 lists."""
    env = dict(os.environ, LD_PRELOAD=runtime_library, STREAMLIFE_OPTIONS="help=1")
    text = subprocess.run(["true"], env=env, capture_output=True, text=True, check=True).stderr
    return dict(re.findall(r"^  ([a-z_]+)=(\S*)", text, re.M))


def main(doc, runtime_library):
    doc_rows, help_rows = documented(doc), from_help(runtime_library)
    problems = 0
    for name, default in help_rows.items():
        if name not in doc_rows:
            print("%s: in help=1, not in the docs" % name)
            problems += 1
        elif doc_rows[name] != default:
            print("%s: default '%s' in help=1, '%s' in the docs" % (name, default, doc_rows[name]))
            problems += 1
    for name in doc_rows:
        if name not in help_rows:
            print("%s: in the docs, not in help=1" % name)
            problems += 1
    print("%d options in help=1, %d in the docs, %d differences" % (len(help_rows), len(doc_rows), problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
