#!/usr/bin/env bash
# Brings the C sources of tree-sitter (the runtime) and tree-sitter-python (the
# grammar) in from npm, for the Python front end of `streamlife check`.
#
#   scripts/fetch-tree-sitter.sh [DEST]     (default: third_party/, git-ignored)
#
# Both packages are MIT-licensed and ship their C sources: the runtime under
# vendor/tree-sitter/lib/, the grammar under src/. `npm pack` downloads the
# exact tarballs pinned below and nothing else (no install, no scripts run);
# their sha512 integrity is checked against the registry's published value
# before anything is unpacked. Idempotent: an existing DEST/<pkg>-<version>/
# is kept. CMake runs this at configure time when the sources are missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$ROOT/third_party}"

# name version integrity (npm's "dist.integrity" for that exact version)
PACKAGES=(
  "tree-sitter 0.25.0 sha512-PGZZzFW63eElZJDe/b/R/LbsjDDYJa5UEjLZJB59RQsMX+fo0j54fqBPn1MGKav/QNa0JR0zBiVaikYDWCj5KQ=="
  "tree-sitter-python 0.25.0 sha512-eCmJx6zQa35GxaCtQD+wXHOhYqBxEL+bp71W/s3fcDMu06MrtzkVXR437dRrCrbrDbyLuUDJpAgycs7ncngLXw=="
)

die() { echo "streamlife: error: fetch-tree-sitter: $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm not found (Debian: apt-get install npm)"
mkdir -p "$DEST"

for row in "${PACKAGES[@]}"; do
  read -r name version integrity <<<"$row"
  out="$DEST/$name-$version"
  [[ -f "$out/.complete" ]] && continue
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null) || die "npm pack $name@$version failed"
  tarball="$tmp/$name-$version.tgz"
  [[ -f "$tarball" ]] || die "npm pack did not produce $name-$version.tgz"
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  [[ "$actual" == "$integrity" ]] || die "$name@$version: integrity mismatch ($actual)"
  rm -rf "$out" && mkdir -p "$out"
  tar -xzf "$tarball" -C "$out" --strip-components=1
  touch "$out/.complete"
  rm -rf "$tmp"
  trap - EXIT
  echo "streamlife setup: $name@$version (MIT) in $out" >&2
done
