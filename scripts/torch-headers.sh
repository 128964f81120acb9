#!/usr/bin/env bash
# Prints the include directories of PyTorch's C++ headers (ATen, c10, torch),
# one per line: what the ATen examples and the ATen test tier are parsed with.
# They are looked for where a user has them; the first found wins:
#  1. an installed PyTorch: torch.utils.cpp_extension.include_paths() of
#     $STREAMLIFE_PYTHON, or else of the python3 on PATH;
#  2. STREAMLIFE_TORCH_INCLUDE=DIR: DIR is torch's include folder (the one
#     holding ATen/, c10/ and torch/, as in a libtorch download);
#  3. the PyTorch 2.11 headers tarball kept beside the repository in
#     ../shared/torch-headers (CI has it; a git worktree elsewhere finds it
#     next to its main checkout; STREAMLIFE_TORCH_HEADERS_TARBALL=FILE names
#     another), unpacked into the build tree on first use, never into the
#     repository.
# Exit status: 0 with the directories; 3 when none of them exists (nothing on
# stdout: the caller says what it skips); 2 with one line on stderr when a
# source that was asked for explicitly is broken.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${STREAMLIFE_BUILD_DIR:-$ROOT/build}"

fail() { echo "error: $*" >&2; exit 2; }

# 1. An installed PyTorch. python3 on PATH without torch is the common case of
# a machine without PyTorch, not an error; an explicit STREAMLIFE_PYTHON that
# cannot give the paths is.
python="${STREAMLIFE_PYTHON:-python3}"
if command -v "$python" >/dev/null 2>&1; then
  if paths="$("$python" -c 'import torch.utils.cpp_extension as e; print("\n".join(e.include_paths()))' 2>/dev/null)" &&
     [[ -n "$paths" ]]; then
    echo "$paths"
    exit 0
  fi
  [[ -n "${STREAMLIFE_PYTHON:-}" ]] &&
    fail "STREAMLIFE_PYTHON=$STREAMLIFE_PYTHON has no PyTorch (torch.utils.cpp_extension.include_paths() failed)"
elif [[ -n "${STREAMLIFE_PYTHON:-}" ]]; then
  fail "STREAMLIFE_PYTHON=$STREAMLIFE_PYTHON: no such command"
fi

# 2. A folder the user names.
if [[ -n "${STREAMLIFE_TORCH_INCLUDE:-}" ]]; then
  [[ -f "$STREAMLIFE_TORCH_INCLUDE/ATen/ATen.h" ]] ||
    fail "STREAMLIFE_TORCH_INCLUDE=$STREAMLIFE_TORCH_INCLUDE has no ATen/ATen.h (expected torch's include folder)"
  dir="$(cd "$STREAMLIFE_TORCH_INCLUDE" && pwd)"
  echo "$dir"
  echo "$dir/torch/csrc/api/include"
  exit 0
fi

# 3. The tarball beside the repository.
NAME="torch-headers/torch-2.11.0+cu130-include.tar.xz"
if [[ -n "${STREAMLIFE_TORCH_HEADERS_TARBALL:-}" ]]; then
  TARBALL="$STREAMLIFE_TORCH_HEADERS_TARBALL"
  [[ -f "$TARBALL" ]] || fail "STREAMLIFE_TORCH_HEADERS_TARBALL=$TARBALL: no such file"
else
  TARBALL="$ROOT/../shared/$NAME"
  if [[ ! -f "$TARBALL" ]]; then
    COMMON="$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
    [[ -n "$COMMON" && -f "$COMMON/../../shared/$NAME" ]] && TARBALL="$COMMON/../../shared/$NAME"
  fi
  [[ -f "$TARBALL" ]] || exit 3
fi
DEST="$BUILD/torch-headers"
if [[ ! -f "$DEST/.unpacked" ]]; then
  mkdir -p "$DEST"
  tar -xJf "$TARBALL" -C "$DEST" || fail "cannot unpack $TARBALL into $DEST"
  touch "$DEST/.unpacked"
fi
echo "$DEST/include"
echo "$DEST/include/torch/csrc/api/include"
