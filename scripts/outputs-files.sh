#!/usr/bin/env bash
# The file-writing and long-text commands' outputs, for a refactor to be checked to change none:
# the report page, explain's text, critical-path --json and crop's .json and .json.gz of every
# fixture capture (and of any trace named after OUT_DIR, e.g. the bench's 160 MB one), a file per
# output. scripts/outputs-digest.mjs covers every JSON command's --json and text; this covers
# what it does not (report and crop write files).
#
#   bash scripts/outputs-files.sh OUT_DIR [TRACE ...]     # before the change
#   bash scripts/outputs-files.sh OUT_DIR2 [TRACE ...]    # after
#   diff -r OUT_DIR OUT_DIR2                              # nothing printed: nothing changed
set -u
out=${1:?usage: bash scripts/outputs-files.sh OUT_DIR [TRACE ...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
extra=()
for t in "$@"; do extra+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")"); done
# (from the root, with relative paths: the hints the outputs print name the trace as given)
cd "$root" || exit 2
k=(node dist/bin/kinetoscope.js)
for t in test/fixtures/traces/*/*.pt.trace.json.gz ${extra[@]+"${extra[@]}"}; do
  b=$(basename "$t" | sed 's/\.pt\.trace\.json\.gz$//; s/\.json\(\.gz\)\{0,1\}$//')
  "${k[@]}" report "$t" -o "$out/$b.report.html" --force >/dev/null 2>"$out/$b.report.err"
  "${k[@]}" explain "$t" >"$out/$b.explain.txt" 2>&1
  "${k[@]}" critical-path "$t" --json >"$out/$b.critical-path.json" 2>&1
  "${k[@]}" crop "$t" --steps 1-2 -o "$out/$b.crop-steps-1-2.json" --force >/dev/null 2>"$out/$b.crop.err"
  "${k[@]}" crop "$t" --steps 2 -o "$out/$b.crop-step-2.json.gz" --force >/dev/null 2>>"$out/$b.crop.err"
done
