#!/usr/bin/env python3
"""Deletes each API row of a table, one at a time, and asks whether the tests notice.

An API table row (`add("cudaFreeAsync", release(0, 1));` in checks/clang/ApiModel*.cpp,
`{"torch.cuda.Stream", VK::Unknown, PyOp::CreateStream},` in checks/python/PythonApiTable.cpp)
is the whole model of one call: a row that no test notices missing is a row nothing checks.
For every single-line row of the tables given, this deletes the row, rebuilds, runs the tests
and puts the table back byte for byte (also when interrupted), then rebuilds once more so that
the build matches the sources again.

    scripts/row-mutants.py --build-dir build \\
        --table checks/python/PythonApiTable.cpp --test test/checks/python/api-rows.py

(--test names a test as lit does from the build directory, where the test tree's site
configuration is.)

A row is "killed" when the test command fails with it deleted, "SURVIVED" when the tests still
pass, "not judged" when the build fails without it. The last line counts them. Exit status: 0
when every row judged was killed (and one was), 1 when one survived or none was judged, 2 on bad
input or when the tests fail before any row is deleted (a test that fails anyway kills nothing).

--build-command and --test-command replace the defaults (`ninja -C BUILD` of `bin/streamlife` and the clang-tidy plugin,
`lit -q TEST...` from BUILD); the test command is run with the table's mutated copy in place.
"""

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile

LIT = "/usr/lib/llvm-22/bin/lit"

# A row on one line: the C++ model's add("name", ...); and the Python table's {"name", VK::...}.
ROW_PATTERNS = (
    re.compile(r'^\s*add\("(?P<name>[^"]+)",.*\);\s*(//.*)?$'),
    re.compile(r'^\s*\{"(?P<name>[^"]+)",\s*VK::\w+,.*\},\s*(//.*)?$'),
)


class BadInput(Exception):
    pass


def rows_of(text):
    """(line index, name) of every single-line row in a table's text."""
    found = []
    for index, line in enumerate(text.splitlines(keepends=True)):
        for pattern in ROW_PATTERNS:
            match = pattern.match(line)
            if match:
                found.append((index, match.group("name")))
                break
    return found


def write_atomically(path, data):
    """Replaces path's bytes without a moment where the file is half-written."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".row-mutant-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def run(command, cwd=None):
    """True when the shell command succeeds; its output is kept out of the report."""
    return subprocess.run(command, shell=True, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", action="append", required=True, help="a table source (repeatable)")
    parser.add_argument("--test", action="append", default=[], help="a lit test, as lit names it from the build directory: test/checks/... (repeatable)")
    parser.add_argument("--build-dir", help="the build directory (default commands run there)")
    parser.add_argument("--build-command", help="rebuilds after an edit (default: ninja -C BUILD bin/streamlife and the clang-tidy plugin)")
    parser.add_argument("--test-command", help="fails when the tests notice (default: lit -q TEST... in BUILD)")
    parser.add_argument("--rows", help="only rows whose name matches this regular expression")
    parser.add_argument("--lit", default=LIT, help="the lit the default test command runs (default: %s)" % LIT)
    args = parser.parse_args(argv)
    if not args.build_command or not args.test_command:
        if not args.build_dir:
            raise BadInput("--build-dir is needed unless --build-command and --test-command are both given")
        if not os.path.isdir(args.build_dir):
            raise BadInput("no build directory %s" % args.build_dir)
    if not args.test_command and not args.test:
        raise BadInput("give --test (a lit test path) or --test-command")
    build_dir = os.path.abspath(args.build_dir) if args.build_dir else None
    args.build_command = args.build_command or "ninja -C %s bin/streamlife lib/StreamlifeTidyModule.so" % shlex.quote(build_dir)
    tests = " ".join(shlex.quote(t) for t in args.test)
    # With the default lit command, the baseline run also asks lit which
    # tests do not run here: an unsupported test passes whatever the table says.
    args.unsupported_command = None
    if not args.test_command:
        args.unsupported_command = "cd %s && %s -v --show-unsupported %s" % (
            shlex.quote(build_dir), shlex.quote(args.lit), tests)
    args.test_command = args.test_command or "cd %s && %s -q %s" % (shlex.quote(build_dir), shlex.quote(args.lit), tests)
    for table in args.table:
        if not os.path.isfile(table):
            raise BadInput("no table file %s" % table)
    try:
        args.rows = re.compile(args.rows) if args.rows else None
    except re.error as error:
        raise BadInput("--rows is not a regular expression: %s" % error)
    return args


def judge(args):
    originals = {}
    for table in args.table:
        with open(table, "rb") as source:
            originals[table] = source.read()
    plan = []
    for table, data in originals.items():
        rows = [(i, name) for i, name in rows_of(data.decode("utf-8"))
                if not args.rows or args.rows.search(name)]
        plan += [(table, i, name) for i, name in rows]
    if not plan:
        raise BadInput("no row in %s%s" % (", ".join(args.table), " matches --rows" if args.rows else ""))
    if not run(args.build_command):
        raise BadInput("the build fails before any row is deleted: %s" % args.build_command)
    # One baseline run: with the default lit command, its listing also says
    # which tests do not run here.
    if args.unsupported_command:
        baseline = subprocess.run(args.unsupported_command, shell=True, capture_output=True, text=True)
        passed, listed = baseline.returncode == 0, baseline.stdout
    else:
        passed, listed = run(args.test_command), ""
    if not passed:
        raise BadInput("the tests fail before any row is deleted: %s" % args.test_command)
    skipped = [re.sub(r" \(\d+ of \d+\)$", "", line.split(" :: ", 1)[-1])
               for line in listed.splitlines() if line.startswith("UNSUPPORTED:")]
    if skipped:
        raise BadInput("these tests do not run here, so they cannot notice a row: %s" % ", ".join(skipped))

    counts = {"killed": 0, "SURVIVED": 0, "not judged": 0}
    dirty = False
    try:
        for table, index, name in plan:
            lines = originals[table].decode("utf-8").splitlines(keepends=True)
            del lines[index]
            write_atomically(table, "".join(lines).encode("utf-8"))
            dirty = True
            if not run(args.build_command):
                verdict = "not judged"
            else:
                verdict = "SURVIVED" if run(args.test_command) else "killed"
            write_atomically(table, originals[table])
            counts[verdict] += 1
            print("%-10s %s (%s:%d)" % (verdict, name, os.path.basename(table), index + 1), flush=True)
    finally:
        for table, data in originals.items():
            with open(table, "rb") as now:
                if now.read() != data:
                    write_atomically(table, data)
        if dirty and not run(args.build_command):
            print("row-mutants: the tables are restored but the rebuild failed: %s" % args.build_command,
                  file=sys.stderr)
    print("rows: %d, killed %d, survived %d, not judged %d" %
          (len(plan), counts["killed"], counts["SURVIVED"], counts["not judged"]))
    # Nothing judged proves nothing: that is no pass either.
    return 1 if counts["SURVIVED"] or not counts["killed"] else 0


def interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv):
    # A SIGTERM restores the tables too: judge's finally clause runs on the exception.
    signal.signal(signal.SIGTERM, interrupted)
    try:
        return judge(parse_arguments(argv))
    except BadInput as error:
        print("row-mutants: %s" % error, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("row-mutants: interrupted; the tables are restored", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
