#!/usr/bin/env python3
"""Writes the demo script of the seed post (the text between its "Appendix:
the demo script" heading and "Output on one H100:") to stdout, unchanged.
The script is never copied into the repository: tests extract it from the
seed, which sits beside the clone (../shared/seed/)."""
import sys

START = "Appendix: the demo script"
END = "Output on one H100:"


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        text = f.read().splitlines()
    try:
        begin = text.index(START) + 1
        end = text.index(END, begin)
    except ValueError:
        sys.exit("error: no demo script section in %s" % argv[1])
    sys.stdout.write("\n".join(text[begin:end]).rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
