#!/usr/bin/env python3
"""Fails when a workspace crate's normal or build dependency points UP the layering below, or
when a workspace crate is missing from it (a new crate must be placed). Dev-dependencies are
exempt (a test may use a crate above, as kv's tests use kv-conformance). Reads
`cargo metadata --no-deps --offline` (the manifests only: nothing is downloaded or resolved).
Usage: scripts/check-crate-layers.py (from anywhere; it runs cargo in the repository root)."""
import json
import os
import subprocess
import sys

# The layers, bottom to top (docs/architecture.md tells the same story in prose). A crate may depend only on crates in strictly lower layers, or on
# one in its own layer when the pair is in SAME_LAYER_ALLOWED.
LAYERS = [
    # 0: the files between measuring and reporting; the delay proxy
    ["triebench-record", "triebench-netdelay"],
    # 1: the stores and the latency filesystem
    ["triebench-kv", "triebench-slowfs"],
    # 2: the trie over a store; the stores' shared test suite
    ["triebench-merkle", "triebench-kv-conformance"],
    # 3: the Transact drop-in; what runs against a store; the state engines behind one trait
    ["triebench-transact-state", "triebench-workloads", "triebench-engines"],
    # 4: measuring, reporting, SmallBank end to end
    ["triebench-measure", "triebench-report", "triebench-smallbank"],
    # 5: the crash lab; the steps and the main job's plan (measuring then reporting)
    ["triebench-crashlab", "triebench-plan"],
    # 6: the binaries and suites on top
    ["triebench-cli", "triebench-bench", "triebench-state-suite"],
]

# Crates the table places before they exist: their absence is no error.
NOT_YET = set()

# (from, to) pairs allowed inside one layer; none so far.
SAME_LAYER_ALLOWED = set()


def metadata(root):
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
        cwd=root,
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    return json.loads(out)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    layer_of = {name: i for i, names in enumerate(LAYERS) for name in names}
    meta = metadata(root)
    members = set(meta["workspace_members"])
    crates = [p for p in meta["packages"] if p["id"] in members]
    names = {p["name"] for p in crates}
    problems = []
    for name in sorted(names - set(layer_of)):
        problems.append(f"{name}: not in the layer table of scripts/check-crate-layers.py; place it")
    for name in sorted(set(layer_of) - names - NOT_YET):
        problems.append(f"{name}: in the layer table but no workspace crate; remove or rename it")
    for crate in sorted(crates, key=lambda p: p["name"]):
        src = crate["name"]
        if src not in layer_of:
            continue
        for dep in crate["dependencies"]:
            kind = dep["kind"] or "normal"
            dst = dep["name"]
            if kind == "dev" or dst not in names or dst not in layer_of:
                continue
            if layer_of[dst] < layer_of[src] or (
                layer_of[dst] == layer_of[src] and (src, dst) in SAME_LAYER_ALLOWED
            ):
                continue
            why = (
                "points up the layering"
                if layer_of[dst] > layer_of[src]
                else "stays in its layer (not in SAME_LAYER_ALLOWED)"
            )
            problems.append(
                f"{src} (layer {layer_of[src]}) -> {dst} (layer {layer_of[dst]}): "
                f"{kind} dependency {why}"
            )
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
