"""readme_snippet.py DOC.md MARKER: prints the fenced code block of a
Markdown document whose first line starts with MARKER (e.g.
'# .pre-commit-config.yaml'), without its fences, so that a test runs what
the document shows."""
import sys


def main(path, marker):
    block, inside = None, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            if inside and block is not None and block[0].startswith(marker):
                sys.stdout.write("".join(block))
                return 0
            inside, block = not inside, ([] if not inside else None)
            continue
        if inside:
            block.append(line)
    print("readme_snippet: no code block starting '%s' in %s" % (marker, path), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
