#!/usr/bin/env python3
"""Stand-in for a program run under the validator, for the helpers' self-test.

  fake_validated_program.py STATE_FILE KIND-OR-clean [RESULT]

Prints `RESULT` (default `result: ok`) on stdout and, on stderr, a finding of
KIND (or none for `clean`) plus the summary line, like `streamlife run` does.
KIND may be `flaky:KIND`: then only every other call (counted in STATE_FILE)
reports it, which is the timing-dependent verdict the GPU tests must catch.
"""
import sys

state_file, kind = sys.argv[1], sys.argv[2]
result = sys.argv[3] if len(sys.argv) > 3 else "result: ok"
try:
    with open(state_file) as f:
        calls = int(f.read() or 0)
except OSError:
    calls = 0
with open(state_file, "w") as f:
    f.write(str(calls + 1))

if kind.startswith("flaky:"):
    kind = kind[len("flaky:"):] if calls % 2 == 0 else "clean"
print(result)
if kind == "clean":
    print("streamlife: summary: 0 findings", file=sys.stderr)
elif kind == "no-summary":
    pass
else:
    print("streamlife: error: %s: something" % kind, file=sys.stderr)
    print("streamlife: summary: 1 finding", file=sys.stderr)
