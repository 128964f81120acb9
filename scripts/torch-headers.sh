#!/usr/bin/env bash
# Prints the directory holding the unpacked PyTorch 2.11 C++ headers, unpacking
# them into the build tree on first use (never into the repository). The
# tarball lives in ../shared/torch-headers next to the repository (where CI has
# it); a git worktree elsewhere finds it next to its main checkout. Exits 2
# with one line on stderr when the tarball is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${STREAMLIFE_BUILD_DIR:-$ROOT/build}"
NAME="torch-headers/torch-2.11.0+cu130-include.tar.xz"
TARBALL="${STREAMLIFE_TORCH_HEADERS_TARBALL:-$ROOT/../shared/$NAME}"
if [[ ! -f "$TARBALL" ]]; then
  COMMON="$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
  [[ -n "$COMMON" && -f "$COMMON/../../shared/$NAME" ]] && TARBALL="$COMMON/../../shared/$NAME"
fi
if [[ ! -f "$TARBALL" ]]; then
  echo "error: PyTorch headers tarball not found: $TARBALL (set STREAMLIFE_TORCH_HEADERS_TARBALL)" >&2
  exit 2
fi
DEST="$BUILD/torch-headers"
if [[ ! -f "$DEST/.unpacked" ]]; then
  mkdir -p "$DEST"
  tar -xJf "$TARBALL" -C "$DEST"
  touch "$DEST/.unpacked"
fi
echo "$DEST"
