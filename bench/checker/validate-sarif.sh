#!/usr/bin/env bash
# Validates SARIF files with Microsoft's SARIF multitool, including the rules
# GitHub code scanning applies at upload (rule kind "Gh"). Not run by the
# tests (they must not need the network); install the tool once with
#   npm install --prefix DIR @microsoft/sarif-multitool
# and pass DIR/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
# (the native binary: the npm wrapper passes arguments through a shell, which
# splits "Gh;Sarif").
#
# usage: validate-sarif.sh MULTITOOL FILE.sarif...
# Exit status 1 when any file has an error or a warning; notes (style advice
# such as "use message ids") are printed and counted but do not fail.
set -uo pipefail
if (( $# < 2 )); then
  echo "usage: $0 PATH/TO/Sarif.Multitool FILE.sarif..." >&2
  exit 2
fi
tool="$1"; shift
status=0
for sarif in "$@"; do
  out="$("$tool" validate --rule-kind "Gh;Sarif" --level "Error;Warning;Note" "$sarif" 2>&1)"
  errors=$(grep -cE ': error (GH|SARIF)[0-9]+' <<<"$out")
  warnings=$(grep -cE ': warning (GH|SARIF)[0-9]+' <<<"$out")
  notes=$(grep -cE ': note (GH|SARIF)[0-9]+' <<<"$out")
  grep -E ': (error|warning) (GH|SARIF)[0-9]+' <<<"$out"
  echo "$sarif: $errors errors, $warnings warnings, $notes notes"
  (( errors + warnings > 0 )) && status=1
done
exit $status
