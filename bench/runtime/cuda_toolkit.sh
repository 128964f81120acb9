# Sourced by the GPU benchmarks (run.sh, launch_path_probe.sh,
# driver_call_cost.sh): where the CUDA toolkit's pieces are. Each function
# sets its variables or prints one error line and exits 2.

# nvcc (NVCC overrides, then PATH, then /usr/local/cuda) and cuda, the
# toolkit's root above it.
find_cuda_toolkit() {
  nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [[ -x $nvcc ]] || { echo "error: nvcc not found (set NVCC)" >&2; exit 2; }
  cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
}

# cupti, the toolkit's CUPTI library: in extras/CUPTI/ in the classic
# layout, in lib64/ in the redistributable one. After find_cuda_toolkit.
find_cupti() {
  cupti=""
  local dir f
  for dir in "$cuda/extras/CUPTI/lib64" "$cuda/lib64" "$cuda/lib" "$cuda/targets/x86_64-linux/lib"; do
    for f in "$dir"/libcupti.so "$dir"/libcupti.so.*; do
      [[ -e $f ]] && { cupti=$f; return; }
    done
  done
  echo "error: libcupti not found under $cuda" >&2
  exit 2
}
