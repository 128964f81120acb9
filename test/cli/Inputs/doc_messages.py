"""doc_messages.py TROUBLESHOOTING.md SOURCE_ROOT: every message that
docs/troubleshooting.md quotes is one streamlife can print.

For each table whose first column is "message" or "note", each `quoted`
message is cut at its placeholders ('...', N, M, L:C, numbers) and at the
joints where messages are assembled (': ', quotes, parentheses, "expects");
one of its pieces of 8 characters or more must occur in the sources (tool/, runtime-validator/, support/,
checks/, scripts/, cmake/, the top-level CMakeLists.txt), with adjacent
string literals joined as the compiler joins them. Messages are assembled
from parts at run time (a prefix, a reason), so a literal part is what can
be checked: a message that was reworded or removed fails. Prints the count, and each
message whose piece is not found; exits 1 if any is not. Messages of other
programs (clang's, clang-tidy's) are in tables with other headers and are not
checked.
"""
import os
import re
import sys

SOURCE_DIRS = ("tool", "runtime-validator", "support", "checks", "scripts", "cmake")
SOURCE_SUFFIXES = (".cpp", ".h", ".inc", ".sh", ".cmake", ".txt", ".py")
# Pieces every message of a kind shares: they say nothing about one message.
PREFIXES = {"streamlife", "streamlife run", "streamlife check",
            "no findings reported for it", "is not validated", "raw CUDA calls still are"}


def corpus(root):
    texts = []
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith(SOURCE_SUFFIXES):
                    text = open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read()
                    # "abc "\n   "def" and "abc " "def": one literal, as the compiler sees it.
                    text = re.sub(r'"\s*\n\s*"', "", text)
                    text = re.sub(r'"[ \t]+"', "", text)
                    texts.append(text.replace('\\"', '"'))
    texts.append(open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read())
    return "\n".join(texts)


def quoted_messages(path):
    messages, checking = [], False
    for line in open(path, encoding="utf-8"):
        if not line.startswith("|"):
            checking = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if cells[0] in ("message", "note"):
            checking = True
            continue
        if not checking or set(cells[0]) <= set("- "):
            continue
        messages += re.findall(r"`([^`]+)`", cells[0])
    return messages


def main(doc, root):
    text = corpus(root)
    messages = quoted_messages(doc)
    missing = []
    for message in messages:
        pieces = re.split(r"\.\.\.|\bL:C\b|\b[NM]\b|\b\d+\b|: |'|\(|\)|\bexpects\b", message.replace("\\|", "|"))
        pieces = [p.strip(" ,;") for p in pieces]
        pieces = [p for p in pieces if len(p) >= 8 and p not in PREFIXES]
        if not any(p in text for p in pieces):
            missing.append((message, " / ".join(pieces) or "(no piece of 8 characters)"))
    for message, piece in missing:
        print("not in the sources: '%s' (of `%s`)" % (piece, message))
    print("%d messages quoted, %d pieces not found in the sources" % (len(messages), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
