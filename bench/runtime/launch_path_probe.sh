#!/usr/bin/env bash
# Where the validator's launch cost goes: bench/runtime's launch_bound loop
# (a launch, an event record and a wait per step) run side by side, R rounds
# interleaved, under
#   plain             nothing preloaded
#   cupti-noop        a CUPTI subscriber with the validator's driver callbacks
#                     enabled and an empty callback (probes/launch_path_probe.cpp),
#                     the launch, record and wait included
#   cupti-subscribed  the same without the calls the validator takes at the
#                     driver's entry points (the launch, record and wait): what
#                     the validator's CUPTI subscription costs this loop
#   mutex-count       pthread mutex interposers that count and forward
#   streamlife        the validator (streamlife run)
#   streamlife-nostacks  the validator without call-site capture (stack_depth=0,
#                     python_stacks=0)
#   streamlife-profile   the validator with self_profile=1 (its own time per call)
#   streamlife-nothread  the validator without its replay thread (replay_thread=0):
#                     the launch, record and wait applied on the program's thread
#   streamlife-nothread-profile  the same with self_profile=1
# and prints the median host µs per step of each, its cost over plain, and the
# mutex locks per step.
#
#   bench/runtime/launch_path_probe.sh BUILD_DIR [--repeat R] [--launches N] [--cpus LIST] [--sampler LIB]
#                                      [--modes M1,M2,...]
#
# --modes runs only those modes (plain is always run: the costs are over it).
#
# --sampler LIB (build/bench/runtime/libstreamlife_cpu_sampler.so) adds one run
# of plain and of streamlife under the CPU sampler and prints the CPU µs per
# step of the timed steps by library and symbol (cpu_samples.py): the
# validator's own time per step read from where it is spent, which the medians'
# difference hides on a host whose plain runs spread by more than the cost.
#
# --cpus runs every mode on those CPUs (taskset -c): on a shared host a run
# that lands on other cores or migrates moves its time by more than the cost
# measured here.
#
# Needs nvcc, g++ and CUPTI (the GPU machine). Exit 0, 1 when a run failed,
# 2 on bad usage or a missing tool.
set -euo pipefail
usage() { echo "usage: $0 BUILD_DIR [--repeat R] [--launches N] [--cpus LIST] [--sampler LIB] [--modes M1,M2,...]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
build_dir=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
shift
repeat=3 launches=100000 pin=() sampler="" wanted=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat=${2:?}; shift 2 ;;
    --launches) launches=${2:?}; shift 2 ;;
    --cpus) pin=(taskset -c "${2:?}"); shift 2 ;;
    --modes) wanted=${2:?}; shift 2 ;;
    --sampler) sampler=$(cd "$(dirname "${2:?}")" && pwd)/$(basename "$2"); shift 2
               [[ -f $sampler ]] || { echo "error: --sampler: no such file: $2" >&2; exit 2; } ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/cuda_toolkit.sh"
find_cuda_toolkit
streamlife=$build_dir/bin/streamlife
[[ -x $streamlife ]] || { echo "error: $streamlife not found" >&2; exit 2; }

out=$build_dir/bench/runtime/probe
mkdir -p "$out"
"$nvcc" -O2 -lineinfo -arch=sm_90 -cudart shared -o "$out/launch_bound" "$here/launch_bound.cu"
find_cupti
probe_flags=(-O2 -shared -fPIC -I"$cuda/include" -I"$cuda/extras/CUPTI/include" -I"$root/runtime-validator"
             "$here/probes/launch_path_probe.cpp" -ldl "$cupti" -Wl,-rpath,"$(dirname "$cupti")")
g++ "${probe_flags[@]}" -o "$out/libprobe_cupti.so"
g++ -DPROBE_MUTEXES "${probe_flags[@]}" -o "$out/libprobe_mutex.so"

