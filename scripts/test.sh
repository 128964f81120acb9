#!/usr/bin/env bash
# README command 2: set up, build, and run every test suite through lit. Ends
# with one line "N passed, N failed, N skipped" (skipped = UNSUPPORTED, e.g. GPU
# tests on a machine without a GPU).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${STREAMLIFE_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh" || { echo "streamlife: set-up or build failed"; echo "0 passed, 1 failed"; exit 1; }

# Tools that only tests use: lintian checks the .deb, pre-commit runs the
# README's snippet, zsh loads the zsh completion, strace interrupts a --fix
# (test/cli/deb-lintian.test, pre-commit-snippet.test, zsh-completion.test,
# fix-interrupted.test). Where they cannot be installed, those tests are
# reported unsupported, not failed.
test_tools=()
for tool in lintian pre-commit zsh strace; do command -v "$tool" >/dev/null 2>&1 || test_tools+=("$tool"); done
if ((${#test_tools[@]})); then
  echo "streamlife test: installing ${test_tools[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${test_tools[@]}"; } >/dev/null 2>&1 ||
    echo "streamlife test: could not install ${test_tools[*]}; their tests are reported unsupported" >&2
fi

# Debian's chromium renders the timeline pictures (test/cli/timeline-chromium.test).
# It is large, so it is installed only when that test is to run: the whole
# suite, or a selection that names it. Where it cannot be installed, the test is
# reported unsupported.
if ! command -v chromium >/dev/null 2>&1 && { (($# == 0)) || [[ "$*" == *timeline* || "$*" == *chromium* ]]; }; then
  echo "streamlife test: installing chromium" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium; } >/dev/null 2>&1 ||
    echo "streamlife test: could not install chromium; test/cli/timeline-chromium.test is reported unsupported" >&2
fi

suites=("$BUILD/test")
[[ -f "$BUILD/test/real-headers/lit.site.cfg.py" ]] && suites+=("$BUILD/test/real-headers")
[[ -f "$BUILD/test/unit/lit.site.cfg.py" ]] && suites+=("$BUILD/test/unit")
log="$(mktemp)"
/usr/lib/llvm-22/bin/lit -sv "${suites[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

count() { sed -n "s/^ *$1 *: *\([0-9]\+\).*/\1/p" "$log" | awk '{s+=$1} END {print s+0}'; }
passed=$(( $(count Passed) + $(count "Expectedly Failed") ))
failed=$(( $(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out") ))
skipped=$(( $(count Unsupported) + $(count Skipped) + $(count Excluded) ))
# The tiers skipped for want of something beside the clone (lit.cfg.py says
# which, and how to enable them), again next to the totals.
sed -n 's/^.*note: \(streamlife: .* tier skipped: .*\)$/\1/p' "$log"
rm -f "$log"
if (( passed + failed == 0 )); then failed=1; echo "streamlife: no test ran"; fi
(( status != 0 && failed == 0 )) && failed=1
echo "$passed passed, $failed failed, $skipped skipped"
(( failed == 0 ))
