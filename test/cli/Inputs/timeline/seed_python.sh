#!/bin/sh
# A stand-in for the Python interpreter of bench/runtime/timeline-seed.sh on a
# machine without a GPU: an example of examples/python/ (NAME.py ...) runs the
# fake harness's play of that pipeline ($SEED_PROGRAM NAME), and prints what the
# real example prints at its end; anything else goes to the real Python
# ($REAL_PYTHON).
case "$1" in
  no_lifetime_management.py | stall_producer.py | keepalive.py | record_stream.py)
    name=${1%.py}
    "$SEED_PROGRAM" "$name" || exit
    echo "blocks: fake"
    echo "result: ok (fake harness)" ;;
  *) exec "$REAL_PYTHON" "$@" ;;
esac
