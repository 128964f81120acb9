#!/usr/bin/env bash
# Re-runs the CPU rows of issue 7's reliability sweep (sections 1 and 2a of
# the sweep: 170 cases of `streamlife check` and `streamlife run` under bad
# input, faults and pathological input) against a build, and prints one
# markdown row per case:
#
#   | # | command | exit | verdict | note |
#
# Each row states the right behaviour (the exit status, the one line that
# must appear, what must not happen to a file) as it is today, after the
# sweep's BAD findings were fixed; OK means the build does it, BAD lists what
# differs. The scale rows (104-130) also print time and peak RSS. Rows that
# need a GPU (section 2b) are not here.
#
# usage: reliability-sweep.sh [-b BUILD_DIR] [ROW...]
#   BUILD_DIR  default: build/ of this checkout
#   ROW        row numbers or ranges (5 7-12); default: all
# env:   KEEP=1 keeps the scratch folder; SCALE=0 skips rows 104-130.
# Runs as root for rows 18-20, 166, 171-173, 177, 185 (they drop to
# `nobody` with setpriv or give files to it); as another user those rows say
# so and count as BAD. Section 3 (rows 171-196) is the second sweep's
# defects (research/reliability-round2.md), against the fake-CUDA harness
# the tests build ($BUILD/test/fakecuda).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build"
if [[ "${1:-}" == "-b" ]]; then BUILD="$(cd "$2" && pwd)"; shift 2; fi
BIN="$BUILD/bin/streamlife"
[[ -x "$BIN" ]] || { echo "reliability-sweep: no streamlife at $BIN" >&2; exit 2; }
CUDA="${CUDA_PATH:-/usr/local/cuda}"
PATHOLOGICAL="$ROOT/bench/checker/pathological.py"
CUARGS="-x cuda --cuda-host-only -nocudalib --cuda-path=$CUDA"

