#!/usr/bin/env python3
"""Prints entry, language and types of hook ID in a .pre-commit-hooks.yaml
(a list of flat mappings; read without a YAML library, which the test
machines may lack)."""
import sys


def hooks(path):
    return list(_hooks(path))


def _hooks(path):
    current = None
    for raw in open(path, encoding="utf-8"):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if line.startswith("- "):
            current = {}
            yield current
            line = "  " + line[2:]
        key, _, value = line.strip().partition(":")
        if current is not None:
            current[key.strip()] = value.strip()


def main(argv):
    for hook in hooks(argv[1]):
        if hook.get("id") == argv[2]:
            print("entry=" + hook.get("entry", ""))
            print("language=" + hook.get("language", ""))
            print("types=" + hook.get("types", "").strip("[]"))
            return 0
    sys.exit("error: no hook %r in %s" % (argv[2], argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
