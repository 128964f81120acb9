#!/usr/bin/env bash
# Starts `streamlife check -o REPORT FIFO` with SIGINT ignored (as a shell
# starts a background job), waits until the report's temporary exists (the
# signal handlers are installed by then), sends SIGINT, then feeds the FIFO a
# clean translation unit and prints the check's exit status.
# usage: interrupt-while-ignored.sh STREAMLIFE DIR
set -u
streamlife=$1 dir=$2
(trap '' INT; exec "$streamlife" check -o "$dir/report.txt" "$dir/input.cpp") &
pid=$!
for _ in $(seq 600); do
  compgen -G "$dir/.report.txt.*" > /dev/null && break
  sleep 0.1
done
kill -INT "$pid"
sleep 0.5
echo 'int main() { return 0; }' > "$dir/input.cpp"
wait "$pid"
echo "exit $?"