WANT=()
for a in "$@"; do
  if [[ "$a" == *-* ]]; then for ((i = ${a%-*}; i <= ${a#*-}; ++i)); do WANT+=("$i"); done
  else WANT+=("$a"); fi
done
selected() {
  (( ${#WANT[@]} == 0 )) && return 0
  local w; for w in "${WANT[@]}"; do [[ "$w" == "$1" ]] && return 0; done; return 1
}

# The scratch folder: the sweep's `w/` with nlm.cu (one finding, line 51),
# its header, ok.cpp; world-readable for the rows run as nobody.
W="$(mktemp -d /tmp/streamlife-sweep.XXXXXX)/w"
mkdir -p "$W/.bin" && chmod 755 "$(dirname "$W")" "$W"
ln -s "$BIN" "$W/.bin/streamlife"
export PATH="$W/.bin:$PATH"
cp "$ROOT/examples/cuda/no_lifetime_management.cu" "$W/nlm.cu"
cp "$ROOT/examples/cuda/pipeline_common.cuh" "$W/"
echo 'int main(){return 0;}' > "$W/ok.cpp"
mkdir -p "$W/adir"
O="$W/.out"; mkdir -p "$O"
cleanup() { [[ "${KEEP:-0}" == 1 ]] && echo "scratch: $W" >&2 || rm -rf "$(dirname "$W")"; }
trap cleanup EXIT

OK_ROWS=0; BAD_ROWS=0; BAD_LIST=()
ROW=""; CMDTXT=""; RCS=(); PROBLEMS=(); NOTES=(); RC=0; OUTF=""; ERRF=""; N=0

begin() { ROW="$1"; CMDTXT="$2"; RCS=(); PROBLEMS=(); NOTES=(); N=0; }
# t CMD: runs CMD with bash in the scratch folder (timeout 600 s); $RC, the
# files $OUTF and $ERRF hold what it did.
t() {
  N=$((N + 1)); OUTF="$O/$ROW.$N.out"; ERRF="$O/$ROW.$N.err"
  (cd "$W" && timeout 600 bash -c "$1") > "$OUTF" 2> "$ERRF"
  RC=$?; RCS+=("$RC")
}
# tm CMD: t, timed; appends "T s, M MB" to the notes.
tm() {
  t "/usr/bin/time -o $O/time.txt -f '%e %M' bash -c $(printf '%q' "$1")"
  local e m; read -r e m < <(tail -1 "$O/time.txt"); NOTES+=("${e} s, $((m / 1024)) MB")
}
bad() { PROBLEMS+=("$*"); }
note() { NOTES+=("$*"); }
want_rc() { [[ "$RC" == "$1" ]] || bad "exit $RC, want $1"; }
err_has() { grep -qF -- "$1" "$ERRF" || bad "stderr lacks '$1'"; }
out_has() { grep -qF -- "$1" "$OUTF" || bad "stdout lacks '$1'"; }
err_lacks() { ! grep -qF -- "$1" "$ERRF" || bad "stderr has '$1'"; }
out_empty() { [[ ! -s "$OUTF" ]] || bad "stdout not empty"; }
err_empty() { [[ ! -s "$ERRF" ]] || bad "stderr not empty: $(head -c 120 "$ERRF" | tr '\n' ' ')"; }
warnings() { local n; n=$(grep -c ': warning: .*\[streamlife-' "$OUTF"); [[ "$n" == "$1" ]] || bad "$n warnings, want $1"; }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$OUTF" 2>/dev/null || bad "stdout is not valid JSON"; }
no_ctl() { ! LC_ALL=C grep -q $'[\x1b\x07]' "$OUTF" "$ERRF" || bad "raw ESC/BEL bytes in the output"; }
one_error_line() {
  local n; n=$(grep -vEc '^streamlife( run)?: error: ' "$ERRF")
  [[ "$n" == 0 && $(wc -l < "$ERRF") == 1 ]] || bad "stderr is not one 'streamlife: error:' line: $(head -c 160 "$ERRF" | tr '\n' ' ')"
}
md() { local s="$1"; s="${s//|/\\|}"; s="${s//\`/\'}"; printf '%s' "${s//$'\n'/ }"; }
end() {
  local rcs verdict text
  rcs="$(IFS=/; echo "${RCS[*]}")"; rcs="${rcs//\// / }"
  if (( ${#PROBLEMS[@]} )); then
    verdict=BAD; BAD_ROWS=$((BAD_ROWS + 1)); BAD_LIST+=("$ROW")
    text="$(IFS=';'; echo "${PROBLEMS[*]}")"
    [[ -n "${1:-}" ]] && text="$1; $text"
  else
    verdict=OK; OK_ROWS=$((OK_ROWS + 1)); text="${1:-}"
  fi
  (( ${#NOTES[@]} )) && text="$text ($(IFS=','; echo "${NOTES[*]}" | sed 's/,/, /g'))"
  printf '| %s | `%s` | %s | %s | %s |\n' "$ROW" "$(md "$CMDTXT")" "$rcs" "$verdict" "$(md "$text")"
}

echo "| # | command | exit | verdict | note |"
echo "|---|---|---|---|---|"

# --------------------------------------------------------------------------
# 1a. Files and file names
# --------------------------------------------------------------------------
if selected 1; then begin 1 'streamlife check nonexistent.cu'
  t 'streamlife check nonexistent.cu'; want_rc 2; one_error_line; err_has 'nonexistent.cu: no such file'
  end "one line"; fi
if selected 2; then begin 2 'streamlife check adir (a directory)'
  t 'streamlife check adir'; want_rc 2; one_error_line; err_has 'adir: is a directory'
  end "$(head -1 "$ERRF")"; fi
if selected 3; then begin 3 'streamlife check empty.cu / empty.cpp'
  t ': > empty.cu; streamlife check empty.cu'; want_rc 0; out_empty
  t ': > empty.cpp; streamlife check empty.cpp'; want_rc 0; out_empty
  end "clean, nothing printed"; fi
if selected 4; then begin 4 'streamlife check garbage.cu / garbage.cpp (20 KB of /dev/urandom)'
  head -c 20000 /dev/urandom > "$W/garbage.cu"; cp "$W/garbage.cu" "$W/garbage.cpp"
  for f in garbage.cu garbage.cpp; do
    t "streamlife check $f"; want_rc 2; no_ctl
    tail -1 "$ERRF" | grep -q "$f: .*compile error.*no findings reported for it" || bad "last line is not the file's summary"
  done
  end "exit 2, control bytes escaped, the summary line last"; fi
if selected 5; then begin 5 'streamlife check syntax.cu (missing ;, undeclared name)'
  printf '#include <cuda_runtime.h>\nvoid f() {\n  int x = 1\n  int y = undeclared;\n}\n' > "$W/syntax.cu"
  t 'streamlife check syntax.cu'; want_rc 2; out_empty; err_has 'syntax.cu: 2 compile errors; no findings reported for it'
  end "compile errors on stderr, one summary line"; fi
if selected 6; then begin 6 'streamlife check syntax.cu nlm.cu'
  t 'streamlife check syntax.cu nlm.cu'; want_rc 2; warnings 1; err_has '1 finding in 2 checked files'
  end "the good file's finding still reported"; fi
if selected 7; then begin 7 'Latin-1 bytes in a comment (latin1.cu)'
  { printf '// caf\xe9 cr\xe8me\n'; cat "$W/nlm.cu"; } > "$W/latin1.cu"
  t 'streamlife check latin1.cu'; want_rc 1; warnings 1
  end; fi
if selected 8; then begin 8 'Latin-1 bytes on the finding line: text / --format sarif / --format json'
  sed $'51s|$| /* caf\xe9 */|' "$W/nlm.cu" > "$W/latin1b.cu"
  t 'streamlife check latin1b.cu'; want_rc 1; warnings 1
  t 'streamlife check --format sarif latin1b.cu'; want_rc 1; json_ok
  t 'streamlife check --format json latin1b.cu'; want_rc 1; json_ok
  end "SARIF and JSON parse"; fi
if selected 9; then begin 9 $'file named bad\\xff\\xfename.cu (text / json / sarif)'
  cp "$W/nlm.cu" "$W/bad"$'\xff\xfe'"name.cu"
  t $'streamlife check bad\xff\xfename.cu'; want_rc 1; warnings 1
  t $'streamlife check --format json bad\xff\xfename.cu'; want_rc 1; json_ok
  t $'streamlife check --format sarif bad\xff\xfename.cu'; want_rc 1; json_ok
  grep -q 'bad%FF%FEname.cu' "$OUTF" || bad "SARIF URI not percent-encoded"
  end "JSON valid; SARIF URI bad%FF%FEname.cu"; fi
if selected 10; then begin 10 "\"with space.cu\", \"it's \\\"quoted\\\".cu\" (text / json / sarif)"
  cp "$W/nlm.cu" "$W/with space.cu"; cp "$W/nlm.cu" "$W/it's \"quoted\".cu"
  t 'streamlife check "with space.cu"'; want_rc 1; warnings 1
  t "streamlife check --format json 'it'\\''s \"quoted\".cu'"; want_rc 1; json_ok
  t "streamlife check --format sarif 'it'\\''s \"quoted\".cu'"; want_rc 1; json_ok
  grep -q 'it%27s%20%22quoted%22.cu' "$OUTF" || bad "SARIF URI not percent-encoded"
  end; fi
if selected 11; then begin 11 'streamlife check -dash.cu'
  cp "$W/nlm.cu" "$W/-dash.cu"
  t 'streamlife check -dash.cu'; want_rc 2; one_error_line; err_has "unknown option '-dash.cu'"
  end; fi
if selected 12; then begin 12 'streamlife check -- -dash.cu'
  t 'streamlife check -- -dash.cu'; want_rc 2; one_error_line; err_has 'no input files'
  end "after -- it is a compiler argument"; fi
if selected 13; then begin 13 'streamlife check ./-dash.cu'
  t 'streamlife check ./-dash.cu'; want_rc 1; warnings 1
  end; fi
if selected 14; then begin 14 'streamlife check nlm.cu nlm.cu; nlm.cu ./nlm.cu ../w/nlm.cu'
  t 'streamlife check nlm.cu nlm.cu'; want_rc 1; warnings 1
  t 'streamlife check nlm.cu ./nlm.cu ../w/nlm.cu'; want_rc 1; warnings 1
  end "checked once"; fi
if selected 15; then begin 15 'streamlife check nlm.cu link.cu (link.cu -> nlm.cu)'
  ln -sf nlm.cu "$W/link.cu"
  t 'streamlife check nlm.cu link.cu'; want_rc 1; warnings 1; err_has '1 finding in 1 checked file'
  end "one file, reported once"; fi
if selected 16; then begin 16 'streamlife check loop1.cu (loop1 -> loop2 -> loop1)'
  ln -sf loop2.cu "$W/loop1.cu"; ln -sf loop1.cu "$W/loop2.cu"
  t 'streamlife check loop1.cu'; want_rc 2; one_error_line; err_has 'loop1.cu: symbolic link loop'
  end; fi
if selected 17; then begin 17 'streamlife check dangling.cu'
  ln -sf nowhere.cu "$W/dangling.cu"
  t 'streamlife check dangling.cu'; want_rc 2; one_error_line; err_has 'dangling.cu: no such file'
  end; fi
if selected 18; then begin 18 'chmod 000 unreadable.cu, run as root'
  cp "$W/nlm.cu" "$W/unreadable.cu"; chmod 000 "$W/unreadable.cu"
  t 'streamlife check unreadable.cu'
  if [[ $(id -u) == 0 ]]; then want_rc 1; end "note: root reads it"; else want_rc 2; end "not root: unreadable"; fi; fi
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp"
if selected 19; then begin 19 'the same file, run as nobody'
  cp "$W/nlm.cu" "$W/unreadable.cu" 2>/dev/null; chmod 000 "$W/unreadable.cu"
  if [[ $(id -u) == 0 ]]; then
    t "$AS_NOBODY streamlife check unreadable.cu"; want_rc 2; err_has 'Permission denied'; err_has 'no findings reported for it'
  else bad "needs root to switch to nobody"; fi
  end "permission denied named"; fi
if selected 20; then begin 20 'header made unreadable (chmod 000 pipeline_common.cuh), run as nobody'
  mkdir -p "$W/hdr20"; cp "$W/nlm.cu" "$W/pipeline_common.cuh" "$W/hdr20/"; chmod 755 "$W/hdr20"
  chmod 644 "$W/hdr20/nlm.cu"; chmod 000 "$W/hdr20/pipeline_common.cuh"
  if [[ $(id -u) == 0 ]]; then
    t "$AS_NOBODY streamlife check hdr20/nlm.cu"; want_rc 2; err_has 'Permission denied'
  else bad "needs root to switch to nobody"; fi
  end; fi
if selected 21; then begin 21 'cat nlm.cu | streamlife check -'
  t 'cat nlm.cu | streamlife check -'; want_rc 2; one_error_line; err_has '-: no such file'
  end "stdin is not an input (one line)"; fi
if selected 22; then begin 22 'streamlife check /dev/null'
  t 'streamlife check /dev/null'; want_rc 2
  end "$(tail -1 "$ERRF" | head -c 150)"; fi
if selected 23; then begin 23 'streamlife check /dev/zero -- -x c++'
  t 'streamlife check /dev/zero -- -x c++'; want_rc 0
  end "as clang"; fi
if selected 24; then begin 24 'streamlife check fifo.cpp (nobody writes; then fed)'
  mkfifo "$W/fifo.cpp"
  t 'timeout 10 streamlife check fifo.cpp'; want_rc 124
  t '(sleep 2; echo "int main(){return 0;}" > fifo.cpp) & streamlife check fifo.cpp; s=$?; wait; exit $s'; want_rc 0
  end "waits for a writer, as clang; clean when fed"; fi
if selected 25; then begin 25 'streamlife check hdr_bug.cuh'
  cp "$W/nlm.cu" "$W/hdr_bug.cuh"
  t 'streamlife check hdr_bug.cuh'; want_rc 1; warnings 1
  end; fi
if selected 26; then begin 26 'streamlife check hdr_bug.h; with -- -x cuda ...'
  cp "$W/nlm.cu" "$W/hdr_bug.h"
  t 'streamlife check hdr_bug.h'; want_rc 2
  t "streamlife check hdr_bug.h -- $CUARGS"; want_rc 1; warnings 1
  end "note: .h is C/C++ to clang; CUDA with -x cuda"; fi
if selected 27; then begin 27 'streamlife check pipeline_common.cuh'
  t 'streamlife check pipeline_common.cuh'; want_rc 0
  end; fi
if selected 28; then begin 28 'ESC/BEL bytes on a finding line (esc.cu), a compile-error line (esc_err.cpp), a file name'
  sed $'51s|$| /* \x1b]0;title\x07\x1b[2J\x1b[31m */|' "$W/nlm.cu" > "$W/esc.cu"
  printf 'int x = 1 /* \x1b[2J\x07 */ undeclared;\n' > "$W/esc_err.cpp"
  cp "$W/nlm.cu" "$W/esc"$'\x1b[31m'"name.cu"
  t 'streamlife check esc.cu'; want_rc 1; no_ctl
  t 'streamlife check esc_err.cpp'; want_rc 2; no_ctl
  t $'streamlife check esc\x1b[31mname.cu'; want_rc 1; no_ctl
  end "escaped"; fi
if selected 29; then begin 29 '12 KB single-line file with an error (longline.cpp)'
  python3 -c "print('int a = ' + ' + '.join(['1'] * 3000) + ' + undeclared;')" > "$W/longline.cpp"
  t 'streamlife check longline.cpp'; want_rc 2
  n=$(cat "$OUTF" "$ERRF" | wc -c); (( n < 4096 )) || bad "$n bytes of output"
  end "$n bytes of output (source line $(wc -c < "$W/longline.cpp") bytes)"; fi
if selected 30; then begin 30 'streamlife check /abs/nlm.cu run from a deleted current directory'
  t 'mkdir gone && cd gone && rmdir ../gone && streamlife check '"$W"'/nlm.cu'; want_rc 2; one_error_line
  err_has 'current directory no longer exists'
  end; fi

# --------------------------------------------------------------------------
# 1b. Options and output
# --------------------------------------------------------------------------
if selected 31; then begin 31 'streamlife / streamlife bogus'
  t 'streamlife'; want_rc 2
  t 'streamlife bogus'; want_rc 2; err_has "unknown command 'bogus'"
  end; fi
if selected 32; then begin 32 'streamlife check / streamlife check --'
  t 'streamlife check'; want_rc 2; one_error_line; err_has 'no input files'
  t 'streamlife check --'; want_rc 2; one_error_line
  end; fi
if selected 33; then begin 33 'streamlife check nlm.cu --'
  t 'streamlife check nlm.cu --'; want_rc 1; warnings 1
  end; fi
if selected 34; then begin 34 'streamlife check --frobnicate / -x'
  t 'streamlife check --frobnicate nlm.cu'; want_rc 2; one_error_line; err_has "unknown option '--frobnicate'"
  t 'streamlife check -x nlm.cu'; want_rc 2; one_error_line
  end; fi
if selected 35; then begin 35 '--format bogus / --format JSON / --format='
  t 'streamlife check --format bogus nlm.cu'; want_rc 2; one_error_line
  t 'streamlife check --format JSON nlm.cu'; want_rc 2; one_error_line
  t 'streamlife check --format= nlm.cu'; want_rc 2; one_error_line
  end; fi
if selected 36; then begin 36 '--help --format bogus / --frob --help'
  t 'streamlife check --help --format bogus'; want_rc 2; out_empty
  t 'streamlife check --frob --help'; want_rc 2; out_empty
  end "the error, not the help"; fi
if selected 37; then begin 37 '--format json --format sarif'
  t 'streamlife check --format json --format sarif nlm.cu'; want_rc 2; one_error_line; out_empty
  end "$(head -1 "$ERRF")"; fi
if selected 38; then begin 38 '-o o1.txt -o o2.txt nlm.cu'
  t 'streamlife check -o o1.txt -o o2.txt nlm.cu'; want_rc 2; one_error_line
  [[ -e "$W/o1.txt" || -e "$W/o2.txt" ]] && bad "an output was written"
  end "refused"; fi
if selected 39; then begin 39 '-p db/args -p db/cmd'
  mkdir -p "$W/db/args" "$W/db/cmd"
  printf '[{"directory": "%s", "file": "%s/nlm.cu", "arguments": ["clang++", %s, "-c", "nlm.cu"]}]' \
    "$W" "$W" "$(printf '"%s", ' $CUARGS | sed 's/, $//')" > "$W/db/args/compile_commands.json"
  printf '[{"directory": "%s", "file": "%s/nlm.cu", "command": "clang++ %s -c nlm.cu"}]' \
    "$W" "$W" "$CUARGS" > "$W/db/cmd/compile_commands.json"
  t 'streamlife check -p db/args -p db/cmd nlm.cu'; want_rc 2; one_error_line
  end "refused"; fi
if selected 40; then begin 40 'nlm.cu -o (no value)'
  t 'streamlife check nlm.cu -o'; want_rc 2; one_error_line; err_has "needs a value"
  end; fi
if selected 41; then begin 41 '-o nope/dir/out.txt / -o adir'
  t 'streamlife check -o nope/dir/out.txt nlm.cu'; want_rc 2; one_error_line
  t 'streamlife check -o adir nlm.cu'; want_rc 2; one_error_line
  end "before any analysis"; fi
if selected 42; then begin 42 '-o /dev/full nlm.cu'
  t 'streamlife check -o /dev/full nlm.cu'; want_rc 2; one_error_line
  end "$(head -1 "$ERRF")"; fi
if selected 43; then begin 43 '-o victim_src.cu victim_src.cu'
  cp "$W/nlm.cu" "$W/victim_src.cu"
  t 'streamlife check -o victim_src.cu victim_src.cu'; want_rc 2; one_error_line
  cmp -s "$W/nlm.cu" "$W/victim_src.cu" || bad "the source changed"
  end "refused, source intact"; fi
if selected 44; then begin 44 '--format json -o victim_src2.cu victim_src2.cu'
  cp "$W/nlm.cu" "$W/victim_src2.cu"
  t 'streamlife check --format json -o victim_src2.cu victim_src2.cu'; want_rc 2; one_error_line
  cmp -s "$W/nlm.cu" "$W/victim_src2.cu" || bad "the source changed"
  end "refused, source intact"; fi
if selected 45; then begin 45 '-o pipeline_common.cuh victim_hdr.cu (output = an included header)'
  cp "$W/nlm.cu" "$W/victim_hdr.cu"; cp "$W/pipeline_common.cuh" "$O/hdr.orig"
  t 'streamlife check -o pipeline_common.cuh victim_hdr.cu'; want_rc 2; one_error_line
  cmp -s "$O/hdr.orig" "$W/pipeline_common.cuh" || { bad "the header changed"; cp "$O/hdr.orig" "$W/pipeline_common.cuh"; }
  end "refused, header intact"; fi
if selected 46; then begin 46 '-p db/args_copy -o db/args_copy/compile_commands.json'
  mkdir -p "$W/db/args_copy"
  printf '[{"directory": "%s", "file": "%s/nlm.cu", "arguments": ["clang++", %s, "-c", "nlm.cu"]}]' \
    "$W" "$W" "$(printf '"%s", ' $CUARGS | sed 's/, $//')" > "$W/db/args_copy/compile_commands.json"
  cp "$W/db/args_copy/compile_commands.json" "$O/db.orig"
  t 'streamlife check -p db/args_copy -o db/args_copy/compile_commands.json'; want_rc 2; one_error_line
  cmp -s "$O/db.orig" "$W/db/args_copy/compile_commands.json" || bad "the database changed"
  end "refused, database intact"; fi
if selected 47; then begin 47 'streamlife check -o globdir/*.cu (a.cu, b.cu)'
  mkdir -p "$W/globdir"; cp "$W/nlm.cu" "$W/globdir/a.cu"; cp "$W/nlm.cu" "$W/globdir/b.cu"
  t 'streamlife check -o globdir/*.cu'; want_rc 2; one_error_line
  cmp -s "$W/nlm.cu" "$W/globdir/a.cu" || bad "a.cu changed"
  end "refused, a.cu intact"; fi
if selected 48; then begin 48 '-o out_link.txt vict3.cu (out_link.txt -> vict3.cu)'
  cp "$W/nlm.cu" "$W/vict3.cu"; ln -sf vict3.cu "$W/out_link.txt"
  t 'streamlife check -o out_link.txt vict3.cu'; want_rc 2; one_error_line
  cmp -s "$W/nlm.cu" "$W/vict3.cu" || bad "vict3.cu changed"
  end "refused, source intact"; fi
if selected 49; then begin 49 'echo data > prev.sarif; streamlife check -o prev.sarif missing.cu (also a broken -p)'
  echo data > "$W/prev.sarif"; mkdir -p "$W/db/broken"; echo '{not json' > "$W/db/broken/compile_commands.json"
  t 'streamlife check -o prev.sarif missing.cu'; want_rc 2; one_error_line
  t 'streamlife check -p db/broken -o prev.sarif nlm.cu'; want_rc 2; one_error_line
  [[ "$(cat "$W/prev.sarif")" == data ]] || bad "prev.sarif changed"
  end "the earlier report is kept"; fi
if selected 50; then begin 50 'streamlife check nlm.cu > /dev/full'
  t 'streamlife check nlm.cu > /dev/full'; want_rc 2; err_has 'streamlife: error:'; err_lacks 'LLVM ERROR'
  end "$(tail -1 "$ERRF")"; fi
if selected 51; then begin 51 'streamlife check --format json ok.cpp > /dev/full (also sarif)'
  t 'streamlife check --format json ok.cpp > /dev/full'; want_rc 2; one_error_line
  t 'streamlife check --format sarif ok.cpp > /dev/full'; want_rc 2; one_error_line
  end; fi
if selected 52; then begin 52 'streamlife check nlm.cu >&- / --format json ok.cpp >&-'
  t 'streamlife check nlm.cu >&-'; want_rc 2; err_lacks 'LLVM ERROR'
  t 'streamlife check --format json ok.cpp >&-'; want_rc 2; one_error_line
  end; fi
if selected 53; then begin 53 'streamlife check -o out.txt nlm.cu >&-'
  rm -f "$W/out.txt"
  t 'streamlife check -o out.txt nlm.cu >&-'; want_rc 1
  grep -q 'warning:' "$W/out.txt" 2>/dev/null || bad "out.txt lacks the report"
  end "out.txt holds the report"; fi
if selected 54; then begin 54 'streamlife check nlm.cu 2>&-'
  t 'streamlife check nlm.cu 2>&-'; want_rc 1; warnings 1
  end; fi
if selected 55; then begin 55 'streamlife check nlm.cu | head -1'
  t 'streamlife check nlm.cu | head -1; exit ${PIPESTATUS[0]}'; want_rc 1
  end; fi
SEQ2000="python3 $PATHOLOGICAL --emit sequential-buggy 2000 > seq2000.cu"
if selected 56; then begin 56 'streamlife check seq2000.cu | head -1 / --format sarif ... | true'
  [[ -f "$W/seq2000.cu" ]] || (cd "$W" && eval "$SEQ2000")
  t "streamlife check seq2000.cu -- $CUARGS | head -1; exit \${PIPESTATUS[0]}"; [[ "$RC" == 141 || "$RC" == 2 ]] || bad "exit $RC, want 141 (SIGPIPE) or 2"
  t "streamlife check --format sarif seq2000.cu -- $CUARGS | true; exit \${PIPESTATUS[0]}"; [[ "$RC" == 141 || "$RC" == 2 ]] || bad "exit $RC, want 141 or 2"
  end "killed by SIGPIPE, as any filter"; fi
if selected 57; then begin 57 'trap "" PIPE; streamlife check seq2000.cu | head -1 / --format json ok.cpp | true'
  [[ -f "$W/seq2000.cu" ]] || (cd "$W" && eval "$SEQ2000")
  t "trap '' PIPE; streamlife check seq2000.cu -- $CUARGS | head -1 > /dev/null; exit \${PIPESTATUS[0]}"; want_rc 2; one_error_line
  t "trap '' PIPE; streamlife check --format json ok.cpp | (exec 0<&-; true); exit \${PIPESTATUS[0]}"; want_rc 2; one_error_line
  end "$(head -1 "$ERRF")"; fi
if selected 58; then begin 58 '--cuda-path /nonexistent / --cuda-path nlm.cu'
  t 'streamlife check --cuda-path /nonexistent nlm.cu'; want_rc 2; out_empty
  t 'streamlife check --cuda-path nlm.cu nlm.cu'; want_rc 2; out_empty
  end; fi
if selected 59; then begin 59 'nlm.cu -- -x c++'
  t 'streamlife check nlm.cu -- -x c++'; want_rc 2; err_has "'cuda_runtime.h' file not found"
  end; fi
if selected 60; then begin 60 '--format sarif --source-root /nonexistent'
  t 'streamlife check --format sarif --source-root /nonexistent nlm.cu'; want_rc 1; json_ok
  out_has 'file:///nonexistent/'
  end; fi

# --------------------------------------------------------------------------
# 1c. Compile databases
# --------------------------------------------------------------------------
dbentry() { # FILE [EXTRA ARGS as JSON items]: one "arguments" entry for FILE in $W
  printf '{"directory": "%s", "file": "%s", "arguments": ["clang++", %s%s, "-c", "%s"]}' \
    "$W" "$1" "$(printf '"%s", ' $CUARGS | sed 's/, $//')" "${2:+, $2}" "$1"
}
mkdb() { mkdir -p "$W/db/$1"; printf '%s' "$2" > "$W/db/$1/compile_commands.json"; }
if selected 61; then begin 61 '-p /nonexistent/build'
  t 'streamlife check -p /nonexistent/build'; want_rc 2; one_error_line; err_has 'does not exist'
  end; fi
if selected 62; then begin 62 '-p adir (no database inside)'
  t 'streamlife check -p adir'; want_rc 2; one_error_line; err_has 'no compile_commands.json'
  end; fi
if selected 63; then begin 63 '-p db/args/compile_commands.json (the file itself)'
  mkdb args "[$(dbentry "$W/nlm.cu")]"
  t 'streamlife check -p db/args/compile_commands.json'; want_rc 1; warnings 1
  end; fi
if selected 64; then begin 64 '-p nlm.cu (not JSON)'
  t 'streamlife check -p nlm.cu'; want_rc 2; one_error_line; err_has 'broken compile database'
  end; fi
if selected 65; then begin 65 'empty compile_commands.json'
  mkdb empty ''
  t 'streamlife check -p db/empty'; want_rc 2; one_error_line; err_has 'broken compile database'
  end; fi
if selected 66; then begin 66 '{not json'
  mkdb notjson '{not json'
  t 'streamlife check -p db/notjson'; want_rc 2; one_error_line; err_has 'invalid JSON'
  end; fi
if selected 67; then begin 67 'a JSON object instead of an array'
  mkdb object '{"a": 1}'
  t 'streamlife check -p db/object'; want_rc 2; one_error_line; err_has 'expected an array'
  end; fi
if selected 68; then begin 68 '["a", 1, null]'
  mkdb mixed '["a", 1, null]'
  t 'streamlife check -p db/mixed'; want_rc 2; one_error_line
  end; fi
if selected 69; then begin 69 '[]'
  mkdb emptyarr '[]'
  t 'streamlife check -p db/emptyarr'; want_rc 2; one_error_line; err_has 'lists no files'
  end; fi
if selected 70; then begin 70 'entry without "directory" / without "file"'
  mkdb nodir "[{\"file\": \"$W/nlm.cu\", \"arguments\": [\"clang++\", \"-c\", \"nlm.cu\"]}]"
  mkdb nofile "[{\"directory\": \"$W\", \"arguments\": [\"clang++\", \"-c\", \"nlm.cu\"]}]"
  t 'streamlife check -p db/nodir'; want_rc 2; one_error_line; err_has 'directory'
  t 'streamlife check -p db/nofile'; want_rc 2; one_error_line; err_has 'file'
  end; fi
if selected 71; then begin 71 'wrong value types ("directory": 5, "arguments": "...")'
  mkdb types5 "[{\"directory\": 5, \"file\": \"$W/nlm.cu\", \"arguments\": [\"clang++\"]}]"
  mkdb typesargs "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"arguments\": \"clang++ -c nlm.cu\"}]"
  t 'streamlife check -p db/types5'; want_rc 2; one_error_line
  t 'streamlife check -p db/typesargs'; want_rc 2; one_error_line
  end; fi
if selected 72; then begin 72 '"directory": ".", "file": "nlm.cu", run from the database parent'
  mkdb reldir '[{"directory": ".", "file": "nlm.cu", "arguments": ["clang++", "-c", "nlm.cu"]}]'
  t 'streamlife check -p db/reldir nlm.cu'; want_rc 2; one_error_line; err_has '"directory" must be an absolute path'
  end; fi
if selected 73; then begin 73 'the same, run from another folder'
  mkdb reldir '[{"directory": ".", "file": "nlm.cu", "arguments": ["clang++", "-c", "nlm.cu"]}]'
  t 'cd adir && streamlife check -p ../db/reldir'; want_rc 2; one_error_line; err_has '"directory" must be an absolute path'
  end; fi
if selected 74; then begin 74 '"directory": ".", "file": "../../nlm.cu"'
  mkdb reldotdot '[{"directory": ".", "file": "../../nlm.cu", "arguments": ["clang++", "-c", "../../nlm.cu"]}]'
  t 'streamlife check -p db/reldotdot'; want_rc 2; one_error_line; err_has '"directory" must be an absolute path'
  end; fi
if selected 75; then begin 75 '2 entries, one for a deleted file'
  mkdb stale "[$(dbentry "$W/nlm.cu"), $(dbentry "$W/deleted.cu")]"
  t 'streamlife check -q -p db/stale'; want_rc 2; warnings 1
  err_has 'deleted.cu: no such file (listed in the compile database of'
  end "the other file still checked; the database named"; fi
if selected 76; then begin 76 'arguments form with an nvcc command'
  mkdb nvccargs "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"arguments\": [\"$CUDA/bin/nvcc\", \"-arch=sm_90\", \"-o\", \"nlm.o\", \"-c\", \"nlm.cu\"]}]"
  t 'streamlife check -p db/nvccargs'; want_rc 1; warnings 1
  end; fi
if selected 77; then begin 77 'command form with an nvcc command (-Xcompiler=-fPIC,-DFOO="a b")'
  mkdb nvcccmd "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"command\": \"$CUDA/bin/nvcc -Xcompiler=-fPIC,-DFOO=\\\"a b\\\" -c nlm.cu -o nlm.o\"}]"
  t 'streamlife check -p db/nvcccmd'; want_rc 1; warnings 1
  end; fi
if selected 78; then begin 78 'the same file twice with different flags'
  mkdb twice "[$(dbentry "$W/nlm.cu" '"-DVARIANT=1"'), $(dbentry "$W/nlm.cu" '"-DVARIANT=2"')]"
  t 'streamlife check -p db/twice'; want_rc 1; warnings 1
  err_has 'compile commands in the database; it is checked once, with the first'; err_lacks 'Processing file'
  end "parsed once, with a note"; fi
if selected 79; then begin 79 '"command": "clang++ $(touch PWNED) `touch PWNED2` -c nlm.cu; touch PWNED3"'
  mkdb inject "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"command\": \"clang++ \$(touch PWNED) \`touch PWNED2\` -c nlm.cu; touch PWNED3\"}]"
  t 'streamlife check -p db/inject'; want_rc 2
  ls "$W" | grep -q PWNED && bad "a shell ran: PWNED files"
  end "no shell"; fi
if selected 80; then begin 80 '"command": "" / "arguments": []'
  mkdb emptycmd "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"command\": \"\"}]"
  mkdb emptyargs "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"arguments\": []}]"
  t 'streamlife check -p db/emptycmd'; want_rc 2; one_error_line; err_has 'has an empty command'
  t 'streamlife check -p db/emptyargs'; want_rc 2; one_error_line; err_has 'has an empty command'
  end; fi
if selected 81; then begin 81 'an entry whose "file" is a directory'
  mkdb dirfile "[{\"directory\": \"$W\", \"file\": \"$W/adir\", \"arguments\": [\"clang++\", \"-c\", \"adir\"]}]"
  t 'streamlife check -p db/dirfile'; want_rc 2; one_error_line; err_has 'adir: is a directory, not a source file'
  end "$(head -1 "$ERRF")"; fi
if selected 82; then begin 82 'an argument with an embedded \u0000'
  mkdb nul "[$(dbentry "$W/nlm.cu" '"-DX=a\u0000b"')]"
  t 'streamlife check -p db/nul'; want_rc 1; warnings 1
  end; fi
if selected 83; then begin 83 'arguments -MD -MF side_dep.d -save-temps=obj -ftime-trace --serialize-diagnostics side.dia -o side.o'
  mkdb side "[{\"directory\": \"$W\", \"file\": \"$W/nlm.cu\", \"arguments\": [\"clang++\", $(printf '"%s", ' $CUARGS) \"-MD\", \"-MF\", \"side_dep.d\", \"-save-temps=obj\", \"-ftime-trace\", \"--serialize-diagnostics\", \"side.dia\", \"-o\", \"side.o\", \"-c\", \"nlm.cu\"]}]"
  t 'streamlife check -p db/side'; want_rc 1
  ls "$W" | grep -E '^(side|nlm.*\.(i|ii|json|bc|s|o))' && bad "files written: $(ls "$W" | grep -E '^side' | tr '\n' ' ')"
  end "nothing written"; fi
if selected 84; then begin 84 '--serialize-diagnostics victim.txt (victim.txt held data)'
  echo "precious data" > "$W/victim.txt"
  mkdb serdiag "[$(dbentry "$W/nlm.cu" "\"--serialize-diagnostics\", \"$W/victim.txt\"")]"
  t 'streamlife check -p db/serdiag'; want_rc 1
  [[ "$(cat "$W/victim.txt")" == "precious data" ]] || bad "victim.txt overwritten"
  end "victim.txt intact"; fi
three_files_db() { # NAME ENTRIES: ENTRIES commands over 3 real files, -DVARIANT=i
  mkdir -p "$W/db/$1"; cp "$ROOT/examples/cuda/offload_released_early.cu" "$ROOT/examples/cuda/wait_on_wrong_stream.cu" "$W/"
  python3 - "$W" "$2" "$CUARGS" > "$W/db/$1/compile_commands.json" <<'PY'
import json, sys
w, n, cu = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
files = ["nlm.cu", "offload_released_early.cu", "wait_on_wrong_stream.cu"]
print(json.dumps([{"directory": w, "file": w + "/" + files[i % 3],
                   "arguments": ["clang++", "-DVARIANT=%d" % i] + cu + ["-c", files[i % 3]]}
                  for i in range(n)]))
PY
}
if selected 85; then begin 85 '50 entries for 3 real files (-DVARIANT=i)'
  three_files_db e50 50
  tm 'streamlife check -p db/e50'; want_rc 1; warnings 3; err_has '47 commands are not used'
  end "each file parsed once"; fi
if selected 86; then begin 86 '5000 entries for 3 real files'
  three_files_db e5000 5000
  tm 'timeout 240 streamlife check -p db/e5000'; want_rc 1; warnings 3; err_has '4997 commands are not used'
  end "each file parsed once"; fi
if selected 87; then begin 87 "one file's commands while its header is truncated for 1.5 s (30 entries)"
  mkdb e30 "[$(for i in $(seq 30); do dbentry "$W/nlm.cu" "\"-DSWEEP_VARIANT=$i\""; [[ $i == 30 ]] || printf ', '; done)]"
  t 'streamlife check -p db/e30'; want_rc 1; warnings 1; err_has 'has 30 compile commands'
  end "moot: a file is parsed once, with its first command"; fi

# --------------------------------------------------------------------------
# 1d. .clang-tidy and NOLINT
# --------------------------------------------------------------------------
variant() { sed "51s|\$| $2|" "$W/nlm.cu" > "$W/$1"; }
if selected 88; then begin 88 '// NOLINT, // NOLINT(streamlife-free-before-wait), NOLINT(streamlife-*) on the release line'
  variant n1.cu '// NOLINT'; variant n2.cu '// NOLINT(streamlife-free-before-wait)'; variant n3.cu '// NOLINT(streamlife-*)'
  for f in n1 n2 n3; do t "streamlife check $f.cu"; want_rc 0; done
  end "suppressed"; fi
if selected 89; then begin 89 'NOLINT(streamlife-use-before-alloc) / NOLINT(streamlife-free-before-wai)'
  variant n4.cu '// NOLINT(streamlife-use-before-alloc)'; variant n5.cu '// NOLINT(streamlife-free-before-wai)'
  t 'streamlife check n4.cu'; want_rc 1
  t 'streamlife check n5.cu'; want_rc 1
  end "not suppressed"; fi
if selected 90; then begin 90 '// NOLINTNEXTLINE(...) / bare NOLINTNEXTLINE above the line'
  sed '51i // NOLINTNEXTLINE(streamlife-free-before-wait)' "$W/nlm.cu" > "$W/n6.cu"
  sed '51i // NOLINTNEXTLINE' "$W/nlm.cu" > "$W/n7.cu"
  t 'streamlife check n6.cu'; want_rc 0
  t 'streamlife check n7.cu'; want_rc 0
  end "suppressed"; fi
if selected 91; then begin 91 'NOLINTBEGIN/NOLINTEND around the file'
  { echo '// NOLINTBEGIN(streamlife-*)'; cat "$W/nlm.cu"; echo '// NOLINTEND(streamlife-*)'; } > "$W/n8.cu"
  t 'streamlife check n8.cu'; want_rc 0
  end "suppressed"; fi
if selected 92; then begin 92 'NOLINT on a note line (the use), not on the warning line'
  sed '44s|$| // NOLINT|' "$W/nlm.cu" > "$W/n9.cu"
  t 'streamlife check n9.cu'; want_rc 1
  end "clang-tidy semantics"; fi
if selected 93; then begin 93 'unterminated // NOLINTBEGIN(streamlife-*)'
  { echo '// NOLINTBEGIN(streamlife-*)'; cat "$W/nlm.cu"; } > "$W/n10.cu"
  t 'streamlife check --format json n10.cu'; want_rc 2; err_has "unmatched 'NOLINTBEGIN'"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=[x for x in d["findings"]]; sys.exit(0 if len(f)==1 and f[0]["notes"] else 1)' "$OUTF" || bad "the finding lost its notes or was counted wrong"
  end "input error (exit 2); the warning keeps its notes"; fi
tidydir() { mkdir -p "$W/$1"; cp "$W/nlm.cu" "$W/pipeline_common.cuh" "$W/$1/"; printf '%s\n' "$2" > "$W/$1/.clang-tidy"; }
if selected 94; then begin 94 ".clang-tidy with malformed ReleaseFunctions / UseFunctions / AllocateFunctions"
  tidydir cfg94 "CheckOptions:
  streamlife-free-before-wait.ReleaseFunctions: 'pool::release:zero:one;;:::;x'
  streamlife-free-before-wait.UseFunctions: 'enqueueWork:-5:9999'
  streamlife-free-before-wait.AllocateFunctions: 'acquire'"
  t 'streamlife check --format sarif cfg94/nlm.cu'; want_rc 2; grep -q 'clang-tidy-config' "$OUTF" && bad "config errors became SARIF results"
  err_has 'streamlife: error: '
  end "input errors (exit 2), not findings"; fi
if selected 95; then begin 95 'YAML syntax error / an unknown key Bogus: 1 in .clang-tidy'
  tidydir cfg95a "Checks: [unclosed"; tidydir cfg95b "Bogus: 1"
  t 'streamlife check cfg95a/nlm.cu'; want_rc 2
  n=$(grep -c 'error' "$ERRF"); (( n <= 2 )) || bad "the error is printed $n times"
  t 'streamlife check cfg95b/nlm.cu'; want_rc 2
  end "$(head -1 "$ERRF" | head -c 140)"; fi
if selected 96; then begin 96 "ReleaseFunctions: 'cudaFreeAsync:2147483647:-2147483648' / 'cudaFreeAsync:5:1'"
  tidydir cfg96a "CheckOptions:
  streamlife-free-before-wait.ReleaseFunctions: 'cudaFreeAsync:2147483647:-2147483648'"
  tidydir cfg96b "CheckOptions:
  streamlife-free-before-wait.ReleaseFunctions: 'cudaFreeAsync:5:1'"
  t 'streamlife check cfg96a/nlm.cu'; want_rc 2; err_has 'cudaFreeAsync'
  t 'streamlife check cfg96b/nlm.cu'; want_rc 2; err_has 'cudaFreeAsync'
  end "refused, naming the entry"; fi
if selected 97; then begin 97 "ReleaseFunctions: 'cudaFreeAsync:0:9' (stream index out of range)"
  tidydir cfg97 "CheckOptions:
  streamlife-free-before-wait.ReleaseFunctions: 'cudaFreeAsync:0:9'"
  t 'streamlife check cfg97/nlm.cu'; want_rc 2; err_has 'cudaFreeAsync'; err_lacks 'legacy default stream'
  end "refused"; fi
if selected 98; then begin 98 "ReleaseFunctions: 'cudaFreeAsync:4294967296:0'"
  tidydir cfg98 "CheckOptions:
  streamlife-free-before-wait.ReleaseFunctions: 'cudaFreeAsync:4294967296:0'"
  t 'streamlife check cfg98/nlm.cu'; want_rc 2; err_has 'cudaFreeAsync'
  end "refused"; fi
if selected 99; then begin 99 "Checks: '*'"
  tidydir cfg99 "Checks: '*'"
  t 'streamlife check cfg99/nlm.cu'; want_rc 1; warnings 1
  grep -v '\[streamlife-' "$OUTF" | grep -q 'warning:' && bad "other checks ran"
  end "only streamlife checks"; fi
if selected 100; then begin 100 "HeaderFilterRegex: '('"
  tidydir cfg100 "HeaderFilterRegex: '('"
  t 'streamlife check cfg100/nlm.cu'; want_rc 1; warnings 1
  end "note: the header filter is not used by streamlife check"; fi
if selected 101; then begin 101 "Checks: '-*' next to the file"
  tidydir cfg101 "Checks: '-*'"
  t 'streamlife check cfg101/nlm.cu'; want_rc 1; warnings 1
  end "streamlife checks always run"; fi
if selected 102; then begin 102 "project .clang-tidy one level up: Checks: '-*,bugprone-*,performance-*,modernize-use-nullptr'"
  mkdir -p "$W/proj/src"; cp "$W/nlm.cu" "$W/pipeline_common.cuh" "$W/proj/src/"
  echo "Checks: '-*,bugprone-*,performance-*,modernize-use-nullptr'" > "$W/proj/.clang-tidy"
  t 'streamlife check proj/src/nlm.cu'; want_rc 1; warnings 1
  t 'streamlife check --format json proj/src/nlm.cu'; want_rc 1; json_ok
  t 'streamlife check --format sarif proj/src/nlm.cu'; want_rc 1; out_has 'streamlife-free-before-wait'
  end "the finding in all three formats"; fi
if selected 103; then begin 103 'same with CLANG_NO_DEFAULT_CONFIG=1'
  [[ -d "$W/proj/src" ]] || { mkdir -p "$W/proj/src"; cp "$W/nlm.cu" "$W/pipeline_common.cuh" "$W/proj/src/"; }
  t 'CLANG_NO_DEFAULT_CONFIG=1 streamlife check proj/src/nlm.cu'; want_rc 1; warnings 1
  end; fi

# --------------------------------------------------------------------------
# 1e. Scale and pathological (legal) inputs; time and peak RSS
# --------------------------------------------------------------------------
emit() { (cd "$W" && python3 "$PATHOLOGICAL" --emit "$1" "$2" > "$3"); }
scale() { # ROW SHAPE SIZES WANT_RC [MAX_MB]: one timed run per size
  local row=$1 shape=$2 sizes=$3 want=$4 max=${5:-0} n m
  for n in $sizes; do
    emit "$shape" "$n" "$shape-$n.cu"
    tm "streamlife check $shape-$n.cu -- $CUARGS"; want_rc "$want"
    m=${NOTES[-1]#*, }; m=${m% MB}
    (( max == 0 || m <= max )) || bad "N=$n: $m MB, over $max MB"
    NOTES[-1]="N=$n ${NOTES[-1]}"
  done
}
if [[ "${SCALE:-1}" == 1 ]]; then
if selected 104; then begin 104 'baseline nlm.cu'
  tm 'streamlife check nlm.cu'; want_rc 1
  end; fi
if selected 105; then begin 105 '18,200 functions, each a correct alloc/use/hand-off/free'
  scale 105 many-functions-clean 18200 0 1024
  emit many-functions-clean 18200 p105.cu
  t "/usr/bin/time -o $O/p.txt -f '%e %M' clang++-22 -fsyntax-only $CUARGS p105.cu"
  note "clang -fsyntax-only $(awk '{printf "%s s, %d MB", $1, $2/1024}' "$O/p.txt")"
  end "linear"; fi
if selected 106; then begin 106 'buggy variant (18,200 findings), text'
  scale 106 many-functions-buggy 18200 1 1024
  warnings 18200
  end; fi
if selected 107; then begin 107 'the same, --format json'
  emit many-functions-buggy 18200 m107.cu
  tm "streamlife check --format json m107.cu -- $CUARGS"; want_rc 1; json_ok
  end; fi
if selected 108; then begin 108 'the same, --format sarif'
  emit many-functions-buggy 18200 m108.cu
  tm "streamlife check --format sarif m108.cu -- $CUARGS"; want_rc 1; json_ok
  m=${NOTES[-1]#*, }; m=${m% MB}; (( m <= 1024 )) || bad "$m MB for SARIF (the sweep had 3.56 GB)"
  end "SARIF streamed"; fi
if selected 109; then begin 109 'one function, N x {alloc; record/wait; launch on b; free on a} (a bug each)'
  scale 109 sequential-buggy "1000 4000 16000" 1 1024
  end; fi
if selected 110; then begin 110 'same shape, correct (wait before free)'
  scale 110 sequential-clean "1000 4000 16000" 0 1024
  end; fi
if selected 111; then begin 111 'N buffers alive at once (alloc all, use all, free all), N = 2000'
  scale 111 alive-at-once 2000 1 1024
  end; fi
if selected 112; then begin 112 'loop nest 10 / 30 / 60 deep, use, free and realloc in the innermost body'
  scale 112 nest-realloc "10 30 60" 1 1024
  end; fi
if selected 113; then begin 113 'loop nest N deep, use innermost, free after the nest; N = 1, 10, 29, 30, 31'
  scale 113 deep-loop-nest "1 10 29 30 31" 1 1024
  end; fi
if selected 114; then begin 114 'same, N = 32, 33, 40, 60'
  scale 114 deep-loop-nest "32 33 40 60" 1 1024
  end "no round cap: the finding is reported"; fi
if selected 115; then begin 115 'same with the cap raised to 256 (scratch build in the sweep)'
  scale 115 deep-loop-nest "256" 1 1024
  end "no cap to raise now: N = 256 reported"; fi
if selected 116; then begin 116 '40-deep nest with the free just after the innermost loop'
  scale 116 free-in-nest 40 1 1024
  end; fi
if selected 117; then begin 117 'N sequential if (c[i]) {launch on b} else {record/wait}, N = 100 / 1000 / 4000'
  scale 117 if-else-branches "100 1000 4000" 1 1024
  end; fi
if selected 118; then begin 118 'correct: N x if (c[i]) launch, then wait, then free; N = 1000 / 2000 / 4000'
  scale 118 if-branches "1000 2000 4000" 0 1024
  end; fi
if selected 119; then begin 119 'the N = 4000 if/else file under ulimit -v 2500000'
  emit if-else-branches 4000 ie4000.cu
  t "ulimit -v 2500000; streamlife check ie4000.cu -- $CUARGS"; want_rc 1
  end "fits"; fi
if selected 120; then begin 120 'switch with 1000 / 4000 cases, each a launch'
  scale 120 switch-cases "1000 4000" 1 1024
  end; fi
if selected 121; then begin 121 'N streams + N events, a chain of hand-offs, free on s0; N = 500 / 1000'
  scale 121 stream-chain "500 1000" 1 1024
  end "note: superlinear (each stream's ordering facts name the streams before it), fine at the brief's 500"; fi
if selected 122; then begin 122 'the same chain inside a loop, N = 500'
  scale 122 stream-chain-loop 500 1 1024
  end; fi
if selected 123; then begin 123 'helpers h0 -> ... -> hN, each launching; N = 1000 / 5000'
  scale 123 helper-chain "1000 5000" 1 1024
  end; fi
if selected 124; then begin 124 'call chain, callees defined first, one launch at the bottom; N = 1000 / 10000 / 30000'
  scale 124 callee-chain "1000 10000 30000" 1 1024
  end; fi
if selected 125; then begin 125 'call chain, callers defined first; N = 1000 / 10000 / 11875'
  scale 125 forward-chain "1000 10000 11875" 1 1024
  end; fi
if selected 126; then begin 126 'same, N = 12500 / 30000 / 100000'
  scale 126 forward-chain "12500 30000 100000" 1 2048
  end "no stack overflow"; fi
if selected 127; then begin 127 'self- and mutual recursion'
  scale 127 recursion 1 1 1024
  end; fi
if selected 128; then begin 128 '1000-level macro chain / template<int N> recursion 100, 500, 1000'
  scale 128 macro-chain 1000 1 1024
  scale 128 template-depth "100 500 1000" 1 1024
  end; fi
if selected 129; then begin 129 '50,000-term expression as a call argument'
  scale 129 long-expression 50000 1 1024
  end; fi
if selected 130; then begin 130 'one-line source with N findings, N = 250 / 1000 (text and SARIF size)'
  for n in 250 1000; do
    emit one-line "$n" ol$n.cu
    t "streamlife check ol$n.cu -- $CUARGS"; want_rc 1
    b=$(wc -c < "$OUTF"); note "N=$n text $((b / 1024)) KB"
    (( b < 20 * 1024 * 1024 )) || bad "N=$n: $b bytes of text"
    t "streamlife check --format sarif ol$n.cu -- $CUARGS"; want_rc 1
    b=$(wc -c < "$OUTF"); note "SARIF $((b / 1024)) KB"
    (( b < 20 * 1024 * 1024 )) || bad "N=$n: $b bytes of SARIF"
  done
  end "source lines clipped in snippets (source $(($(wc -c < "$W/ol1000.cu") / 1024)) KB)"; fi
fi

# --------------------------------------------------------------------------
# 2a. streamlife run on the CPU machine (no libcuda.so.1)
# --------------------------------------------------------------------------
# Helper programs, as in the sweep.
H="$W/.progs"; mkdir -p "$H"
printf '#!/bin/sh\necho app-ran\nexit 7\n' > "$W/app.sh"; chmod +x "$W/app.sh"
cat > "$H/exitcode.c" <<'C'
#include <stdlib.h>
int main(int c, char **v) { return c > 1 ? atoi(v[1]) : 0; }
C
cat > "$H/sig.c" <<'C'
#include <signal.h>
#include <stdlib.h>
#include <string.h>
int main(int c, char **v) {
  if (c < 2) return 0;
  if (!strcmp(v[1], "segv")) { volatile int *p = 0; *p = 1; }
  if (!strcmp(v[1], "abort")) abort();
  if (!strcmp(v[1], "kill")) raise(SIGKILL);
  if (!strcmp(v[1], "term")) raise(SIGTERM);
  return 0;
}
C
cat > "$H/forker.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  int s1, s2;
  pid_t a = fork(); if (a == 0) { puts("child1"); fflush(stdout); _exit(5); }
  pid_t b = fork(); if (b == 0) { puts("child2"); exit(6); }
  waitpid(a, &s1, 0); waitpid(b, &s2, 0);
  printf("children %d %d\n", WEXITSTATUS(s1), WEXITSTATUS(s2));
  return 9;
}
C
cat > "$H/threads.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
static int quit;
static void *run(void *a) { if (quit && a == (void *)3) exit(42); return 0; }
int main(int c, char **v) {
  pthread_t t[16]; quit = c > 1;
  for (long i = 0; i < 16; ++i) pthread_create(&t[i], 0, run, (void *)i);
  for (int i = 0; i < 16; ++i) pthread_join(t[i], 0);
  return 0;
}
C
cat > "$H/envdump.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  const char *n[] = {"FOO", "LD_PRELOAD", "STREAMLIFE_OPTIONS"};
  for (int i = 0; i < 3; ++i) { const char *v = getenv(n[i]); printf("%s=%s\n", n[i], v ? v : "(unset)"); }
  return 0;
}
C
cat > "$H/cuda_nodev.cpp" <<'C'
#include <cuda_runtime_api.h>
#include <cstdio>
int main() {
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, 16);
  std::printf("cudaMalloc: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 3;
}
C
for p in exitcode sig forker threads envdump; do cc -O1 -pthread -o "$W/$p" "$H/$p.c" 2>/dev/null; done
c++ -o "$W/cuda_nodev" "$H/cuda_nodev.cpp" -I"$CUDA/include" -L"$CUDA/lib64" -lcudart -Wl,-rpath,"$CUDA/lib64" 2>/dev/null

if selected 131; then begin 131 'streamlife run / streamlife run --'
  t 'streamlife run'; want_rc 2; err_has 'no command to run'
  t 'streamlife run --'; want_rc 2; err_has 'no command to run'
  end; fi
if selected 132; then begin 132 'streamlife run --help'
  t 'streamlife run --help'; want_rc 0; out_has '--api-stats[=BOOL]'
  end "the help shows the syntax the parser takes"; fi
if selected 133; then begin 133 'run -- true / run -- false / run true'
  t 'streamlife run -- true'; want_rc 0
  t 'streamlife run -- false'; want_rc 1
  t 'streamlife run true'; want_rc 0
  end; fi
if selected 134; then begin 134 'run -- /nonexistent/cmd / no-such-command-xyz / ""'
  t 'streamlife run -- /nonexistent/cmd'; want_rc 127; err_has 'command not found'
  t 'streamlife run -- no-such-command-xyz'; want_rc 127
  t 'streamlife run -- ""'; want_rc 127
  end; fi
if selected 135; then begin 135 'run -- ./nlm.cu (not executable)'
  t 'streamlife run -- ./nlm.cu'; want_rc 126; err_has 'Permission denied'
  end; fi
if selected 136; then begin 136 'run -- ./adir / run -- adir'
  t 'streamlife run -- ./adir'; want_rc 126
  t 'streamlife run -- adir'; want_rc 127
  end "$(head -1 "$O/136.1.err")"; fi
if selected 137; then begin 137 'run --bogus -- true / run -x -- true'
  t 'streamlife run --bogus -- true'; want_rc 2; err_has 'unknown option'
  t 'streamlife run -x -- true'; want_rc 2
  end; fi
if selected 138; then begin 138 '--error-exitcode abc / = / 99999999999999999999 / 0x10'
  for v in abc '' 99999999999999999999 0x10; do t "streamlife run --error-exitcode '$v' -- true"; want_rc 2; done
  end; fi
if selected 139; then begin 139 '--error-exitcode -1 / 300 / 256'
  t 'streamlife run --error-exitcode=-1 -- true'; want_rc 2
  t 'streamlife run --error-exitcode 300 -- true'; want_rc 2
  t 'streamlife run --error-exitcode 256 -- true'; want_rc 2; err_has '1-255'
  end "1-255 only"; fi
if selected 140; then begin 140 "--error-exitcode ' 5' / +5"
  t "streamlife run --error-exitcode ' 5' -- true"; want_rc 2
  t 'streamlife run --error-exitcode +5 -- true'; want_rc 2
  end "refused"; fi
if selected 141; then begin 141 '--error-exitcode 5:report=/tmp/x'
  t 'streamlife run --error-exitcode 5:report=/tmp/x -- true'; want_rc 2; err_has "must not contain ':'"
  end; fi
if selected 142; then begin 142 '--error-exitcode (last arg) / --error-exitcode true'
  t 'streamlife run --error-exitcode'; want_rc 2
  t 'streamlife run --error-exitcode true -- true'; want_rc 2
  end; fi
if selected 143; then begin 143 '--api-stats true -- ./app.sh (prints, exits 7)'
  t 'streamlife run --api-stats true -- ./app.sh'; want_rc 7; out_has 'app-ran'
  end "the app runs"; fi
if selected 144; then begin 144 '--print-summary false -- ./app.sh'
  t 'streamlife run --print-summary false -- ./app.sh'; want_rc 7; out_has 'app-ran'
  end "the app runs"; fi
if selected 145; then begin 145 '--dedup 0 -- ./app.sh / --dedup maybe -- true'
  t 'streamlife run --dedup 0 -- ./app.sh'; want_rc 7; out_has 'app-ran'
  t 'streamlife run --dedup maybe -- true'; want_rc 2; err_has "expects 0, 1, true or false"
  end; fi
if selected 146; then begin 146 '--dedup=false -- ./app.sh'
  t 'streamlife run --dedup=false -- ./app.sh'; want_rc 7
  end; fi
if selected 147; then begin 147 '--report -- ./app.sh'
  t 'streamlife run --report -- ./app.sh'; want_rc 2; err_has 'needs a value'
  [[ -e "$W/--" ]] && bad "a file named -- was written"
  end; fi
if selected 148; then begin 148 '--error_exitcode=3 (underscore spelling)'
  t 'streamlife run --error_exitcode=3 -- true'; want_rc 0
  end "alias"; fi
if selected 149; then begin 149 'STREAMLIFE_OPTIONS=bogus=1 run -- true; =verbosity; out-of-range values'
  t 'STREAMLIFE_OPTIONS=bogus=1 streamlife run -- true'; want_rc 2; one_error_line
  t 'STREAMLIFE_OPTIONS==verbosity streamlife run -- true'; want_rc 2
  t 'STREAMLIFE_OPTIONS="stack_depth=abc:report_frames=-5:stacks_per_op=99999999999999999999" streamlife run -- true'; want_rc 2
  end "one usage error from the launcher"; fi
if selected 150; then begin 150 'STREAMLIFE_OPTIONS=bogus=1 run -- sh -c "true; ls; cat /dev/null"'
  t 'STREAMLIFE_OPTIONS=bogus=1 streamlife run -- sh -c "true; ls > /dev/null; cat /dev/null"'; want_rc 2; one_error_line
  end "once"; fi
if selected 151; then begin 151 "STREAMLIFE_OPTIONS='stack_depth=9223372036854775807:report_frames=...:stacks_per_op=-9223372036854775808:verbosity=1'"
  t "STREAMLIFE_OPTIONS='stack_depth=9223372036854775807:report_frames=9223372036854775807:stacks_per_op=-9223372036854775808:verbosity=1' streamlife run -- true"
  [[ "$RC" == 0 || "$RC" == 2 ]] || bad "exit $RC"
  end "$( [[ $RC == 2 ]] && head -1 "$ERRF" | head -c 120 || echo accepted)"; fi
if selected 152; then begin 152 'a 200,000-character report= value'
  t 'streamlife run --report "$(head -c 200000 /dev/zero | tr "\0" a)" -- true'
  [[ "$RC" == 126 || "$RC" == 2 || "$RC" == 0 ]] || bad "exit $RC"
  end "n/a: an OS limit (Argument list too long) when it is 126"; fi
if selected 153; then begin 153 'env error_exitcode=3, flag --error-exitcode 4'
  t 'STREAMLIFE_OPTIONS=error_exitcode=3 streamlife run --error-exitcode 4 -- ./envdump'; want_rc 0
  out_has 'error_exitcode=4'
  end "the flag wins"; fi
if selected 154; then begin 154 'exit codes 0..255 through run -- ./exitcode N'
  t 'for i in $(seq 0 255); do streamlife run -- ./exitcode $i; [ $? = $i ] || { echo "lost $i"; exit 1; }; done'; want_rc 0
  end "all 256 kept"; fi
if selected 155; then begin 155 'run -- ./sig segv / abort / kill / term'
  t 'streamlife run -- ./sig segv'; want_rc 139
  t 'streamlife run -- ./sig abort'; want_rc 134
  t 'streamlife run -- ./sig kill'; want_rc 137
  t 'streamlife run -- ./sig term'; want_rc 143
  end "as without run"; fi
if selected 156; then begin 156 'run -- ./forker (children _exit(5) / exit(6); parent 9)'
  t 'streamlife run -- ./forker'; want_rc 9; out_has 'children 5 6'
  end; fi
if selected 157; then begin 157 'run -- ./threads / ./threads x (exit(42) from a thread)'
  t 'streamlife run -- ./threads'; want_rc 0
  t 'streamlife run -- ./threads x'; want_rc 42
  end; fi
if selected 158; then begin 158 "printf 'line1\\nline2\\n' | run -- cat; echo 'print(6*7)' | run -- python3 -"
  t "printf 'line1\\nline2\\n' | streamlife run -- cat"; want_rc 0; out_has 'line2'
  t "echo 'print(6*7)' | streamlife run -- python3 -"; want_rc 0; out_has '42'
  end; fi
if selected 159; then begin 159 'FOO=bar run -- ./envdump'
  t 'FOO=bar streamlife run -- ./envdump'; want_rc 0; out_has 'FOO=bar'
  end; fi
if selected 160; then begin 160 'LD_PRELOAD=libm.so.6 run -- ./envdump'
  t 'LD_PRELOAD=libm.so.6 streamlife run -- ./envdump'; want_rc 0; out_has 'libm.so.6'; out_has 'libstreamlife_rt.so'
  end "appended"; fi
if selected 161; then begin 161 'run -- streamlife run -- ./envdump (nested)'
  t 'streamlife run -- streamlife run -- ./envdump'; want_rc 0
  n=$(grep '^LD_PRELOAD' "$OUTF" | tr ':' '\n' | grep -c libstreamlife_rt); [[ "$n" == 1 ]] || bad "library $n times in LD_PRELOAD"
  end "preloaded once"; fi
if selected 162; then begin 162 "run -- sh -c 'echo \$0 \$1 \$2' a \"b c\""
  t "streamlife run -- sh -c 'echo \$0 \$1 \$2' a 'b c'"; want_rc 0; out_has 'a b c'
  end; fi
if selected 163; then begin 163 "STREAMLIFE_RT_LIBRARY=/nonexistent.so / '/tmp/a b:/tmp/c'"
  t 'STREAMLIFE_RT_LIBRARY=/nonexistent.so streamlife run -- true'; want_rc 2
  t "STREAMLIFE_RT_LIBRARY='/tmp/a b:/tmp/c' streamlife run -- true"; want_rc 2
  end; fi
if selected 164; then begin 164 'STREAMLIFE_RT_LIBRARY=/etc/passwd'
  t 'STREAMLIFE_RT_LIBRARY=/etc/passwd streamlife run -- true'
  [[ "$RC" == 0 || "$RC" == 2 ]] || bad "exit $RC"
  end "$(head -1 "$ERRF" | head -c 140)"; fi
if selected 165; then begin 165 'streamlife installed under ".../my tools/{bin,lib}", run --verbosity=1 -- ./envdump'
  if cmake --install "$BUILD" --prefix "$W/my tools" > "$O/install.log" 2>&1; then
    t '"./my tools/bin/streamlife" run --verbosity=1 -- ./envdump'; want_rc 2; err_has 'contains a space'
  else bad "cmake --install failed"; fi
  end "said, not run unvalidated"; fi
if selected 166; then begin 166 'setuid /bin/mount --version under run --verbosity=1, as nobody'
  if [[ $(id -u) == 0 ]]; then
    t "$AS_NOBODY $W/.bin/streamlife run --verbosity=1 -- /bin/mount --version"; want_rc 0
  else bad "needs root to switch to nobody"; fi
  end "note: ld.so drops LD_PRELOAD for setuid programs"; fi
if selected 167; then begin 167 'run -- ./cuda_nodev (CUDA program, no driver) --report rep.json --error-exitcode 9'
  if [[ -x "$W/cuda_nodev" ]]; then
    t 'streamlife run --report rep.json --error-exitcode 9 -- ./cuda_nodev'; want_rc 3
    err_has 'no report was written'
  else bad "could not build cuda_nodev"; fi
  end "the program's own status; a note says why there is no report"; fi
if selected 168; then begin 168 "stub libcuda as libcuda.so.1, run -- sh -c 'ls; cat /dev/null; echo done'"
  mkdir -p "$W/stub"; cp "$CUDA/lib64/stubs/libcuda.so" "$W/stub/libcuda.so.1" 2>/dev/null
  t "LD_LIBRARY_PATH=$W/stub streamlife run -- sh -c 'ls > /dev/null; cat /dev/null; echo done'"; want_rc 0
  n=$(grep -c 'not active' "$ERRF"); (( n <= 1 )) || bad "the warning is printed $n times"
  end "$(head -1 "$ERRF" | head -c 140)"; fi
if selected 169; then begin 169 'strace -f -e trace=%file,write of run --report rep.json -- ./forker'
  rm -f "$W/rep.json"
  t 'strace -f -o strace.txt -e trace=%file,write streamlife run --report rep.json -- ./forker'; want_rc 9
  # Files opened for writing, less the launcher's private O_EXCL temporary
  # (the findings tally of the process tree) when it is unlinked again.
  grep -E 'O_CREAT|O_WRONLY|O_RDWR' "$W/strace.txt" | grep -vE '/dev/(null|tty)' |
    grep -oE '"[^"]+"' | sort -u | while read -r f; do
      grep -q "unlink($f)" "$W/strace.txt" || echo "$f"; done > "$O/169.writes"
  [[ -s "$O/169.writes" ]] && bad "files written: $(head -2 "$O/169.writes" | tr '\n' ' ')"
  [[ -e "$W/rep.json" ]] && bad "a report was written with no CUDA"
  end "no file left behind (the launcher's O_EXCL tally file in \$TMPDIR is removed)"; fi
if selected 170; then begin 170 'overhead: 200 x /bin/true plain, with the library preloaded, and under streamlife run'
  t 'ms() { echo $(( $(date +%s%N) / 1000000 )); }
     a=$(ms); for i in $(seq 200); do /bin/true; done
     b=$(ms); for i in $(seq 200); do LD_PRELOAD='"$BUILD/lib/libstreamlife_rt.so"' /bin/true; done
     c=$(ms); for i in $(seq 200); do streamlife run -- /bin/true; done
     d=$(ms); echo $((b - a)) $((c - b)) $((d - c))'
  want_rc 0; read -r plain pre run < "$OUTF"
  per=$(( (pre - plain) * 1000 / 200 )); (( per < 5000 )) || bad "preload costs $per us per process"
  end "${plain} / ${pre} / ${run} ms: the preload adds about ${per} us per process; the launcher $(( (run - plain) * 1000 / 200 )) us"; fi

# --------------------------------------------------------------------------
# 3. Round 2 (research/reliability-round2.md): the 22 defects of the second
#    sweep, one row or more each, as they are after the fixes. The runtime
#    rows play CUDA and PyTorch through the fake-CUDA harness of the tests
#    ($BUILD/test/fakecuda). Rows 171-173, 177, 185 and 192 need root.
# --------------------------------------------------------------------------
FC="$BUILD/test/fakecuda"
FAKE="env LD_LIBRARY_PATH=$FC STREAMLIFE_CUPTI_LIBRARY=$FC/libcupti.so"
PROG="$FC/fake_cuda_program"
# A torch-like tree around the stand-in libc10_cuda.so; --cxx false makes any
# feed build fail, which names the cache key.
TORCHRUN="$FAKE PLANTED_FEED_MARKER=$W/planted streamlife run --cxx false"
TORCHPROG="$PROG torch-alloc $W/torch/lib/libc10_cuda.so"
mkdir -p "$W/torch/lib" "$W/torch/include/c10/cuda"
cp "$FC/libc10_cuda.so" "$W/torch/lib/" 2>/dev/null
: > "$W/torch/include/c10/cuda/CUDACachingAllocator.h"
feed_key() { # CACHE_DIR: the key, from a failed build's note
  (cd "$W" && $TORCHRUN --cache-dir "$1" -- $TORCHPROG 2>&1) | sed -n 's/.*build-\([0-9a-f]*\)-.*/\1/p' | head -1
}
plant() { # CACHE_DIR KEY: the planted library as the cached feed
  cp "$FC/libplantedfeed.so" "$1/libstreamlife_torch-$2.so"; chmod 600 "$1/libstreamlife_torch-$2.so"
}
ran_planted() { [[ -e "$W/planted" ]] && { rm -f "$W/planted"; return 0; }; return 1; }

if selected 171; then begin 171 'S1: a feed planted in a cache folder others can write (0777), a symbolic link as the feed, a feed others can write'
  k=$(feed_key "$W/c171"); plant "$W/c171" "$k"; rm -f "$W/planted"
  t "$TORCHRUN --cache-dir c171 -- $TORCHPROG"; ran_planted || bad "control: a private feed did not load"
  chmod 777 "$W/c171"
  t "$TORCHRUN --cache-dir c171 -- $TORCHPROG"; err_has 'is writable by everyone (mode 0777)'
  ran_planted && bad "the planted feed ran"
  chmod 700 "$W/c171"; mv "$W/c171/libstreamlife_torch-$k.so" "$W/c171/real.so"
  ln -s real.so "$W/c171/libstreamlife_torch-$k.so"
  t "$TORCHRUN --cache-dir c171 -- $TORCHPROG"; err_has 'is a symbolic link'
  ran_planted && bad "the linked feed ran"
  rm "$W/c171/libstreamlife_torch-$k.so"; mv "$W/c171/real.so" "$W/c171/libstreamlife_torch-$k.so"
  chmod 646 "$W/c171/libstreamlife_torch-$k.so"
  t "$TORCHRUN --cache-dir c171 -- $TORCHPROG"; err_has 'is writable by everyone (mode 0646)'
  ran_planted && bad "the open feed ran"
  end "the private control loads; the rest are refused, with a note"; fi
if selected 172; then begin 172 'S1: HOME unset: the fallback cache is created 0700; one made first by nobody, with a feed in it, is refused (root)'
  mkdir -p "$W/t172"
  t "env -u HOME -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR TMPDIR=$W/t172 $TORCHRUN -- $TORCHPROG"
  m=$(stat -c %a "$W/t172/streamlife-cache-$(id -u)" 2>/dev/null); [[ "$m" == 700 ]] || bad "fallback mode '$m'"
  if [[ $(id -u) == 0 ]]; then
    k=$(feed_key "$W/c172"); mkdir -p "$W/t172b/streamlife-cache-0"; plant "$W/t172b/streamlife-cache-0" "$k"
    chown -R 65534:65534 "$W/t172b/streamlife-cache-0"
    t "env -u HOME -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR TMPDIR=$W/t172b $TORCHRUN -- $TORCHPROG"
    err_has 'is owned by uid 65534, not by this user (uid 0)'; ran_planted && bad "the planted feed ran"
  else bad "needs root to give the folder to nobody"; fi
  end "fallback ${m}; a foreign one refused"; fi
if selected 173; then begin 173 'S1: a cached feed of nobody (mode 600) in our folder; our feed in a folder of nobody (root)'
  if [[ $(id -u) == 0 ]]; then
    k=$(feed_key "$W/c173"); plant "$W/c173" "$k"; chown 65534:65534 "$W/c173/libstreamlife_torch-$k.so"
    t "$TORCHRUN --cache-dir c173 -- $TORCHPROG"; err_has 'is owned by uid 65534'; ran_planted && bad "ran"
    chown 0:0 "$W/c173/libstreamlife_torch-$k.so"; chown 65534:65534 "$W/c173"
    t "$TORCHRUN --cache-dir c173 -- $TORCHPROG"; err_has 'is owned by uid 65534'; ran_planted && bad "ran"
  else bad "needs root"; fi
  end "refused"; fi
if selected 174; then begin 174 'S1: the Python hook folder writable by everyone (an installation under $W)'
  mkdir -p "$W/p174/bin" "$W/p174/lib" "$W/p174/share/streamlife/python"
  ln -f "$BIN" "$W/p174/bin/streamlife" 2>/dev/null || cp "$BIN" "$W/p174/bin/streamlife"
  ln -f "$BUILD/lib/libstreamlife_rt.so" "$W/p174/lib/" 2>/dev/null || cp "$BUILD/lib/libstreamlife_rt.so" "$W/p174/lib/"
  cp "$ROOT/runtime-validator/python/sitecustomize.py" "$W/p174/share/streamlife/python/"
  chmod 777 "$W/p174/share/streamlife/python"
  t "env -u PYTHONPATH p174/bin/streamlife run -- python3 -c 'import os; print(os.environ.get(\"PYTHONPATH\", \"\"))'"
  want_rc 0; err_has 'not loading the Python hook'; grep -q streamlife "$OUTF" && bad "the hook is on PYTHONPATH"
  end "not loaded, said"; fi
if selected 175; then begin 175 'D1: check -j 2 -o report.txt, one worker crashing (through LLVM'"'"'s handler)'
  mkdir -p "$W/d175"; cp "$W/nlm.cu" "$W/d175/crash_me.cu"; cp "$W/nlm.cu" "$W/d175/fine.cu"; cp "$W/pipeline_common.cuh" "$W/d175/"
  t "STREAMLIFE_TEST_CRASH_WORKER_ON=crash_me streamlife check -j 2 -o d175/report.txt d175/crash_me.cu d175/fine.cu -- $CUARGS"
  want_rc 2; err_has 'the checker crashed on it'
  grep -q 'warning:' "$W/d175/report.txt" 2>/dev/null || bad "the report is missing or empty"
  end "the other file's finding is in the report"; fi
if selected 176; then begin 176 'D2: --fix with the late wait inside #ifndef NO_SYNC'
  cat > "$W/d176.cu" <<'CU'
#include <cuda_runtime.h>
__global__ void consume(const float *p);
void f(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
#ifndef NO_SYNC
  cudaStreamWaitEvent(alloc, done, 0);
#endif
}
CU
  cp "$W/d176.cu" "$W/d176.orig"
  t "streamlife check --fix d176.cu -- $CUARGS"; want_rc 1; err_has 'fixed 0 findings'
  cmp -s "$W/d176.cu" "$W/d176.orig" || bad "the file changed"
  end "reported, left unfixed"; fi
if selected 177; then begin 177 'D3: --fix as root on a file of nobody, mode 600'
  if [[ $(id -u) == 0 ]]; then
    cp "$ROOT/test/cli/Inputs/fixits/pipeline.cu" "$W/d177.cu"; chown 65534:65534 "$W/d177.cu"; chmod 600 "$W/d177.cu"
    t "streamlife check --fix d177.cu -- $CUARGS"; want_rc 1; err_has 'fixed 2 findings'
    o=$(stat -c '%u:%g %a' "$W/d177.cu"); [[ "$o" == "65534:65534 600" ]] || bad "now $o"
  else bad "needs root"; fi
  end "owner, group and mode kept"; fi
if selected 178; then begin 178 'D4: --fix on a 0444 file'
  cp "$ROOT/test/cli/Inputs/fixits/pipeline.cu" "$W/d178.cu"; cp "$W/d178.cu" "$W/d178.orig"; chmod 444 "$W/d178.cu"
  t "streamlife check --fix d178.cu -- $CUARGS"; want_rc 2; err_has 'is read-only'
  cmp -s "$W/d178.cu" "$W/d178.orig" || bad "rewritten"
  end "refused, unchanged"; fi
if selected 179; then begin 179 'D5: --fix on a file with a second hard link'
  cp "$ROOT/test/cli/Inputs/fixits/pipeline.cu" "$W/d179.cu"; ln -f "$W/d179.cu" "$W/d179-twin.cu"
  t "streamlife check --fix d179.cu -- $CUARGS"; want_rc 2; err_has 'hard links'
  cmp -s "$W/d179.cu" "$W/d179-twin.cu" || bad "the link was split"
  end "refused, still one file"; fi
if selected 180; then begin 180 'M2: run --error-exitcode 9 --report: a finding, then exec() of a clean CUDA program'
  t "$FAKE streamlife run --error-exitcode 9 --report r180.json -- $PROG exec-after-finding"; want_rc 9
  f=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["findings"])' "$W/r180.json" 2>/dev/null)
  [[ "$f" == 1 ]] || bad "report findings '$f'"
  end "exit 9, report 1 finding in 2 images"; fi
if selected 181; then begin 181 'M1: TMPDIR missing / a file, under --error-exitcode 9 (the program _exit(5)s after a finding)'
  t "$FAKE TMPDIR=$W/nowhere streamlife run --error-exitcode 9 -- $PROG unsafe-free-exit5"; want_rc 9; err_has 'using /tmp'
  t "$FAKE TMPDIR=$W/nlm.cu streamlife run --error-exitcode 9 -- $PROG unsafe-free-exit5"; want_rc 9; err_has 'using /tmp'
  end "a warning, and still 9"; fi
if selected 182; then begin 182 'M1: TMPDIR full from the start / filling up during the run (64 KB tmpfs, unshare -rm)'
  if unshare -rm true 2>/dev/null; then
    mkdir -p "$W/full"
    t "unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs $W/full && dd if=/dev/zero of=$W/full/fill bs=4k 2>/dev/null; $FAKE TMPDIR=$W/full streamlife run --error-exitcode 9 -- $PROG unsafe-free-exit5'"
    want_rc 9; err_has 'No space left on device; using /tmp'
    t "unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs $W/full && $FAKE TMPDIR=$W/full streamlife run --error-exitcode 9 -- sh -c \"dd if=/dev/zero of=$W/full/fill bs=4k 2>/dev/null; $PROG unsafe-free-exit5\"'"
    want_rc 9
  else bad "no user namespaces here"; fi
  end "9 both times (the tally's room is reserved)"; fi
if selected 183; then begin 183 "M3: run --error-exitcode 9 --report r.json -- sh -c 'streamlife run -- prog; exit 0'"
  t "$FAKE streamlife run --error-exitcode 9 --report r183.json -- sh -c 'streamlife run -- $PROG unsafe-free; exit 0'"
  want_rc 9; err_lacks 'no process of the command used CUDA'
  end "the outer launcher sees the inner finding"; fi
if selected 184; then begin 184 'M5: PYTHONPATH with the hook twice (a link, another copy) before the user'"'"'s sitecustomize'
  mkdir -p "$W/h184/a" "$W/h184/b" "$W/h184/user"
  cp "$ROOT/runtime-validator/python/sitecustomize.py" "$W/h184/a/"; cp "$W/h184/a/sitecustomize.py" "$W/h184/b/"
  ln -sfn a "$W/h184/link"; echo 'print("user sitecustomize ran")' > "$W/h184/user/sitecustomize.py"
  t "PYTHONPATH=h184/a:h184/link:h184/b:h184/user python3 -c 'print(1)'"; want_rc 0
  out_has 'user sitecustomize ran'; err_lacks 'RecursionError'
  end "no recursion; the user's hook runs once"; fi
if selected 185; then begin 185 'M7: check DIR with an unreadable subdirectory, as nobody'
  mkdir -p "$W/m185/ok" "$W/m185/secret"; cp "$ROOT/test/cli/Inputs/python/clean.py" "$W/m185/ok/"
  cp "$ROOT/test/cli/Inputs/python/bug.py" "$W/m185/secret/"; chmod 755 "$W/m185" "$W/m185/ok"; chmod 644 "$W/m185/ok/clean.py"; chmod 000 "$W/m185/secret"
  if [[ $(id -u) == 0 ]]; then
    t "$AS_NOBODY streamlife check m185"; want_rc 2; one_error_line; err_has 'secret: cannot read directory: Permission denied'
  else bad "needs root to switch to nobody"; fi
  end; fi
if selected 186; then begin 186 'R5: check DIR with links to .. and ../.. and . inside it'
  mkdir -p "$W/r186/pkg/deeper"; cp "$ROOT/test/cli/Inputs/python/bug.py" "$W/r186/pkg/deeper/"
  ln -sfn .. "$W/r186/pkg/deeper/up"; ln -sfn ../.. "$W/r186/pkg/deeper/upup"; ln -sfn . "$W/r186/pkg/self"
  tm "streamlife check r186"; want_rc 1; warnings 1
  end "one finding"; fi
if selected 187; then begin 187 'R3/R4: check DIR holding a FIFO and a link to /dev/zero named *.py'
  mkdir -p "$W/r187"; cp "$ROOT/test/cli/Inputs/python/bug.py" "$W/r187/"; mkfifo "$W/r187/fifo.py"; ln -sfn /dev/zero "$W/r187/zero.py"
  tm "timeout 60 streamlife check r187"; want_rc 1; warnings 1
  end "both skipped"; fi
if selected 188; then begin 188 'R4: check zero.py (a link to /dev/zero, named), under ulimit -v 4 GB'
  ln -sfn /dev/zero "$W/zero.py"
  tm "ulimit -v 4000000; streamlife check zero.py"; want_rc 2; one_error_line; err_has 'is a device, not a regular file'
  end; fi
if selected 189; then begin 189 'R6: --baseline /dev/zero / a FIFO, under ulimit -v 4 GB'
  mkfifo "$W/b189.sarif" 2>/dev/null
  tm "ulimit -v 4000000; streamlife check --baseline /dev/zero nlm.cu -- $CUARGS"; want_rc 2; one_error_line
  t "timeout 60 streamlife check --baseline b189.sarif nlm.cu -- $CUARGS"; want_rc 2; one_error_line; err_has 'is a FIFO'
  end; fi
if selected 190; then begin 190 'R1: --suppressions /dev/zero; STREAMLIFE_OPTIONS=suppressions=/dev/zero in the program itself'
  t 'streamlife run --suppressions /dev/zero -- true'; want_rc 2; one_error_line
  t "ulimit -v 4000000; $FAKE STREAMLIFE_OPTIONS=suppressions=/dev/zero LD_PRELOAD=$BUILD/lib/libstreamlife_rt.so $PROG unsafe-free"
  want_rc 0; out_has 'ran'; err_has 'is a device, not a regular file'
  end "the launcher refuses it; the program runs to its end"; fi
if selected 191; then begin 191 'M4: --suppressions adir'
  t 'streamlife run --suppressions adir -- true'; want_rc 2; one_error_line; err_has 'is a directory'
  end; fi
if selected 192; then begin 192 'C2: a 100,000-level --baseline and compile_commands.json'
  python3 -c "print('[' * 100000 + ']' * 100000)" > "$W/deep.json"; mkdir -p "$W/db192"; cp "$W/deep.json" "$W/db192/compile_commands.json"
  tm "streamlife check --baseline deep.json nlm.cu -- $CUARGS"; want_rc 2; one_error_line; err_has 'nested more than 512 levels deep'
  tm 'streamlife check -p db192'; want_rc 2; one_error_line; err_has 'nested more than 512 levels deep'
  tm "python3 -c 'import json; json.load(open(\"deep.json\"))'"
  end "refused before parsing; python3's json.load for scale"; fi
if selected 193; then begin 193 'C1: 30,000 nested brackets in a .py; a 3,000-term chain (checked)'
  python3 -c "print('x = ' + '(' * 30000 + '1' + ')' * 30000)" > "$W/c193.py"
  python3 -c "print('x = 1' + ' + 1' * 3000)" > "$W/c193b.py"
  tm 'streamlife check c193.py'; want_rc 2; err_has 'nested more than 4000 levels deep'
  tm 'streamlife check c193b.py'; want_rc 0
  tm "python3 -c 'compile(open(\"c193b.py\").read(), \"c\", \"exec\")'"
  end "one line; CPython's compile of the chain for scale"; fi
if selected 194; then begin 194 'R2: .py of 1 MB invalid UTF-8 / 400 KB of "1a 1a" / "0x 0x" / "a ? a ?" / 1 MB valid (the stdlib'"'"'s largest files)'
  python3 -c "import random,sys; r=random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(128,256) for _ in range(1<<20)))" > "$W/r194a.py"
  for pat in '1a ' '0x ' 'a ? '; do python3 -c "import sys; sys.stdout.write(sys.argv[1] * (400000 // len(sys.argv[1])))" "$pat" > "$W/r194-${#pat}-$(echo "$pat" | tr -dc 'a-z0-9').py"; done
  for f in r194a.py r194-3-1a.py r194-3-0x.py r194-4-a.py; do
    tm "timeout 120 streamlife check $f"; want_rc 2; err_has 'not valid Python'; NOTES[-1]="$f ${NOTES[-1]}"
  done
  big=$(python3 -c 'import os,sysconfig; d=sysconfig.get_paths()["stdlib"]; fs=[os.path.join(r,f) for r,_,n in os.walk(d) if "site-packages" not in r for f in n if f.endswith(".py")]; print(" ".join(sorted(fs, key=os.path.getsize)[-8:]))')
  cat $big > "$W/r194v.py"
  tm "timeout 300 streamlife check r194v.py"; [[ "$RC" == 0 || "$RC" == 1 || "$RC" == 2 ]] || bad "exit $RC"
  NOTES[-1]="valid $(($(wc -c < "$W/r194v.py") / 1024)) KB ${NOTES[-1]}"
  tm "python3 -c 'import ast; ast.parse(open(\"r194v.py\", \"rb\").read())'"; NOTES[-1]="ast.parse ${NOTES[-1]}"
  end "bounded; the valid file against CPython's ast.parse"; fi
if selected 195; then begin 195 'M6: check -o r.txt FIFO with SIGINT ignored, then SIGINT mid-run'
  mkdir -p "$W/m195"; mkfifo "$W/m195/input.cpp"
  t "bash $ROOT/test/cli/Inputs/interrupt-while-ignored.sh $BIN $W/m195"; want_rc 0; out_has 'exit 0'
  [[ -f "$W/m195/report.txt" ]] || bad "the report is gone"
  end "the run ends normally, report written"; fi
if selected 196; then begin 196 'K1: a feed whose attach fails without a reason'
  k=$(feed_key "$W/c196"); plant "$W/c196" "$k"
  t "$TORCHRUN --cache-dir c196 -- $TORCHPROG"; err_has "attach failed with code -1 and gave no reason"; err_lacks 'not validated: ;'
  rm -f "$W/planted"
  end "the code is named"; fi

echo
echo "Totals: OK $OK_ROWS, BAD $BAD_ROWS${BAD_LIST[*]:+ (rows ${BAD_LIST[*]})}"
(( BAD_ROWS == 0 ))
