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
python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata"
