#!/usr/bin/env python3
"""Fails when a crate whose integration tests are one binary (`autotests = false` and a
`tests/suite.rs`) has a file under tests/ that suite.rs does not name: cargo would build it into
no binary, and its tests would silently never run."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
problems = []
suites = 0
for manifest in sorted(root.glob("crates/*/Cargo.toml")):
    crate = manifest.parent
    suite = crate / "tests" / "suite.rs"
    autotests_off = re.search(r"^autotests\s*=\s*false", manifest.read_text(), re.M)
    if not autotests_off:
        if suite.exists():
            problems.append(f"{suite.relative_to(root)}: its crate builds every tests/*.rs as its own binary too (set autotests = false)")
        continue
    if not suite.exists():
        problems.append(f"{manifest.relative_to(root)}: autotests = false, but there is no tests/suite.rs")
        continue
    suites += 1
    named = set(re.findall(r'#\[path = "([^"]+)"\]', suite.read_text()))
    for test in sorted((crate / "tests").glob("*.rs")):
        if test.name != "suite.rs" and test.name not in named:
            problems.append(f"{test.relative_to(root)}: not named in {suite.relative_to(root)}, so it never runs")
    for name in sorted(named):
        if not (crate / "tests" / name).exists():
            problems.append(f"{suite.relative_to(root)}: names {name}, which is not there")
for problem in problems:
    print(f"check-test-suites: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-test-suites: {suites} crates' tests are one binary each, every file in it")
