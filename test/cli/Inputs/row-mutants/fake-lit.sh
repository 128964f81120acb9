#!/bin/sh
# A lit that passes every test and, asked to show them, says one is
# unsupported here (row-mutants.test).
case "$*" in
  *--show-unsupported*) echo "UNSUPPORTED: streamlife :: gpu/needs-a-gpu.test (1 of 1)" ;;
esac
exit 0
