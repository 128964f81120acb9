#!/bin/sh
# The "tests" of row-mutants.test: they notice a missing row when it is one
# of the two kept rows (and fail on purpose when FAIL_ALWAYS is set).
[ -z "$FAIL_ALWAYS" ] || exit 1
grep -q '"cudaKept"' "$1" && grep -q '"torch.kept"' "$1"
