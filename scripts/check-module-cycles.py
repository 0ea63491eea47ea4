#!/usr/bin/env python3
"""Fails when a module of a workspace crate imports, directly or through others, a module that
imports it back (`use crate::...` / `use super::...` paths outside comments and test modules).
Usage: scripts/check-module-cycles.py [CRATE_DIR ...]  (default: every crates/*)."""
import glob
import os
import re
import sys


def modules(src):
    """Module path (a::b) -> file, for every .rs file under src."""
    out = {}
    for path in glob.glob(os.path.join(src, "**", "*.rs"), recursive=True):
        parts = os.path.relpath(path, src)[:-3].split(os.sep)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        out["::".join(parts)] = path
    return out


def code_of(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", text, flags=re.S)
    return "\n".join(l for l in text.split("\n") if not l.strip().startswith("//"))


def paths_after(code, prefix):
    """Every path that follows `prefix::` in code, with `{a, b::c}` groups expanded."""
    out = []
    for m in re.finditer(r"\b" + prefix + r"::", code):
        out.extend(expand(code, m.end()))
    return out


def expand(code, at):
    """The paths starting at code[at:]: `a::b`, or a brace group of them."""
    if code.startswith("{", at):
        depth, items, start = 0, [], at + 1
        for i in range(at, len(code)):
            if code[i] == "{":
                depth += 1
            elif code[i] == "}":
                depth -= 1
                if depth == 0:
                    items.append((start, i))
                    break
            elif code[i] == "," and depth == 1:
                items.append((start, i))
                start = i + 1
        paths = []
        for a, _ in items:
            a += len(code[a:]) - len(code[a:].lstrip())
            paths.extend(expand(code, a))
        return paths
    m = re.match(r"(\w+)(::)?", code[at:])
    if not m:
        return []
    if m.group(2):
        return [[m.group(1)] + rest for rest in expand(code, at + m.end())] or [[m.group(1)]]
    return [[m.group(1)]]


def edges(mods):
    graph = {m: set() for m in mods}
    for m, path in mods.items():
        code = code_of(path)
        base = m.split("::")[:-1] if m else []
        refs = paths_after(code, "crate")
        refs += [base + r for r in paths_after(code, "super")]
        for parts in refs:
            for i in range(len(parts), 0, -1):
                target = "::".join(parts[:i])
                if target in mods:
                    if target != m and not m.startswith(target + "::"):
                        graph[m].add(target)
                    break
    return graph


def cycle(graph):
    """One cycle as a list of modules, or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def main():
    crates = sys.argv[1:] or sorted(glob.glob("crates/*"))
    failed = False
    for crate in crates:
        found = cycle(edges(modules(os.path.join(crate, "src"))))
        if found:
            failed = True
            print(f"{crate}: module cycle: {' -> '.join(found)}", file=sys.stderr)
    if failed:
        sys.exit(1)
    print(f"no module cycles in {len(crates)} crates")


if __name__ == "__main__":
    main()
