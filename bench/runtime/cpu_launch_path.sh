#!/usr/bin/env bash
# The validator's host cost per launch on the CPU, without a GPU: runs
# cpu/cpu_launch_path.cpp (launch_bound.cu's loop through the fake CUPTI and
# driver) plain and under `streamlife run`, interleaved, and prints the medians
# and the difference, which is the validator's own time per launch (launch +
# event record + wait). --self-profile adds one validated run with
# `--self-profile`, whose table says which callback and phase the time went to.
#
#   bench/runtime/cpu_launch_path.sh BUILD_DIR [--repeat R] [--launches N] [--depth D] [--struct] [--self-profile]
#                                    [--driver-ns NS] [--driver-locks K] [--sync-every K] [--evict KB]
#                                    [--no-thread] [--unbound] [--baseline OTHER_BUILD_DIR]
#
# --struct launches a kernel whose parameter is a by-value struct (its words
# found by the generic rule), as cpu_launch_path --struct. --driver-ns spins NS
# nanoseconds before each CUDA call, the real driver's own time (about 1500 on
# the H200), as cpu_launch_path --driver-ns; --driver-locks K makes the fake
# driver lock and unlock a mutex of its own K times in each call, as the real
# one does (about 4 a call), in every mode; --sync-every K synchronizes a
# stream after every K-th step, as cpu_launch_path --sync-every; --evict KB
# touches KB of other memory before each call (a framework's own work), as
# cpu_launch_path --evict. --no-thread adds the validator
# without its replay thread (replay_thread=0); --unbound adds it with the
# driver's lock calls left on the thread interposers (bind_private_locks=0);
# --baseline adds another build's
# validator (the one before a change); every mode runs in each round.
# BUILD_DIR is a configured and built streamlife build (targets streamlife,
# streamlife_rt and cpu_launch_path). Exit 0; 1 when a run failed; 2 on bad usage.
set -euo pipefail

usage() {
  echo "usage: $0 BUILD_DIR [--repeat R] [--launches N] [--depth D] [--struct] [--self-profile] [--driver-ns NS] [--driver-locks K] [--sync-every K] [--evict KB] [--no-thread] [--unbound] [--baseline OTHER_BUILD_DIR]" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
shift
repeat=5 launches=200000 depth=24 profile=0 struct=() driver=() sync=() evict=() nothread=0 unbound=0 baseline="" driverlocks=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat=${2:?}; shift 2 ;;
    --launches) launches=${2:?}; shift 2 ;;
    --depth) depth=${2:?}; shift 2 ;;
    --struct) struct=(--struct); shift ;;
    --self-profile) profile=1; shift ;;
    --driver-ns) driver=(--driver-ns "${2:?}"); shift 2 ;;
    --driver-locks) driverlocks=${2:?}; shift 2 ;;
    --sync-every) sync=(--sync-every "${2:?}"); shift 2 ;;
    --evict) evict=(--evict "${2:?}"); shift 2 ;;
    --no-thread) nothread=1; shift ;;
    --unbound) unbound=1; shift ;;
    --baseline)
      baseline=$(cd "${2:?}" 2>/dev/null && pwd) || { echo "error: baseline build directory '$2' does not exist" >&2; exit 2; }
      [[ -x $baseline/bin/streamlife ]] || { echo "error: $baseline/bin/streamlife not found" >&2; exit 2; }
      shift 2 ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
prog=$build/bench/runtime/cpu_launch_path
fake=$build/test/fakecuda
for f in "$prog" "$build/bin/streamlife" "$fake/libcupti.so" "$fake/libcuda.so.1"; do
  [[ -e $f ]] || { echo "error: $f not found (build cpu_launch_path and streamlife)" >&2; exit 2; }
done
[[ $driverlocks =~ ^[0-9]+$ ]] || { echo "error: --driver-locks takes a count, not '$driverlocks'" >&2; exit 2; }
export LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} STREAMLIFE_CUPTI_LIBRARY=$fake/libcupti.so
export STREAMLIFE_FAKE_DRIVER_LOCKS=$driverlocks
args=(--launches "$launches" --depth "$depth" "${struct[@]}" "${driver[@]}" "${sync[@]}" "${evict[@]}")

median_of() { sed -n 's/.*ns_per_launch_median=\([0-9.]*\).*/\1/p'; }
modes=(plain streamlife)
((nothread)) && modes+=(streamlife-nothread)
((unbound)) && modes+=(streamlife-unbound)
[[ -n $baseline ]] && modes+=(baseline)
declare -A samples
for ((r = 0; r < repeat; r++)); do
  for m in "${modes[@]}"; do
    case $m in
      plain) v=$("$prog" "${args[@]}" | median_of) ;;
      streamlife) v=$("$build/bin/streamlife" run -- "$prog" "${args[@]}" 2>/dev/null | median_of) ;;
      streamlife-nothread) v=$("$build/bin/streamlife" run --replay-thread=0 -- "$prog" "${args[@]}" 2>/dev/null | median_of) ;;
      streamlife-unbound) v=$(STREAMLIFE_OPTIONS=bind_private_locks=0 "$build/bin/streamlife" run -- "$prog" "${args[@]}" 2>/dev/null | median_of) ;;
      baseline) v=$("$baseline/bin/streamlife" run -- "$prog" "${args[@]}" 2>/dev/null | median_of) ;;
    esac
    [[ -n $v ]] || { echo "error: the $m run printed no result" >&2; exit 1; }
    samples[$m]+="$v,"
  done
done
python3 - "$launches" "$depth" "${driver[1]:-0}" "${sync[1]:-0}" "$driverlocks" $(for m in "${modes[@]}"; do echo "$m=${samples[$m]}"; done) <<'PY'
import statistics, sys
launches, depth, driver_ns, sync_every, driver_locks = sys.argv[1:6]
runs = {k: [float(x) for x in v.split(",") if x] for k, v in (a.split("=", 1) for a in sys.argv[6:])}
p = statistics.median(runs["plain"])
sync = f", a stream synchronized every {sync_every} steps" if sync_every != "0" else ""
locks = f" and {driver_locks} lock passes" if driver_locks != "0" else ""
print(f"cpu launch path: {launches} launches, calls {depth} frames deep, driver {driver_ns} ns{locks} a call{sync}, "
      f"{len(runs['plain'])} repeats interleaved")
for mode, values in runs.items():
    v = statistics.median(values)
    added = "" if mode == "plain" else f"  added {v - p:7.1f}"
    print(f"  {mode:20s} ns/launch {v:8.1f}{added}  [{' '.join(f'{x:.1f}' for x in values)}]")
print("  added: the validator's time per launch (launch + event record + wait) over plain")
PY
if [[ $profile == 1 ]]; then
  "$build/bin/streamlife" run --self-profile -- "$prog" "${args[@]}" 2>&1 >/dev/null | grep 'self-profile'
fi
