#!/usr/bin/env bash
# Set-up for a fresh Debian 12 machine: installs what streamlife needs from
# Debian's packages (when missing), then configures and builds into build/.
# Idempotent; every README command starts with it. STREAMLIFE_BUILD_DIR=DIR
# builds into DIR; STREAMLIFE_SKIP_SETUP=1 uses DIR as it is (a tree configured
# and built by hand, with CMake options of one's own): nothing is installed,
# configured or built.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${STREAMLIFE_BUILD_DIR:-$ROOT/build}"
if [[ "${STREAMLIFE_SKIP_SETUP:-0}" == 1 ]]; then
  [[ -f "$BUILD/CMakeCache.txt" ]] && exit 0
  echo "streamlife setup: error: STREAMLIFE_SKIP_SETUP=1 but '$BUILD' is not a configured build tree" >&2
  exit 2
fi

need=()
for pkg in clang-22 clang-tidy-22 libclang-22-dev llvm-22-dev llvm-22-tools cmake ninja-build \
           libgtest-dev python3 xz-utils openssl; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
# npm is asked for by its command, not its package: a Node.js build from outside
# Debian (NodeSource's nodejs, as on these machines) ships npm itself and
# declares a conflict with Debian's npm package, so installing that would fail.
command -v npm >/dev/null 2>&1 || need+=(npm)
if ((${#need[@]})); then
  echo "streamlife setup: installing ${need[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [[ ! -f /usr/local/cuda/include/cuda_runtime.h ]]; then
  echo "streamlife setup: warning: no CUDA toolkit at /usr/local/cuda; .cu files and the runtime validator need it" >&2
fi

# The Python front end's parser: tree-sitter and tree-sitter-python from npm
# (C sources, MIT), unpacked into third_party/ (git-ignored).
"$ROOT/scripts/fetch-tree-sitter.sh"

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER="${CXX:-g++}" >/dev/null
cmake --build "$BUILD" -- -j"$(nproc)"
