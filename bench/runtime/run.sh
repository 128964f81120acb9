#!/usr/bin/env bash
# Runtime-validator benchmark: builds the two workloads with nvcc and runs them
# side by side -- plain, under `streamlife run`, and under compute-sanitizer
# memcheck with stream-ordered race tracking -- then prints one table.
#
#   bench/runtime/run.sh BUILD_DIR [--repeat R] [--launches N] [--layers L] [--quick] [--no-sanitizer]
#                                  [--self-profile] [--timeline] [--cpus LIST] [--also NAME=FLAGS ...]
#                                  [--workloads launch-bound,gpu-bound]
#
# BUILD_DIR is a configured streamlife build holding bin/streamlife (and
# lib/libstreamlife_rt.so); the benchmark programs go to BUILD_DIR/bench/runtime.
# Needs only bash, nvcc and python3 (the GPU machine). Environment: NVCC,
# COMPUTE_SANITIZER override the tools. Exit 0 when every run worked, 1 when a
# run failed, computed a wrong result or the validator reported a finding,
# 2 on bad usage or a missing tool.
set -euo pipefail

usage() {
  echo "usage: $0 BUILD_DIR [--repeat R] [--launches N] [--layers L] [--quick] [--no-sanitizer] [--self-profile] [--timeline] [--cpus LIST] [--also NAME=FLAGS ...] [--workloads LIST]" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
build_dir=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
shift
repeat=3 launches=100000 layers=32 sanitizer_wanted=1 profile=() cpus=() also=() workloads=() named=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat=${2:?}; shift 2 ;;
    --launches) launches=${2:?}; shift 2 ;;
    --layers) layers=${2:?}; shift 2 ;;
    --quick) repeat=1 launches=20000 layers=8; shift ;;
    --no-sanitizer) sanitizer_wanted=0; shift ;;
    --self-profile) profile+=(--self-profile); shift ;;
    --timeline) profile+=(--timeline); shift ;;
    --cpus) cpus=(--cpus "${2:?}"); shift 2 ;;
    --also) also+=(--also "${2:?}"); shift 2 ;;
    --workloads) named=${2:?} workloads=(--workloads "$named"); shift 2 ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

source "$here/cuda_toolkit.sh"
find_cuda_toolkit
streamlife=$build_dir/bin/streamlife
[[ -x $streamlife ]] || { echo "error: $streamlife not found (build the 'streamlife' target)" >&2; exit 2; }
sanitizer=""
if [[ $sanitizer_wanted == 1 ]]; then
  sanitizer=${COMPUTE_SANITIZER:-$(dirname "$nvcc")/compute-sanitizer}
  if [[ ! -x $sanitizer ]]; then
    echo "warning: compute-sanitizer not found at $sanitizer: its columns are skipped" >&2
    sanitizer=""
  fi
fi

out=$build_dir/bench/runtime
mkdir -p "$out/logs"
echo "bench: building with $nvcc into $out"
# -lineinfo so compute-sanitizer and the validator can name source lines;
# the shared cudart so the validator sees the runtime calls. Only the workloads
# that will run are built (compare.py checks the names).
wanted() { [[ -z $named || ,$named, == *,$1,* ]]; }
if wanted launch-bound; then
  "$nvcc" -O2 -lineinfo -arch=sm_90 -cudart shared -o "$out/launch_bound" "$here/launch_bound.cu"
fi
if wanted gpu-bound; then
  "$nvcc" -O2 -lineinfo -arch=sm_90 -cudart shared -I "$root/examples/cuda" \
    -o "$out/gpu_bound" "$here/gpu_bound.cu"
fi

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/bench: GPU: /' || true
exec python3 "$here/compare.py" --bin-dir "$out" --streamlife "$streamlife" \
  --sanitizer "$sanitizer" --repeat "$repeat" --launches "$launches" --layers "$layers" \
  --log-dir "$out/logs" "${profile[@]}" "${cpus[@]}" "${also[@]}" "${workloads[@]}"
