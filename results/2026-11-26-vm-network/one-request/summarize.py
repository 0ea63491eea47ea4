#!/usr/bin/env python3
"""summarize.py DIR: per binary label, `postgres`'s suite, `update` per commit (its time / 1000) and
the storage floor per commit (mean of its 300 commits), from DIR/LABEL-ROUND/headline.json; pooled
ratio = mean update / mean floor over the label's runs."""
import glob, json, os, sys

def means(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b["profile"] == "postgres":
            s = b["samples"]
            out[b["group"]] = sum(x["total"] for x in s) / sum(x["iterations"] for x in s)
    return out

rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "headline.json"))):
    run = os.path.basename(os.path.dirname(f))
    m = means(f)
    suite, update, floor = m["scenario/suite"] / 1e6, m["scenario/update"] / 1e6, m["floor/commit"] / 1e3
    rows.setdefault(run.rsplit("-", 1)[0], []).append((suite, update, floor))
    print(f"{run:10s} suite {suite:7.0f} ms  update {update:6.0f} us/commit  floor {floor:5.0f} us  ratio {update / floor:.2f}")
print("| binary | runs | suite (ms) | `update` / commit (µs) | floor / commit (µs) | `update` ÷ floor, pooled (per run) |")
print("|---|---:|---:|---:|---:|---:|")
for label, v in rows.items():
    n = len(v)
    s, u, f = (sum(x[i] for x in v) / n for i in range(3))
    lo, hi = min(x[1] / x[2] for x in v), max(x[1] / x[2] for x in v)
    print(f"| {label} | {n} | {s:,.0f} | {u:.0f} | {f:.0f} | **{u / f:.2f}** ({lo:.2f}-{hi:.2f}) |")
