#!/usr/bin/env python3
"""Compare the `result:` and `blocks:` lines of two program outputs.

  same_result.py PLAIN_STDOUT VALIDATED_STDOUT

The validator must never change what a correct program computes: both files
must hold the same `result:` line (and the same `blocks:` line, since the
validator must not change allocation behaviour either). Exit 0 when they
match, 1 when not (printing both), 2 when a file is unreadable or lacks a
`result:` line.
"""
import sys


def summary_lines(path):
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    kept = [l for l in lines if l.startswith("result:") or l.startswith("blocks:")]
    if not any(l.startswith("result:") for l in kept):
        raise ValueError("no 'result:' line")
    return kept


def main(argv):
    if len(argv) != 2:
        print("usage: same_result.py PLAIN_STDOUT VALIDATED_STDOUT", file=sys.stderr)
        return 2
    try:
        plain, validated = (summary_lines(p) for p in argv)
    except (OSError, ValueError) as error:
        print("same_result: error: %s" % error, file=sys.stderr)
        return 2
    if plain == validated:
        print("same_result: identical: %s" % " | ".join(plain))
        return 0
    print("same_result: FAIL: without validator: %s" % " | ".join(plain))
    print("same_result: FAIL: with validator:    %s" % " | ".join(validated))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
