#!/usr/bin/env bash
# The seed's four pipelines drawn as timelines, on a GPU: each example of
# examples/python/ (no_lifetime_management, stall_producer, keepalive,
# record_stream) runs under `streamlife run --timeline`, the trace is checked
# against the trace-event format (test/check_trace_events.py) and drawn with
# `streamlife timeline --svg`. Builds nothing: BUILD_DIR is a built streamlife.
#
#   bench/runtime/timeline-seed.sh BUILD_DIR OUT_DIR [--trials N] [--hidden H] [--python PY]
#
# Writes into OUT_DIR, per pipeline: NAME.json (the trace, for ui.perfetto.dev),
# NAME.svg (the picture), NAME.log (the program's and the validator's output),
# NAME.check (the format check with its counts), NAME.txt (what the trace
# holds); then prints one table: findings, the example's own block count,
# the trace's clock and how much of the GPU work got its GPU time, block lanes
# and the pool-memory peaks. What to expect (the seed): the buggy pipeline has
# a finding whose marker sits on its reused block, while the matmul's use of
# that block overlaps the next gather's; stall_producer 1 param block,
# keepalive 2, record_stream one per layer (4) and bytes held back.
# Exit 0 when every run and check worked, 1 otherwise, 2 on bad usage.
set -uo pipefail

usage() {
  echo "usage: $0 BUILD_DIR OUT_DIR [--trials N] [--hidden H] [--python PY]" >&2
  exit 2
}
[[ $# -ge 2 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
out=$2
shift 2
trials=2 hidden=4096 python=${PYTHON:-python3}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --trials) trials=${2:?}; shift 2 ;;
    --hidden) hidden=${2:?}; shift 2 ;;
    --python) python=${2:?}; shift 2 ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
streamlife=$build/bin/streamlife
[[ -x $streamlife ]] || { echo "error: $streamlife not found (build streamlife first)" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

status=0
rows=()
for name in no_lifetime_management stall_producer keepalive record_stream; do
  echo "timeline-seed: $name" >&2
  rm -f "$out/$name.json" "$out/$name.svg"
  (cd "$root/examples/python" &&
     "$streamlife" run --timeline "$out/$name.json" -- \
       "$python" "$name.py" --trials "$trials" --hidden "$hidden") > "$out/$name.log" 2>&1
  run_status=$?
  if [[ ! -f $out/$name.json ]]; then
    echo "timeline-seed: $name: no trace written (exit $run_status; see $out/$name.log)" >&2
    status=1
    continue
  fi
  "$python" "$root/test/check_trace_events.py" "$out/$name.json" --summary > "$out/$name.check" ||
    { echo "timeline-seed: $name: the trace is not valid (see $out/$name.check)" >&2; status=1; }
  "$streamlife" timeline "$out/$name.json" > "$out/$name.txt" || status=1
  "$streamlife" timeline "$out/$name.json" --svg "$out/$name.svg" --blocks 10 2>> "$out/$name.log" ||
    status=1
  field() { sed -n "s/^summary $1: //p" "$out/$name.check"; }
  findings=$(sed -n 's/^streamlife: summary: \([0-9]*\) finding.*/\1/p' "$out/$name.log" | tail -1)
  blocks=$(sed -n 's/^blocks: //p' "$out/$name.log" | tail -1)
  result=$(sed -n 's/^result: //p' "$out/$name.log" | tail -1)
  clock=$(sed -n 's/^clock: //p' "$out/$name.check")
  rows+=("$(printf '%-24s %8s %7s %-6s %9s/%-9s %6s %8s %14s %14s  %s' "$name" "${findings:-?}" \
    "${blocks:-?}" "${clock:-?}" "$(field placed_by_gpu_time)" "$(field slots)" \
    "$(field block_lanes)" "$(field finding_markers)" "$(field peak_pool_bytes)" \
    "$(field peak_held_back_bytes)" "${result:-?}")")
done

printf '%-24s %8s %7s %-6s %19s %6s %8s %14s %14s  %s\n' pipeline findings blocks clock \
  "gpu-timed/slots" lanes markers peak-pool-B peak-held-B result
printf '%s\n' "${rows[@]}"
echo "timeline-seed: pictures in $out/*.svg, traces (ui.perfetto.dev) in $out/*.json"
exit $status
