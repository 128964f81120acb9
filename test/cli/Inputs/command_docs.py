"""command_docs.py STREAMLIFE PREFIX: the installed man pages and completions
list every option that the installed binary's --help lists.

For the driver and each subcommand: the options of `--help` (the names column
of its "options:" section), then
  - the man page PREFIX/share/man/man1/<page>.1.gz: each option in a .TP tag
    of its OPTIONS section;
  - bash: what PREFIX/share/bash-completion/completions/streamlife offers for
    `streamlife [SUB] -` (run through bash_complete.sh, as bash would);
  - zsh: an _arguments spec in the subcommand's function of
    PREFIX/share/zsh/vendor-completions/_streamlife.
Prints one line per page, and one line per option that is missing anywhere;
exits 1 if any is.
"""
import gzip
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def help_options(streamlife, words):
    text = subprocess.run([streamlife] + words + ["--help"], capture_output=True, text=True,
                          check=True).stdout
    options, inside = [], False
    for line in text.splitlines():
        if line == "options:":
            inside = True
            continue
        if inside and line and not line.startswith(" "):
            if line.endswith(":"):
                break
            continue
        if inside and line.startswith("  -"):
            options += OPTION.findall(line[2:].split("  ")[0])
    return options


def man_options(path):
    text = gzip.open(path, "rt").read().replace("\\-", "-")
    section = text.split(".SH OPTIONS", 1)[1].split("\n.SH ", 1)[0]
    tags = re.findall(r"^\.TP\n(.*)$", section, re.M)
    found = set()
    for tag in tags:
        found.update(OPTION.findall(re.sub(r"\\f[BIR]", "", tag)))
    return found


def bash_options(script, words):
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["bash", os.path.join(here, "bash_complete.sh"), script, "streamlife"]
                         + words + ["-"], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def zsh_options(script, function):
    text = open(script).read()
    body = text.split(function + "() {", 1)[1].split("\n}\n", 1)[0]
    return set(OPTION.findall(body))


def main():
    streamlife, prefix = sys.argv[1], sys.argv[2]
    bash = os.path.join(prefix, "share/bash-completion/completions/streamlife")
    zsh = os.path.join(prefix, "share/zsh/vendor-completions/_streamlife")
    missing = 0
    for page, words, function in (("streamlife", [], "_streamlife"),
                                  ("streamlife-check", ["check"], "_streamlife_check"),
                                  ("streamlife-compdb", ["compdb"], "_streamlife_compdb"),
                                  ("streamlife-run", ["run"], "_streamlife_run"),
                                  ("streamlife-timeline", ["timeline"], "_streamlife_timeline")):
        options = help_options(streamlife, words)
        places = {
            "man page": man_options(os.path.join(prefix, "share/man/man1", page + ".1.gz")),
            "bash completion": bash_options(bash, words),
            "zsh completion": zsh_options(zsh, function),
        }
        for option in options:
            for place, found in places.items():
                if option not in found:
                    print("%s: %s missing from the %s" % (page, option, place))
                    missing += 1
        print("%s: %d options in --help, each in the man page, bash and zsh completion"
              % (page, len(options)) if not missing else "%s: checked" % page)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
