#!/bin/sh
# usage: one-entry.sh DIR SOURCE NVCC_OPTIONS...
# Writes DIR/compile_commands.json with one entry: SOURCE compiled by nvcc as
# CMake writes it, with NVCC_OPTIONS (each argument one shell word of the
# command, so "--default-stream per-thread" stays two words).
dir=$1 source=$2
shift 2
mkdir -p "$dir"
printf '[{"directory": "%s", "command": "/usr/local/cuda/bin/nvcc -isystem=/usr/local/cuda/include %s -x cu -c %s -o out.o", "file": "%s"}]\n' \
  "$dir" "$*" "$source" "$source" > "$dir/compile_commands.json"
