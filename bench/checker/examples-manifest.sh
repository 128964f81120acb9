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
# PyTorch's headers are where scripts/torch-headers.sh finds them (an
# installed PyTorch, STREAMLIFE_TORCH_INCLUDE, or ../shared/torch-headers
# unpacked into BUILD_DIR/torch-headers); CUDA_PATH
# (default /usr/local/cuda) is the CUDA toolkit. Paths are printed absolute.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
CUDA="${CUDA_PATH:-/usr/local/cuda}"
TORCH="$(STREAMLIFE_BUILD_DIR="$BUILD" "$ROOT/scripts/torch-headers.sh")" ||
  { echo "error: no PyTorch C++ headers (see scripts/torch-headers.sh)" >&2; exit 2; }
includes=()
while IFS= read -r dir; do includes+=("-I$dir"); done <<<"$TORCH"
echo "# examples/aten: torch TUs (headers ${includes[*]})"
for f in "$ROOT"/examples/aten/*.cpp; do
  printf '%q -std=c++17' "$f"
  printf ' %q' "${includes[@]}" "-I$CUDA/include"
  printf '\n'
done
echo "# examples/cuda: bench.py adds -x cuda --cuda-host-only -nocudalib --cuda-path=$CUDA"
for f in "$ROOT"/examples/cuda/*.cu; do
  printf '%q\n' "$f"
done
