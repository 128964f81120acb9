#!/usr/bin/env bash
# usage: clone_without_shared.sh SRC BUILD [LIT_ARGS...]
#
# A user's clone, away from the shared folder (no ../shared: no PyTorch headers
# tarball, no seed post) on a machine whose python3 has no PyTorch: copies the
# checkout's files (tracked and untracked, not ignored: what a clone of it
# holds) into a fresh git repository under $TMPDIR, configures it, reuses
# BUILD's binaries instead of building them again (STREAMLIFE_SKIP_SETUP=1, as
# the README documents for a tree built by hand), and runs the README's two
# commands there. Prints each command's output and exit status, in order.
set -euo pipefail
SRC="$(cd "$1" && pwd)"
BUILD="$(cd "$2" && pwd)"
shift 2
WORK="$(mktemp -d "${TMPDIR:-/tmp}/streamlife-clone.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
CLONE="$WORK/streamlife"
mkdir -p "$CLONE"
git -C "$SRC" ls-files -z --cached --others --exclude-standard |
  (cd "$SRC" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$CLONE"
git -C "$CLONE" init -q
[[ -e "$WORK/../shared" || -e "$CLONE/../shared" ]] && { echo "a shared folder is beside $CLONE"; exit 1; }
# The tree-sitter sources setup.sh fetches from npm (git-ignored inputs).
[[ -d "$SRC/third_party" ]] && cp -a "$SRC/third_party" "$CLONE/third_party"

# Configure the clone (its own lit site configuration, its own paths), then
# borrow the binaries: what building it would produce, from the same sources.
cmake -S "$CLONE" -B "$CLONE/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for dir in bin lib examples; do
  [[ -d "$BUILD/$dir" ]] && { rm -rf "$CLONE/build/$dir"; ln -s "$BUILD/$dir" "$CLONE/build/$dir"; }
done
(cd "$BUILD" && find test/unit -type f -perm -u+x -name '*Tests') | while read -r test; do
  mkdir -p "$CLONE/build/$(dirname "$test")" && ln -s "$BUILD/$test" "$CLONE/build/$test"
done

# python3 on PATH without PyTorch, whatever this machine has: `import torch`
# fails in the python3 the scripts find.
mkdir -p "$WORK/nopytorch/torch" "$WORK/pathbin"
echo 'raise ImportError("PyTorch hidden: a machine without it")' > "$WORK/nopytorch/torch/__init__.py"
real_python3="$(command -v python3)"
printf '#!/bin/sh\nPYTHONPATH=%q${PYTHONPATH:+:$PYTHONPATH} exec %q "$@"\n' \
  "$WORK/nopytorch" "$real_python3" > "$WORK/pathbin/python3"
chmod +x "$WORK/pathbin/python3"

cd "$CLONE"
run() {
  env -u STREAMLIFE_PYTHON -u STREAMLIFE_TORCH_INCLUDE -u STREAMLIFE_TORCH_HEADERS_TARBALL \
      -u STREAMLIFE_BUILD_DIR PATH="$WORK/pathbin:$PATH" STREAMLIFE_SKIP_SETUP=1 "$@"
}
echo "== scripts/check-examples.sh"
status=0
run scripts/check-examples.sh 2>&1 || status=$?
echo "== exit $status"
echo "== scripts/test.sh"
status=0
run scripts/test.sh "$@" 2>&1 || status=$?
echo "== exit $status"
