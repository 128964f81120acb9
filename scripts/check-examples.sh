#!/usr/bin/env bash
# README command 1: set up, build, and run `streamlife check` over the bundled
# examples: the CUDA pipelines (examples/cuda/*.cu), the PyTorch Python ones
# (examples/python/) and the PyTorch C++ versions (examples/aten/*.cpp, parsed
# with PyTorch's C++ headers as scripts/torch-headers.sh finds them; without
# them the ATen examples are skipped, with one line saying how to enable them).
# Exit status is streamlife's: 1 means findings (expected: the buggy pipelines
# are bundled on purpose), 2 an error.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
BIN="${STREAMLIFE_BUILD_DIR:-$ROOT/build}/bin/streamlife"
status=0
"$BIN" check examples/cuda/*.cu examples/python "$@" || status=$?
found=0
TORCH="$("$ROOT/scripts/torch-headers.sh")" || found=$?
case $found in
0)
  includes=()
  while IFS= read -r dir; do includes+=("-I$dir"); done <<<"$TORCH"
  aten=0
  "$BIN" check examples/aten/*.cpp "$@" -- -std=c++17 "${includes[@]}" -I/usr/local/cuda/include || aten=$?
  ;;
3)
  echo "streamlife: examples/aten skipped: no PyTorch C++ headers (install PyTorch for python3 or name its python" \
       "with STREAMLIFE_PYTHON=PYTHON, or set STREAMLIFE_TORCH_INCLUDE=DIR, torch's include folder)" >&2
  aten=0
  ;;
*) aten=2 ;;
esac
# 2 (an error) wins over 1 (findings) wins over 0.
(( aten > status )) && status=$aten
exit "$status"
