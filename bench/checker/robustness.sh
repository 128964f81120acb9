#!/usr/bin/env bash
# Robustness run of `streamlife check` over real CUDA code that we did not
# write: NVIDIA's cuda-samples. Reads an already extracted checkout (this
# script never downloads or builds their code, and nothing of it is
# committed), checks each file in its own process so that a crash is pinned to
# one file, and prints a table:
#
#   file <TAB> exit status <TAB> findings <TAB> verdict-of-the-run <TAB> checks
#
# exit status: 0 clean, 1 findings, 2 did not parse (missing third-party
# headers such as MPI, EGL or NvSci count here, they are not crashes);
# anything else (a signal, "Stack dump") is a CRASH. The script's own exit
# status is 1 when any file crashed.
#
# usage: robustness.sh CUDA_SAMPLES_DIR [FILE...]
#   FILEs are relative to CUDA_SAMPLES_DIR; by default every .cu/.cpp under
#   Samples/ that uses streams, events or stream-ordered allocation.
# env:   STREAMLIFE (default: build/bin/streamlife of this checkout),
#        OUT_DIR (default: a temporary directory; keeps each file's output),
#        EXTRA_ARGS (added to every compile command),
#        MANIFEST (write "FILE ARGS..." of every file that parsed there: the
#        input of bench.py --manifest)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STREAMLIFE="${STREAMLIFE:-$ROOT/build/bin/streamlife}"
if (( $# < 1 )) || [[ ! -d "$1/Samples" || ! -d "$1/Common" ]]; then
  echo "usage: $0 CUDA_SAMPLES_DIR [FILE...] (a directory with Samples/ and Common/)" >&2
  exit 2
fi
SAMPLES="$(cd "$1" && pwd)"; shift
[[ -x "$STREAMLIFE" ]] || { echo "robustness: no streamlife at $STREAMLIFE" >&2; exit 2; }
OUT_DIR="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$OUT_DIR"
[[ -n "${MANIFEST:-}" ]] && : > "$MANIFEST"

files=("$@")
if (( ${#files[@]} == 0 )); then
  mapfile -t files < <(cd "$SAMPLES" && grep -rlE \
      'cudaStream|cudaEvent|MallocAsync|FreeAsync|cuStream|cuMemAllocAsync' \
      Samples --include='*.cu' --include='*.cpp' | sort)
fi

CUDA="${CUDA_PATH:-/usr/local/cuda}"
# Host overloads of min/max(float, float): nvcc's math headers declare them
# __host__ __device__, clang's CUDA wrappers __device__ only, so samples that
# call max() on floats in host code (simpleStreams, simpleMultiCopy) would not
# parse under clang. A harness shim, not a change to their code.
SHIM="$OUT_DIR/host_minmax_shim.h"
cat > "$SHIM" <<'SHIM_EOF'
#pragma once
#if defined(__CUDA__) && !defined(__CUDA_ARCH__)
__host__ static inline float max(float a, float b) { return a < b ? b : a; }
__host__ static inline float min(float a, float b) { return b < a ? b : a; }
#endif
SHIM_EOF

crashes=0
printf 'file\texit\tfindings\trun\tchecks\n'
for f in "${files[@]}"; do
  log="$OUT_DIR/$(echo "$f" | tr '/' '_').txt"
  # What their CMake gives the compiler: Common/ (and Common/UtilNPP for the
  # NPP samples), the sample's own directory and its inc/, the toolkit's
  # include directory for .cpp files (through CUDA::cudart), and relocatable
  # device code where the sample sets CUDA_SEPARABLE_COMPILATION.
  dir="$SAMPLES/$(dirname "$f")"
  args=(-I"$SAMPLES/Common" -I"$SAMPLES/Common/UtilNPP" -I"$dir" -std=c++17)
  for inc in "$dir/inc" "$dir/../inc"; do [[ -d "$inc" ]] && args+=(-I"$inc"); done
  case "$f" in
    *.cu)
      args+=(-include "$SHIM")
      grep -qs 'CUDA_SEPARABLE_COMPILATION ON' "$dir/CMakeLists.txt" "$dir/../CMakeLists.txt" &&
        args+=(-fgpu-rdc) ;;
    *) args+=(-isystem "$CUDA/include") ;;
  esac
  (cd "$SAMPLES" && "$STREAMLIFE" check "$f" -- "${args[@]}" ${EXTRA_ARGS:-}) > "$log" 2>&1
  status=$?
  findings=$(grep -c ': warning: .*\[streamlife-' "$log")
  checks=$(grep -o '\[streamlife-[a-z-]*\]' "$log" | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
  case $status in
    0) run=clean ;;
    1) run=findings ;;
    2) run=not-parsed ;;
    *) run=CRASH; crashes=$((crashes + 1)) ;;
  esac
  grep -q -e 'Stack dump' -e 'PLEASE submit a bug report' "$log" && { run=CRASH; crashes=$((crashes + 1)); }
  printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$status" "$findings" "$run" "$checks"
  if [[ -n "${MANIFEST:-}" && ( $status == 0 || $status == 1 ) ]]; then
    printf '%q' "$SAMPLES/$f" >> "$MANIFEST"
    for a in "${args[@]}" ${EXTRA_ARGS:-}; do printf ' %q' "$a" >> "$MANIFEST"; done
    echo >> "$MANIFEST"
  fi
done
echo "robustness: ${#files[@]} files, $crashes crashes; outputs in $OUT_DIR" >&2
(( crashes == 0 ))
