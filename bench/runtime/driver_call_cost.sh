#!/usr/bin/env bash
# What a stream-ordered allocation and free cost the validator on the real
# driver, and what the driver getters the validator calls cost there:
# probes/driver_call_cost.cpp run side by side, R rounds interleaved, under
#   plain             nothing preloaded
#   cupti-subscribed  a CUPTI subscriber with the callbacks of the calls the
#                     validator leaves to CUPTI enabled (launch_path_probe.cpp,
#                     PROBE_CUPTI=2): what the subscription alone costs
#   streamlife        the validator (streamlife run)
#   NAME              with --also NAME=OPTIONS: the validator with
#                     STREAMLIFE_OPTIONS=OPTIONS (repeatable)
# and prints, per measure, the median host ns per call of each mode and its
# cost over plain.
#
#   bench/runtime/driver_call_cost.sh BUILD_DIR [--repeat R] [--calls N] [--cpus LIST] [--also NAME=OPTIONS]...
#
# Needs g++, the CUDA toolkit's headers, libcuda and CUPTI (the GPU machine).
# Exit 0, 1 when a run failed, 2 on bad usage or a missing tool.
set -euo pipefail
usage() { echo "usage: $0 BUILD_DIR [--repeat R] [--calls N] [--cpus LIST] [--also NAME=OPTIONS]..." >&2; exit 2; }
[[ $# -ge 1 ]] || usage
build_dir=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
shift
repeat=5 calls=20000 pin=()
declare -A extra_options
extra_modes=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat=${2:?}; shift 2 ;;
    --calls) calls=${2:?}; shift 2 ;;
    --cpus) pin=(taskset -c "${2:?}"); shift 2 ;;
    --also)
      spec=${2:?}; shift 2
      [[ $spec == *=* && -n ${spec%%=*} ]] || { echo "error: --also wants NAME=OPTIONS, got '$spec'" >&2; exit 2; }
      extra_modes+=("${spec%%=*}"); extra_options[${spec%%=*}]=${spec#*=} ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/cuda_toolkit.sh"
find_cuda_toolkit
streamlife=$build_dir/bin/streamlife
[[ -x $streamlife ]] || { echo "error: $streamlife not found" >&2; exit 2; }
out=$build_dir/bench/runtime/driver-call-cost
mkdir -p "$out"
find_cupti
g++ -O2 -I"$cuda/include" "$here/probes/driver_call_cost.cpp" -o "$out/driver_call_cost" -lcuda
g++ -O2 -shared -fPIC -I"$cuda/include" -I"$cuda/extras/CUPTI/include" -I"$root/runtime-validator" \
    "$here/probes/launch_path_probe.cpp" -ldl "$cupti" -Wl,-rpath,"$(dirname "$cupti")" -o "$out/libprobe_cupti.so"

run_mode() { # MODE -> the probe's lines "measure ns"
  local mode=$1 cmd=("${pin[@]}" "$out/driver_call_cost" "$calls")
  case $mode in
    plain) "${cmd[@]}" ;;
    cupti-subscribed) PROBE_CUPTI=2 LD_PRELOAD="$out/libprobe_cupti.so" "${cmd[@]}" 2>"$out/$mode.probe" ;;
    streamlife) "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
    *) STREAMLIFE_OPTIONS=${extra_options[$mode]} "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
  esac
}

modes=(plain cupti-subscribed streamlife "${extra_modes[@]}")
: > "$out/samples.txt"
for ((r = 0; r < repeat; ++r)); do
  for m in "${modes[@]}"; do
    lines=$(run_mode "$m") || { echo "error: $m failed (see $out)" >&2; exit 1; }
    [[ $(grep -c . <<<"$lines") -eq 4 ]] || { echo "error: $m printed no timings (see $out/$m.log)" >&2; exit 1; }
    sed "s/^/$m /" <<<"$lines" >> "$out/samples.txt"
  done
done
python3 - "$out/samples.txt" "$calls" "${modes[@]}" <<'PY'
import collections, statistics, sys
path, calls, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
samples = collections.defaultdict(list)
measures = []
for line in open(path):
    mode, measure, ns = line.split()
    samples[(mode, measure)].append(float(ns))
    if measure not in measures:
        measures.append(measure)
print(f"driver call cost: {calls} calls a round, {len(samples[('plain', measures[0])])} runs a mode; host ns per call, medians of the runs")
print("| measure | " + " | ".join(modes) + " |")
print("|---|" + "---|" * len(modes))
for measure in measures:
    plain = statistics.median(samples[("plain", measure)])
    cells = [f"{plain:.1f}"]
    for m in modes[1:]:
        v = statistics.median(samples[(m, measure)])
        cells.append(f"{v:.1f} ({v - plain:+.1f})")
    print(f"| {measure} | " + " | ".join(cells) + " |")
PY
