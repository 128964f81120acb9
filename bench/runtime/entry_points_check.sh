#!/usr/bin/env bash
# Do the driver's entry points see every launch, event record, stream wait and
# stream-ordered allocation and free a program makes
# (runtime-validator/intercept/DriverEntryPoints.h)? Runs the
# program under `streamlife run --intercept-stats` twice: with those calls at
# the driver's entry points (the default) and with CUPTI carrying them
# (driver_entry_points=0). CUPTI sees every driver call whoever makes it, so
# equal counts per driver call mean that no way the program reaches the driver
# escapes the entry points. Prints both counts per call and the attach notes.
#
#   bench/runtime/entry_points_check.sh BUILD_DIR -- PROGRAM [ARGS...]
#
# Counts of all processes of the run are summed. A program whose number of
# calls varies from run to run (data-dependent work, background threads) shows
# that as a difference too: look at the launch, record, wait, cuMemAllocAsync,
# cuMemAllocFromPoolAsync and cuMemFreeAsync rows.
# Exit 0 when every count is equal; 1 when one differs or a run failed; 2 on
# bad usage.
set -uo pipefail

usage() {
  echo "usage: $0 BUILD_DIR -- PROGRAM [ARGS...]" >&2
  exit 2
}
[[ $# -ge 3 && $2 == -- ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || { echo "error: build directory '$1' does not exist" >&2; exit 2; }
shift 2
streamlife=$build/bin/streamlife
[[ -x $streamlife ]] || { echo "error: $streamlife not found" >&2; exit 2; }
logs=$(mktemp -d "${TMPDIR:-/tmp}/entry-points-check.XXXXXX")

status=0
for mode in entry cupti; do
  options=verbosity=1
  [[ $mode == cupti ]] && options+=:driver_entry_points=0
  STREAMLIFE_OPTIONS=${STREAMLIFE_OPTIONS:+$STREAMLIFE_OPTIONS:}$options \
    "$streamlife" run --intercept-stats -- "$@" > "$logs/$mode.out" 2> "$logs/$mode.err"
  rc=$?
  [[ $rc -eq 0 ]] || { echo "warning: the $mode run exited $rc (logs in $logs)" >&2; status=1; }
done
python3 - "$logs" <<'PY' || status=1
import collections, pathlib, re, sys
logs = pathlib.Path(sys.argv[1])
counts, notes = {}, {}
for mode in ("entry", "cupti"):
    text = (logs / f"{mode}.err").read_text(errors="replace")
    c = collections.Counter()
    for name, cbid, n in re.findall(r"streamlife: intercept-stats: driver (\w+) \(cbid (\d+)\): (\d+)", text):
        c[f"{name} ({cbid})"] += int(n)
    counts[mode] = c
    notes[mode] = sorted(set(re.findall(r"streamlife: note: attached to pid \d+ (.*)", text)))
for mode in ("entry", "cupti"):
    for note in notes[mode]:
        print(f"{mode}: attached {note}")
rows = sorted(set(counts["entry"]) | set(counts["cupti"]))
differ = [r for r in rows if counts["entry"][r] != counts["cupti"][r]]
print(f"{'driver call (cbid)':44} {'entry points':>14} {'CUPTI':>14}")
for r in rows:
    mark = "   <-- differs" if r in differ else ""
    print(f"{r:44} {counts['entry'][r]:>14} {counts['cupti'][r]:>14}{mark}")
if not rows:
    sys.exit("no intercept-stats in either run: did the program use CUDA?")
if differ:
    sys.exit(f"{len(differ)} count(s) differ (logs in {logs})")
print(f"every count is equal (logs in {logs})")
PY
exit $status
