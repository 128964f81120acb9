#!/usr/bin/env bash
# Prints a bench.py manifest ("FILE ARG..." per line) for the repository's own
# examples, the files of issue 10's benchmark: every examples/aten/*.cpp with
# the arguments test/cli/examples-aten.test gives them (-std=c++17, the
# PyTorch 2.11 headers as %torch_include expands, the CUDA include folder),
# and every examples/cuda/*.cu with none (bench.py adds the host-side CUDA
# arguments to .cu files itself: -x cuda --cuda-host-only -nocudalib
# --cuda-path=CUDA, plus CUDA's cccl folder).
#
# usage: bench/checker/examples-manifest.sh [BUILD_DIR] > LIST
#        bench/checker/bench.py --build-dir BUILD_DIR --runs 3 --by-dir --manifest LIST
#
# The headers are unpacked into BUILD_DIR/torch-headers on first use by
# scripts/torch-headers.sh (from ../shared/torch-headers); CUDA_PATH
# (default /usr/local/cuda) is the CUDA toolkit. Paths are printed absolute.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
CUDA="${CUDA_PATH:-/usr/local/cuda}"
TORCH="$(STREAMLIFE_BUILD_DIR="$BUILD" "$ROOT/scripts/torch-headers.sh")"
echo "# examples/aten: torch TUs (headers $TORCH)"
for f in "$ROOT"/examples/aten/*.cpp; do
  printf '%q -std=c++17 %q %q %q\n' "$f" "-I$TORCH/include" "-I$TORCH/include/torch/csrc/api/include" "-I$CUDA/include"
done
echo "# examples/cuda: bench.py adds -x cuda --cuda-host-only -nocudalib --cuda-path=$CUDA"
for f in "$ROOT"/examples/cuda/*.cu; do
  printf '%q\n' "$f"
done
