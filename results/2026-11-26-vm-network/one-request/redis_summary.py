#!/usr/bin/env python3
"""redis_summary.py DIR: `redis` and `redis-aof` per binary label, from DIR/LABEL-ROUND/headline.json:
mean suite, `update` per commit (its time / 1000) and the floor per commit."""
import glob, json, os, sys

rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "headline.json"))):
    label = os.path.basename(os.path.dirname(f)).rsplit("-", 1)[0]
    for b in json.load(open(f))["benchmarks"]:
        if b["profile"] in ("redis", "redis-aof") and b["group"] in ("scenario/suite", "scenario/update", "floor/commit"):
            s = b["samples"]
            rows.setdefault((b["profile"], label, b["group"]), []).append(sum(x["total"] for x in s) / sum(x["iterations"] for x in s))
print("| profile | binary | runs | suite (ms) | `update` / commit (µs) | floor / commit (µs) |")
print("|---|---|---:|---:|---:|---:|")
for profile, label in sorted({(p, l) for p, l, _ in rows}):
    m = {g: sum(v) / len(v) for (p, l, g), v in rows.items() if (p, l) == (profile, label)}
    n = len(rows[(profile, label, "scenario/suite")])
    print(f"| `{profile}` | {label} | {n} | {m['scenario/suite'] / 1e6:,.0f} | {m['scenario/update'] / 1e6:.0f} | {m['floor/commit'] / 1e3:.0f} |")
