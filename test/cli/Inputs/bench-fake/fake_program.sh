#!/usr/bin/env bash
# Stands in for bench/runtime's launch_bound and gpu_bound (bench-compare.test):
# prints the metric compare.py reads, the plain value plus a fixed spread that
# cycles with each run (a counter file), plus FAKE_COST when the fake
# streamlife ran it, and `result: ok`.
set -eu
counter=$FAKE_STATE/count.$(basename "$0")
n=$(( $(cat "$counter" 2>/dev/null || echo 0) + 1 ))
echo $n > "$counter"
spread=$(( n % 3 ))
case $(basename "$0") in
  launch_bound) key=host_us_per_launch_median base=4.0 ;;
  gpu_bound) key=wall_ms_median base=20.0 ;;
esac
cost=0
[[ ${FAKE_VALIDATED:-0} == 1 ]] && cost=$FAKE_COST
python3 -c "import sys; print('%s=%.3f' % (sys.argv[1], float(sys.argv[2]) + 0.05 * int(sys.argv[3]) + float(sys.argv[4])))" \
  "$key" "$base" "$spread" "$cost"
echo "result: ok"
