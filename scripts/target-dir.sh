#!/usr/bin/env bash
# Prints this workspace's cargo target directory as cargo resolves it: CARGO_TARGET_DIR, else
# build.target-dir from a cargo config file (or CARGO_BUILD_TARGET_DIR), else <checkout>/target.
# Scripts that run what cargo built, or read what criterion saved there, take it from here
# rather than assuming <checkout>/target.
set -euo pipefail
cd "$(dirname "$0")/.."
metadata=$(cargo metadata --format-version 1 --no-deps --offline) || {
  echo "target-dir: cargo metadata failed (above)" >&2
  exit 1
}
if command -v python3 >/dev/null; then
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata"
else
  # Without python3: the field as cargo prints it (a path with a quote or backslash in it
  # would need a JSON parser).
  dir=$(sed -n 's/.*"target_directory":"\([^"\\]*\)".*/\1/p' <<<"$metadata")
  [[ -n $dir ]] || { echo "target-dir: no target_directory in cargo metadata" >&2; exit 1; }
  echo "$dir"
fi
