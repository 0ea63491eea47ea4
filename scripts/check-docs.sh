#!/usr/bin/env bash
# Checks that the docs and results/ agree:
#   - every folder in results/ is cited by README.md or a page under docs/, and indexed in
#     results/README.md;
#   - every results/<folder> path that README.md or docs/ cites exists;
#   - every relative link in README.md, docs/ and results/README.md points at a file or folder
#     that exists, and every #anchor at a heading of that page;
#   - every result folder's RUNS.md (the record of how a cited folder was made) names only
#     folders that exist: its relative links, and the `../<folder>` and `results/<folder>` paths
#     it mentions (a removed folder is named by its bare name and the commit that removed it).
# Exit status 1, with one line per problem, when any check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

docs=(README.md $(find docs -name '*.md' | sort))
fail=0
problem() { echo "check-docs: $*" >&2; fail=1; }

# GitHub's heading anchors: lowercase, punctuation other than '-' and '_' dropped, spaces -> '-'.
anchors() {
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//' | tr '[:upper:]' '[:lower:]' |
    sed -E 's/[^[:alnum:] _-]//g; s/ /-/g'
}

# 1. Each folder in results/ is cited and indexed.
for dir in results/*/; do
  name=$(basename "$dir")
  grep -qF "results/$name" "${docs[@]}" || problem "results/$name is cited by no page (README.md, docs/)"
  grep -qF "($name/)" results/README.md || problem "results/$name is not indexed in results/README.md"
done

# 2. Each results/<folder>... path cited exists.
for f in "${docs[@]}"; do
  { grep -oE 'results/[0-9][A-Za-z0-9._/-]*' "$f" || true; } | sed -E 's/[.,)]+$//' | sort -u |
    while read -r path; do
      [[ -e $path ]] || echo "check-docs: $f cites $path, which does not exist" >&2
    done
done 2>&1 | { grep . >&2 && exit 1 || true; } || fail=1

# 3. Relative links and anchors.
for f in "${docs[@]}" results/README.md; do
  base=$(dirname "$f")
  { grep -oE '\]\([^) ]+\)' "$f" || true; } | sed -E 's/^\]\(//; s/\)$//' | sort -u | while read -r link; do
    case $link in http://* | https://* | mailto:*) continue ;; esac
    target=${link%%#*}
    anchor=
    [[ $link == *'#'* ]] && anchor=${link#*#}
    if [[ -z $target ]]; then target_file=$f; else target_file=$base/$target; fi
    if [[ ! -e $target_file ]]; then
      echo "check-docs: $f links to $link, which does not exist" >&2
    elif [[ -n $anchor && -f $target_file ]]; then
      anchors "$target_file" | grep -qxF "$anchor" ||
        echo "check-docs: $f links to $link, but $target_file has no heading '#$anchor'" >&2
    fi
  done
done 2>&1 | { grep . >&2 && exit 1 || true; } || fail=1

# 4. A result folder's RUNS.md names no folder that is gone.
for runs in results/*/RUNS.md; do
  [[ -e $runs ]] || continue
  base=$(dirname "$runs")
  {
    { grep -oE '\]\([^) ]+\)' "$runs" || true; } | sed -E 's/^\]\(//; s/\)$//; s/#.*$//' |
      grep -vE '^(https?|mailto):|^$' | sed "s|^|$base/|"
    { grep -oE '\.\./[0-9][A-Za-z0-9._-]*' "$runs" || true; } | sed "s|^|$base/|"
    { grep -oE 'results/[0-9][A-Za-z0-9._/-]*' "$runs" || true; } | sed -E 's/[.,)]+$//'
  } | sort -u | while read -r path; do
    [[ -e $path ]] || echo "check-docs: $runs names $path, which does not exist" >&2
  done
done 2>&1 | { grep . >&2 && exit 1 || true; } || fail=1

if ((fail)); then exit 1; fi
echo "check-docs: $(ls -d results/*/ | wc -l) result folders, each cited and indexed; every cited path and link resolves, and every folder a RUNS.md names exists"
