#!/usr/bin/env bash
# README command 1: set up, build, and run `streamlife check` over the bundled
# examples: the CUDA pipelines (examples/cuda/*.cu), the PyTorch Python ones
# (examples/python/) and the PyTorch C++ versions (examples/aten/*.cpp, parsed with the real torch 2.11 headers,
# unpacked into the build tree). Exit status is streamlife's: 1 means findings
# (expected: the buggy pipelines are bundled on purpose), 2 an error.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
BIN="${STREAMLIFE_BUILD_DIR:-$ROOT/build}/bin/streamlife"
TORCH="$("$ROOT/scripts/torch-headers.sh")"
status=0
"$BIN" check examples/cuda/*.cu examples/python "$@" || status=$?
aten=0
"$BIN" check examples/aten/*.cpp "$@" -- -std=c++17 -I"$TORCH/include" \
  -I"$TORCH/include/torch/csrc/api/include" -I/usr/local/cuda/include || aten=$?
# 2 (an error) wins over 1 (findings) wins over 0.
(( aten > status )) && status=$aten
exit "$status"
