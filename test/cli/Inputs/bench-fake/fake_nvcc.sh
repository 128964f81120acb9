#!/usr/bin/env bash
# Stands in for nvcc (bench-compare.test's run.sh lines): "builds" each program
# as the stand-in program and logs which source it was asked to build.
set -eu
out="" src=""
while [[ $# -gt 0 ]]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    *.cu) src=$1; shift ;;
    *) shift ;;
  esac
done
echo "built $(basename "$src")" >> "$FAKE_NVCC_LOG"
cp "$(dirname "${BASH_SOURCE[0]}")/fake_program.sh" "$out"
