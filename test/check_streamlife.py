#!/usr/bin/env python3
"""Runs one streamlife check over a test file and verifies its diagnostics.

Usage (from lit, through %check_streamlife):
  check_streamlife.py --clang-tidy=BIN --plugin=SO --filecheck=BIN
      [--cuda-path=DIR] [-check-suffixes=A,B] [-config=YAML]
      [-fixed-file=PATH] [-check-fixed-clean] [-expect-no-fixes]
      FILE CHECK-NAME [-- COMPILER-ARGS...]
Python files (through %check_streamlife_py):
  check_streamlife.py --streamlife=BIN --filecheck=BIN [-check-suffixes=A,B]
      [-wait-before-free] FILE.py CHECK-NAME
  runs `streamlife check FILE.py` (the Python front end) and keeps the
  warnings of CHECK-NAME with their notes; expectations are `# CHECK-...:`
  comments. -wait-before-free passes `--wait-before-free` (every release
  judged at the release).

The file's own `// CHECK-MESSAGES[-SUFFIX]:` and `// CHECK-NOTES[-SUFFIX]:`
lines are the expectations. They are blanked in a temporary copy (so that
[[@LINE]] still refers to the original lines) before clang-tidy runs on it.
CHECK-MESSAGES sees warnings and errors only; CHECK-NOTES sees notes too (in a
file with both, the CHECK-MESSAGES lines are matched among the notes).
Every warning must be expected: FileCheck runs with
-implicit-check-not='{{warning|error}}:'. A file without expectations must
produce no warning at all.

Fix-its (C++ only), as clang-tidy's check_clang_tidy.py does them: when the
file has `// CHECK-FIXES[-SUFFIX]:` lines, or one of the options below is
given, clang-tidy runs with -fix and the fixed copy is matched against them
(CHECK-FIXES-NEXT pins adjacent lines; the blanked CHECK lines are `//`
lines of the copy, so keep expectations outside the code they describe).
  -fixed-file=PATH     keep the fixed copy there (to compile it in a RUN line)
  -check-fixed-clean   check the fixed copy again with the same check: it
                       must compile and give no warning at all
  -expect-no-fixes     -fix must leave the file exactly as it was
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def fail(message):
    sys.stderr.write("check_streamlife.py: %s\n" % message)
    sys.exit(1)


def parse_args(argv):
    compiler_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, compiler_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clang-tidy")
    parser.add_argument("--plugin")
    parser.add_argument("--streamlife")
    parser.add_argument("--filecheck", required=True)
    parser.add_argument("--cuda-path", default="/usr/local/cuda")
    parser.add_argument("-check-suffixes", "--check-suffixes", default="")
    parser.add_argument("-config", "--config", default=None)
    parser.add_argument("-fixed-file", "--fixed-file", default=None)
    parser.add_argument("-check-fixed-clean", "--check-fixed-clean", action="store_true")
    parser.add_argument("-expect-no-fixes", "--expect-no-fixes", action="store_true")
    parser.add_argument("-wait-before-free", "--wait-before-free", action="store_true")
    parser.add_argument("input")
    parser.add_argument("check_name")
    args = parser.parse_args(argv)
    # clang-tidy runs in a temporary directory: make the paths absolute.
    python = args.input.endswith(".py")
    if python and not args.streamlife:
        parser.error("a .py input needs --streamlife")
    if not python and not (args.clang_tidy and args.plugin):
        parser.error("a C++ input needs --clang-tidy and --plugin")
    if python and (args.fixed_file or args.check_fixed_clean or args.expect_no_fixes):
        parser.error("fix-it options are for C++ inputs")
    if args.wait_before_free and not python:
        parser.error("-wait-before-free is for .py inputs")
    for name in ("clang_tidy", "plugin", "streamlife", "filecheck", "input", "fixed_file"):
        value = getattr(args, name)
        if value and os.path.sep in value:
            setattr(args, name, os.path.abspath(value))
    return args, compiler_args


def prefixes_for(suffixes):
    """[(messages prefix, notes prefix)] for each requested suffix."""
    result = []
    for suffix in suffixes.split(",") if suffixes else [""]:
        suffix = suffix.strip()
        if suffix and not re.fullmatch(r"[A-Za-z0-9_-]+", suffix):
            fail("invalid check suffix %r" % suffix)
        tail = "-" + suffix if suffix else ""
        result.append(("CHECK-MESSAGES" + tail, "CHECK-NOTES" + tail))
    return result


def run_filecheck(filecheck, check_file, prefix, output, label):
    command = [filecheck, "-input-file=" + output, check_file,
               "--check-prefixes=" + prefix, "-implicit-check-not={{warning|error}}:"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write("FileCheck (%s, %s) failed:\n%s\n" % (label, prefix, result.stderr))
        sys.exit(1)


def run_clang_tidy(args, compiler_args, source, tmp, fix):
    command = [args.clang_tidy, "-load", args.plugin,
               "-checks=-*," + args.check_name, source]
    if fix:
        command.append("-fix")
    if args.config is not None:
        command.append("-config=" + args.config)
    command += ["--"] + compiler_args
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
    # Report paths as the test's own, so failures point at the real file.
    output = (result.stdout + result.stderr).replace(source, args.input)
    if result.returncode != 0:
        fail("clang-tidy failed (exit %d):\n%s" % (result.returncode, output))
    # -fix adds a note per applied fix-it; they are not the check's notes.
    return "\n".join(line for line in output.splitlines()
                     if not line.endswith("note: FIX-IT applied suggested code changes")) + "\n"


def check_fixes(args, compiler_args, fix_prefixes, stripped, source, tmp):
    """After the -fix run: the fixed copy against CHECK-FIXES, unchanged
    under -expect-no-fixes, clean when checked again under
    -check-fixed-clean."""
    with open(source, encoding="utf-8") as f:
        fixed = f.read()
    if args.fixed_file:
        with open(args.fixed_file, "w", encoding="utf-8") as f:
            f.write(fixed)
    if args.expect_no_fixes and fixed != stripped:
        diff = subprocess.run(["diff", "-u", "-", source], input=stripped,
                              capture_output=True, text=True).stdout
        fail("expected no fix-its, but -fix changed the file:\n" + diff)
    if fix_prefixes:
        command = [args.filecheck, "-input-file=" + source, args.input,
                   "--check-prefixes=" + ",".join(fix_prefixes)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write("FileCheck (fixes, %s) failed:\n%s\n------ fixed file ------\n%s"
                             % (",".join(fix_prefixes), result.stderr, fixed))
            sys.exit(1)
    if args.check_fixed_clean:
        output = run_clang_tidy(args, compiler_args, source, tmp, fix=False)
        left = [line for line in output.splitlines()
                if re.search(r":\d+:\d+: (warning|error):", line)]
        if left:
            fail("the fixed file is not clean:\n" + "\n".join(left)
                 + "\n------ fixed file ------\n" + fixed)


def run_streamlife_python(args, source, tmp):
    """`streamlife check` on the blanked copy; the warnings of the check under
    test with their notes, paths reported as the test's own. Local modules the
    test imports are looked up next to the copy: copy Inputs/ along."""
    inputs = os.path.join(os.path.dirname(args.input), "Inputs")
    if os.path.isdir(inputs):
        for name in os.listdir(inputs):
            if name.endswith(".py"):
                with open(os.path.join(inputs, name), encoding="utf-8") as src, \
                        open(os.path.join(tmp, name), "w", encoding="utf-8") as dst:
                    dst.write(src.read())
    strict = ["--wait-before-free"] if args.wait_before_free else []
    result = subprocess.run([args.streamlife, "check"] + strict + [source],
                            capture_output=True, text=True, cwd=tmp)
    if result.returncode not in (0, 1):
        fail("streamlife check failed (exit %d):\n%s%s"
             % (result.returncode, result.stdout, result.stderr))
    kept, keep = [], False
    for line in result.stdout.splitlines():
        warning = re.search(r": (warning|error): .*\[([a-z0-9-]+)\]$", line)
        if warning:
            # A comma-separated list, as clang-tidy's -checks takes it.
            keep = warning.group(2) in args.check_name.split(",")
            line = line[:warning.start(2) - 2]
        if keep:
            kept.append(line)
    output = "\n".join(kept) + "\n"
    output = output.replace(source, args.input)
    return output.replace(os.path.basename(source) + ":", args.input + ":")


def main(argv):
    args, compiler_args = parse_args(argv)
    with open(args.input, encoding="utf-8") as f:
        original = f.read()

    python = args.input.endswith(".py")
    comment = "#" if python else "//"
    checks = prefixes_for(args.check_suffixes)
    all_prefixes = [p for pair in checks for p in pair]
    any_expectation = any(re.search(comment + r"\s*" + re.escape(p) + r"(-NOT|-NEXT|-SAME)?:", original)
                          for p in all_prefixes)
    # Fix-it expectations alone do not count: the diagnostics must be pinned.

    # Blank every CHECK line (ours and other suffixes') but keep the line.
    stripped = re.sub(comment + r"\s*CHECK-[A-Z0-9_-]+:.*", comment, original)

    suffix = os.path.splitext(args.input)[1] or ".cpp"
    with tempfile.TemporaryDirectory(prefix="check-streamlife-") as tmp:
        source = os.path.join(tmp, os.path.basename(args.input))
        with open(source, "w", encoding="utf-8") as f:
            f.write(stripped)
        if python:
            output = run_streamlife_python(args, source, tmp)
        else:
            fix_prefixes = [p for p in ("CHECK-FIXES" + ("-" + s.strip() if s.strip() else "")
                                        for s in (args.check_suffixes.split(",")
                                                  if args.check_suffixes else [""]))
                            if re.search(r"//\s*" + re.escape(p) + r"(-NOT|-NEXT|-SAME)?:", original)]
            fix = bool(fix_prefixes or args.fixed_file or args.check_fixed_clean
                       or args.expect_no_fixes)
            output = run_clang_tidy(args, compiler_args, source, tmp, fix)
            if fix:
                check_fixes(args, compiler_args, fix_prefixes, stripped, source, tmp)
        sys.stdout.write("------------------------ clang-tidy output ------------------------\n")
        sys.stdout.write(output)
        sys.stdout.write("-------------------------------------------------------------------\n")

        diagnostics = [line for line in output.splitlines()
                       if re.search(r":\d+:\d+: (warning|error|note):", line)]
        if not any_expectation:
            unexpected = [line for line in diagnostics if re.search(r": (warning|error):", line)]
            if unexpected:
                fail("expected no warnings, got:\n" + "\n".join(unexpected))
            return 0

        messages = os.path.join(tmp, "messages.txt")
        notes = os.path.join(tmp, "notes.txt")
        with open(messages, "w", encoding="utf-8") as f:
            f.write("\n".join(l for l in diagnostics if not re.search(r": note:", l)) + "\n")
        with open(notes, "w", encoding="utf-8") as f:
            f.write("\n".join(diagnostics) + "\n")
        def present(prefix):
            return re.search(comment + r"\s*" + re.escape(prefix) + r"(-NOT|-NEXT|-SAME)?:", original)

        # All requested suffixes are checked in one FileCheck run, so lines
        # without a suffix apply to every run (as in clang-tidy's own tests).
        messages_prefixes = [m for m, _ in checks if present(m)]
        notes_prefixes = [n for _, n in checks if present(n)]
        if not messages_prefixes and not notes_prefixes:
            fail("no CHECK-MESSAGES or CHECK-NOTES lines for suffixes %r in %s"
                 % (args.check_suffixes, args.input))
        # A file may mix the two: CHECK-MESSAGES lines then only pin
        # warnings among the notes, in file order.
        if notes_prefixes:
            run_filecheck(args.filecheck, args.input,
                          ",".join(notes_prefixes + messages_prefixes), notes, "notes")
        else:
            run_filecheck(args.filecheck, args.input,
                          ",".join(messages_prefixes), messages, "messages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