run_mode() { # MODE -> prints "host_us_per_launch_median" of one run; the probe line to $out/MODE.probe
  local mode=$1 cmd=("${pin[@]}" "$out/launch_bound" --launches "$launches")
  case $mode in
    plain) "${cmd[@]}" ;;
    cupti-noop) PROBE_CUPTI=1 LD_PRELOAD="$out/libprobe_cupti.so" "${cmd[@]}" 2>"$out/$mode.probe" ;;
    cupti-subscribed) PROBE_CUPTI=2 LD_PRELOAD="$out/libprobe_cupti.so" "${cmd[@]}" 2>"$out/$mode.probe" ;;
    mutex-count) LD_PRELOAD="$out/libprobe_mutex.so" "${cmd[@]}" 2>"$out/$mode.probe" ;;
    streamlife) "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
    streamlife-nostacks) STREAMLIFE_OPTIONS=stack_depth=0:python_stacks=0 "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
    streamlife-profile) STREAMLIFE_OPTIONS=self_profile=1 "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
    streamlife-nothread) STREAMLIFE_OPTIONS=replay_thread=0 "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
    streamlife-nothread-profile)
      STREAMLIFE_OPTIONS=replay_thread=0:self_profile=1 "$streamlife" run -- "${cmd[@]}" 2>"$out/$mode.log" ;;
  esac | sed -n 's/.*host_us_per_launch_median=\([0-9.]*\).*/\1/p'
}

all_modes=(plain cupti-noop cupti-subscribed mutex-count streamlife streamlife-nostacks streamlife-profile
           streamlife-nothread streamlife-nothread-profile)
modes=("${all_modes[@]}")
if [[ -n $wanted ]]; then
  modes=(plain)
  for m in ${wanted//,/ }; do
    [[ " ${all_modes[*]} " == *" $m "* ]] || { echo "error: --modes: unknown mode '$m'" >&2; exit 2; }
    [[ $m == plain ]] || modes+=("$m")
  done
fi
declare -A samples
for ((r = 0; r < repeat; ++r)); do
  for m in "${modes[@]}"; do
    v=$(run_mode "$m") || { echo "error: $m failed (see $out)" >&2; exit 1; }
    [[ -n $v ]] || { echo "error: $m printed no timing (see $out/$m.log)" >&2; exit 1; }
    samples[$m]+="$v "
  done
done
locks=$(sed -n 's/.*mutex_locks=\([0-9]*\).*/\1/p' "$out/mutex-count.probe" 2>/dev/null || true)
python3 - "$launches" "${locks:-0}" "${modes[@]}" <<PY
import statistics, sys
launches, locks, modes = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
samples = {$(for m in "${modes[@]}"; do printf "'%s': [%s], " "$m" "$(echo ${samples[$m]} | tr ' ' ',')"; done)}
plain = statistics.median(samples['plain'])
print(f"launch path: {launches} steps, {len(samples['plain'])} rounds; mutex locks per step (whole process): {locks / launches:.2f}")
print("| mode | host µs per step (median) | cost over plain | samples |")
print("|---|---|---|---|")
for m in modes:
    med = statistics.median(samples[m])
    print(f"| {m} | {med:.3f} | {med - plain:+.3f} | {' '.join(f'{v:.3f}' for v in samples[m])} |")
PY
for m in streamlife-profile streamlife-nothread-profile; do
  [[ " ${modes[*]} " == *" $m "* ]] || continue
  echo "$m:"
  grep -h "self-profile" "$out/$m.log" | head -40 || true
done
if [[ -n $sampler ]]; then
  # One more run of each under the sampler (launch_bound's process only: not streamlife's launcher).
  # With the replay thread its samples are the process's too: they are listed under its own symbols.
  sampled=(plain streamlife streamlife-nothread)
  for m in "${sampled[@]}"; do
    rm -f "$out/$m.samples".*
    cmd=("${pin[@]}" "$out/launch_bound" --launches "$launches")
    [[ $m == streamlife ]] && cmd=("$streamlife" run -- "${cmd[@]}")
    [[ $m == streamlife-nothread ]] && cmd=("$streamlife" run --replay-thread=0 -- "${cmd[@]}")
    LD_PRELOAD=$sampler STREAMLIFE_SAMPLER_OUT=$out/$m.samples STREAMLIFE_SAMPLER_ONLY=launch_bound \
      "${cmd[@]}" >"$out/$m.sampled.log" 2>&1 || { echo "error: $m failed under the sampler (see $out)" >&2; exit 1; }
  done
  echo "CPU samples of the timed steps, µs per step (a launch, an event record and a wait):"
  python3 "$here/cpu_samples.py" --compare $(for m in "${sampled[@]}"; do echo "$m:$out/$m.samples.[0-9]*"; done) \
    --log-of $(for m in "${sampled[@]}"; do echo "$m:$out/$m.sampled.log"; done) --steps "$launches" --us --top 40
fi
