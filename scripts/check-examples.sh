#!/usr/bin/env bash
# README command 1: set up, build, and run `streamlife check` over the bundled
# examples, CUDA C++ and PyTorch Python. Exit status is streamlife's: 1 means
# findings (expected: the buggy pipelines are bundled on purpose).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
exec "${STREAMLIFE_BUILD_DIR:-$ROOT/build}/bin/streamlife" check examples/cuda/*.cu examples/python "$@"
