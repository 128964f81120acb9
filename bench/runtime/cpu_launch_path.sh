#!/usr/bin/env bash
# The validator's host cost per launch on the CPU, without a GPU: runs
# cpu/cpu_launch_path.cpp (launch_bound.cu's loop through the fake CUPTI and
# driver) plain and under `streamlife run`, interleaved, and prints the medians
# and the difference, which is the validator's own time per launch (launch +
# event record + wait). --self-profile adds one validated run with
# `--self-profile`, whose table says which callback and phase the time went to.
#
#   bench/runtime/cpu_launch_path.sh BUILD_DIR [--repeat R] [--launches N] [--depth D] [--struct] [--self-profile]
#
# --struct launches a kernel whose parameter is a by-value struct (its words
# found by the generic rule), as cpu_launch_path --struct.
# BUILD_DIR is a configured and built streamlife build (targets streamlife,
# streamlife_rt and cpu_launch_path). Exit 0; 1 when a run failed; 2 on bad usage.
set -euo pipefail

usage() {
  echo "usage: $0 BUILD_DIR [--repeat R] [--launches N] [--depth D] [--struct] [--self-profile]" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
shift
repeat=5 launches=200000 depth=24 profile=0 struct=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat=${2:?}; shift 2 ;;
    --launches) launches=${2:?}; shift 2 ;;
    --depth) depth=${2:?}; shift 2 ;;
    --struct) struct=(--struct); shift ;;
    --self-profile) profile=1; shift ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
prog=$build/bench/runtime/cpu_launch_path
fake=$build/test/fakecuda
for f in "$prog" "$build/bin/streamlife" "$fake/libcupti.so" "$fake/libcuda.so.1"; do
  [[ -e $f ]] || { echo "error: $f not found (build cpu_launch_path and streamlife)" >&2; exit 2; }
done
export LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} STREAMLIFE_CUPTI_LIBRARY=$fake/libcupti.so
args=(--launches "$launches" --depth "$depth" "${struct[@]}")

median_of() { sed -n 's/.*ns_per_launch_median=\([0-9.]*\).*/\1/p'; }
plain=() validated=()
for ((r = 0; r < repeat; r++)); do
  plain+=("$("$prog" "${args[@]}" | median_of)")
  validated+=("$("$build/bin/streamlife" run -- "$prog" "${args[@]}" 2>/dev/null | median_of)")
done
python3 - "${plain[*]}" "${validated[*]}" "$launches" "$depth" <<'PY'
import statistics, sys
plain = [float(v) for v in sys.argv[1].split()]
validated = [float(v) for v in sys.argv[2].split()]
if not plain or not validated or len(plain) != len(validated):
    sys.exit("error: a run printed no result")
p, v = statistics.median(plain), statistics.median(validated)
print(f"cpu launch path: {sys.argv[3]} launches, calls {sys.argv[4]} frames deep, {len(plain)} repeats interleaved")
print(f"  plain      ns/launch  {p:8.1f}  [{' '.join(f'{x:.1f}' for x in plain)}]")
print(f"  streamlife ns/launch  {v:8.1f}  [{' '.join(f'{x:.1f}' for x in validated)}]")
print(f"  added by the validator: {v - p:.1f} ns per launch (launch + event record + wait)")
PY
if [[ $profile == 1 ]]; then
  "$build/bin/streamlife" run --self-profile -- "$prog" "${args[@]}" 2>&1 >/dev/null | grep 'self-profile'
fi
