#!/usr/bin/env python3
"""Run a command once; demand an exit status and a line on stderr.

  expect_exit.py STATUS TEXT CMD ARGS...

Exit 0 when CMD exits STATUS and some stderr line starts with TEXT (an empty
TEXT asks nothing of stderr), 1 when not (printing what happened), 2 when CMD
cannot be started.
"""
import subprocess
import sys


def main(argv):
    if len(argv) < 3:
        print("usage: expect_exit.py STATUS TEXT CMD ARGS...", file=sys.stderr)
        return 2
    status, text, command = int(argv[0]), argv[1], argv[2:]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        print("expect_exit: error: cannot run %s: %s" % (command[0], error), file=sys.stderr)
        return 2
    lines = proc.stderr.splitlines()
    ok = proc.returncode == status and (not text or any(l.startswith(text) for l in lines))
    print("expect_exit: %s exited %d%s" % (" ".join(command), proc.returncode,
                                          "" if ok else " -- FAIL: expected %d and a stderr line "
                                          "starting with %r" % (status, text)))
    if not ok:
        print("  stderr: " + (proc.stderr.strip() or "(empty)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
